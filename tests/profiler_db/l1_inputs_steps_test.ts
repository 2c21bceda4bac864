/**
 * What l1_peak's replay reads besides the graphs — the buffers snapshots, each address's last
 * consumer, the operations' ids — is read in steps with the event loop let in between two, and
 * gives the whole queries' answers. Steps are counted, never timed.
 */
import assert from "node:assert/strict";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type FixtureName, openFixtureDb, PROFILER_FIXTURES } from "./_fixtures.ts";
import { tempDir } from "../_support/dirs.ts";
import {
  lastUsesInSteps,
  lastUsesOf,
  lastUsesQuery,
  operationIds,
  operationIdsInSteps,
  snapshotsOf,
} from "../../src/profiler_db/l1/inputs.ts";
import { NO_PROGRESS } from "../../src/kit/progress.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import { l1PeakRun } from "../../src/analysis/l1_peak.ts";
import { writeGraphDb } from "../../scripts/make_large_profiler_db.ts";
import type { ProfilerDb } from "../../src/profiler_db/connection.ts";
import { assertPausesAndStops, type SteppedRead } from "./_stepped_reads.ts";

const noPause = () => Promise.resolve();

const FIXTURES: FixtureName[] = [
  "w1_python_writer",
  "v2_1_tensor_size",
  "v2_mesh_two_devices",
  "ranked_two_hosts",
  "mixed_rank_operations_only",
  "w1_native_traces",
  "v2_no_traces_no_geometry",
  "w1_truncated_operations_only",
  "v2_1_failed_run",
];

/** Asserts the stepped reads give the whole queries' answers at every rank of `pdb`. */
async function sameAsWhole(pdb: ProfilerDb, label: string): Promise<void> {
  const ranks = pdb.schema.hasColumn("operations", "rank")
    ? (pdb.db.prepare("SELECT DISTINCT rank FROM operations ORDER BY rank").all() as {
      rank: number;
    }[]).map((r) => r.rank)
    : [undefined];
  for (const rank of ranks) {
    const scope = rankScope(pdb, rank);
    const query = lastUsesQuery(pdb, scope);
    assert.deepEqual(
      await lastUsesInSteps(pdb, scope, query, noPause),
      lastUsesOf(pdb, query),
      `${label} at rank ${rank}: last uses`,
    );
    if (pdb.schema.has("operations")) {
      assert.deepEqual(
        await operationIdsInSteps(pdb, scope, noPause),
        operationIds(pdb, scope),
        `${label} at rank ${rank}: operation ids`,
      );
    }
  }
}

Deno.test("the last uses and operation ids read in steps are the whole queries' answers", async () => {
  // Prevents the stepped reads dropping, adding or reordering what the whole queries give:
  // deallocates skipped, the latest consumer kept, each rank apart, odd ids read whole.
  for (const name of FIXTURES) {
    using pdb = await openFixtureDb(`${PROFILER_FIXTURES}${name}`);
    await sameAsWhole(pdb, name);
  }
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  writeGraphDb(path, 3_000);
  {
    using pdb = await openFixtureDb(dir.path);
    await sameAsWhole(pdb, "3,000 generated operations");
  }
  const { DatabaseSync } = await import("node:sqlite");
  const edits: [string, string][] = [
    ["an id out of rowid order", "INSERT INTO operations VALUES (0, 'ttnn.add', 0.1)"],
    [
      "a deallocate consuming the last input",
      "UPDATE operations SET name = 'TTNN.Deallocate' WHERE operation_id = 3000",
    ],
    ["an operation id that is text", "UPDATE operations SET operation_id = 'x' WHERE rowid = 7"],
    ["a tensor id that is text", "UPDATE tensors SET tensor_id = 'y' WHERE rowid = 9"],
    [
      "an input's operation that is text",
      "UPDATE input_tensors SET operation_id = '9' WHERE rowid = 4",
    ],
  ];
  for (const [label, sql] of edits) {
    const db = new DatabaseSync(path);
    db.exec(sql);
    db.close();
    using pdb = await openFixtureDb(dir.path);
    await sameAsWhole(pdb, label);
  }
});

/** A 10,000-operation l1_peak database under a temp dir, opened as the server reads it. */
async function largeRun(wrap?: (db: DatabaseSync) => DatabaseSync) {
  const dir = await tempDir();
  writeGraphDb(`${dir.path}/db.sqlite`, 10_000);
  const opened = await openFixtureDb(dir.path, wrap);
  // Read on this thread alone, as the server reads its in-memory copy (no worker).
  const pdb: ProfilerDb = { ...opened, file: undefined };
  return {
    pdb,
    scope: rankScope(pdb, undefined),
    async [Symbol.asyncDispose]() {
      opened[Symbol.dispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("l1_peak reads its buffers scan, last uses and operation ids in steps", async () => {
  // Prevents each of them read in one synchronous piece (issue 30: 2.8 s, 2.75 s and 0.36 s
  // held on a 379 MiB graph database while a ping waited).
  // Each run of a statement, by its text.
  const ran: string[] = [];
  const bound = (target: object, key: string | symbol) => {
    const v = Reflect.get(target, key);
    return typeof v === "function" ? v.bind(target) : v;
  };
  const runs = (sql: string, statement: StatementSync) =>
    new Proxy(statement, {
      get(target, key) {
        if (key === "all" || key === "get" || key === "iterate") {
          return (...args: never[]) => (ran.push(sql), target[key](...args));
        }
        return bound(target, key);
      },
    });
  const record = (db: DatabaseSync) =>
    new Proxy(db, {
      get(target, key) {
        if (key === "prepare") return (sql: string) => runs(sql, target.prepare(sql));
        return bound(target, key);
      },
    });
  await using run = await largeRun(record);
  assert.equal((await l1PeakRun(run.pdb, run.scope)).operationsReplayed, 10_000);
  const reads: [string, RegExp][] = [
    ["the buffers scan", /json_group_array\(operation_id\) AS op/],
    ["the last uses", /input_tensors|deallocate|FROM tensors t/],
    ["the operation ids", /FROM operations WHERE operation_id IS NOT NULL/],
  ];
  for (const [read, pattern] of reads) {
    const steps = ran.filter((sql) => pattern.test(sql)).length;
    assert.ok(steps > 2, `${read} read in ${steps} statement(s)`);
  }
});

Deno.test("the buffers scan, last uses and operation ids pause between steps and stop at a throw", async () => {
  // Prevents a read that never lets the loop in, or runs on to its end once cancelled.
  await using run = await largeRun();
  const { pdb, scope } = run;
  const query = lastUsesQuery(pdb, scope);
  const reads: [string, SteppedRead][] = [
    ["the buffers scan", (pause) => snapshotsOf(pdb, scope, NO_PROGRESS, pause)],
    ["the last uses", (pause) => lastUsesInSteps(pdb, scope, query, pause)],
    ["the operation ids", (pause) => operationIdsInSteps(pdb, scope, pause)],
  ];
  for (const [read, of] of reads) await assertPausesAndStops(read, of);
});
