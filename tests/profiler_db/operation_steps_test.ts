/**
 * operation_detail's reads of one operation's rows in the large tables — its buffers snapshot,
 * its input and output tensors, what its DRAM fallback reads — go in rowid steps with the loop
 * let in between two, stop at a cancel, and give the whole reads' rows in their order. Steps
 * are counted, never timed.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openFixtureDb } from "./_fixtures.ts";
import { tempDir } from "../_support/dirs.ts";
import { rows } from "../../src/profiler_db/connection.ts";
import { snapshotAt, snapshotAtInSteps } from "../../src/profiler_db/buffers.ts";
import { operationTensors } from "../../src/profiler_db/tensors.ts";
import { rowsFoundInSteps, STEP_ROWS } from "../../src/profiler_db/steps.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import { dramFallbackField } from "../../src/analysis/dram_fallbacks.ts";
import { writeDetailDb } from "../../scripts/make_large_profiler_db.ts";
import { assertPausesAndStops, type SteppedRead } from "./_stepped_reads.ts";

const noPause = () => Promise.resolve();

Deno.test("rows found in steps are the whole query's, in its own order", async () => {
  // Prevents the steps losing the query's ORDER BY, or a row of another step.
  await using dir = await tempDir();
  const db = new DatabaseSync(`${dir.path}/db.sqlite`);
  db.exec("CREATE TABLE t (k int, o, v int)");
  const ins = db.prepare("INSERT INTO t VALUES (?, ?, ?)");
  db.exec("BEGIN");
  // Key 1's rows spread over every step, their order values mixed in type and reversed.
  for (let i = 0; i < 3 * STEP_ROWS; i++) {
    ins.run(i % 500 === 0 ? 1 : 2, i % 1000 === 0 ? `t${i}` : (3 * STEP_ROWS - i) % 7, i);
  }
  db.exec("COMMIT");
  db.close();
  using pdb = await openFixtureDb(dir.path);
  const whole = rows(pdb, "SELECT o, v FROM t WHERE k = ? ORDER BY o, rowid", 1);
  const stepped = await rowsFoundInSteps(
    pdb,
    "t",
    "",
    "k = ?",
    [1],
    (restrict) => `SELECT o, v FROM t WHERE k = ?${restrict} ORDER BY o, rowid`,
    noPause,
  );
  assert.ok(whole.length > 20);
  assert.deepEqual(stepped, whole);
});

Deno.test("operation_detail's reads of one operation pause between steps and stop at a throw", async () => {
  // Prevents a read of one operation's rows held in one SQLite call over the whole table
  // (issue 30: 235 ms for one operation's buffers among 3 million rows; during 50 calls at once
  // a ping waited for several of them), or one that runs on once cancelled.
  await using dir = await tempDir();
  writeDetailDb(`${dir.path}/db.sqlite`, 20_000, false);
  using pdb = await openFixtureDb(dir.path);
  const scope = rankScope(pdb, undefined);
  const id = 9_999; // one asking for L1 (every third does)
  assert.deepEqual(await snapshotAtInSteps(pdb, scope, id, noPause), snapshotAt(pdb, scope, id));
  const reads: [string, SteppedRead][] = [
    ["the buffers snapshot", (pause) => snapshotAtInSteps(pdb, scope, id, pause)],
    ["the input tensors", (pause) => operationTensors(pdb, scope, id, "input", pause)],
    ["the output tensors", (pause) => operationTensors(pdb, scope, id, "output", pause)],
    ["the DRAM fallback", (pause) => dramFallbackField(pdb, scope, id, pause)],
  ];
  for (const [read, of] of reads) {
    const answer = await assertPausesAndStops(read, of);
    assert.deepEqual(await of(noPause), answer, read);
  }
});
