import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { callOk, connect } from "../_support/server.ts";
import { derived } from "../profiler_db/_fixtures.ts";
import { tempDir } from "../_support/dirs.ts";
import { rowidRanges, SCAN_PLAN } from "../../src/profiler_db/_buffer_columns.ts";

type Row = Record<string, unknown>;

/** 60,000 operations after the fixture's, five buffers rows each on two devices (L1 and DRAM). */
const MORE_OPERATIONS = `
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59999)
INSERT INTO operations SELECT 100 + i, 'ttnn.op' || (i % 7), 0.001 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59999),
  b(k) AS (VALUES (0), (1), (2), (3), (4))
INSERT INTO buffers (operation_id, device_id, address, max_size_per_bank, buffer_type, buffer_layout)
  SELECT 100 + i, (i + k) % 2, 1000000 + 40000 * k + 512 * (i % 13), 2048 * (1 + (i * k) % 11),
    CASE WHEN k < 2 THEN 0 ELSE 1 END, 0
  FROM n, b ORDER BY 1, k;`;

/**
 * Makes the last row of the first range and the first row of the worker's first range one
 * operation's two large L1 buffers on device 0; returns that operation.
 */
function straddle(path: string): number {
  const db = new DatabaseSync(path);
  const { lo, hi } = db.prepare("SELECT MIN(rowid) AS lo, MAX(rowid) AS hi FROM buffers")
    .get() as { lo: number; hi: number };
  const boundary = rowidRanges(lo, hi, SCAN_PLAN)[1].from;
  const { op } = db.prepare("SELECT operation_id AS op FROM buffers WHERE rowid = ?")
    .get(boundary) as { op: number };
  db.prepare(
    "UPDATE buffers SET operation_id = ?, device_id = 0, buffer_type = 1, " +
      "max_size_per_bank = 7000000 WHERE rowid IN (?, ?)",
  ).run(op, boundary - 1, boundary);
  db.close();
  return op;
}

Deno.test("memory_profile over stdio answers a 300,000-row buffers table the same with its worker as without", async () => {
  // Prevents the scan's worker, which only starts on a table this large and only under the
  // server's own flags, changing an answer: the same rows read as a WAL-mode snapshot (which
  // never starts the worker) must give the same figures.
  await using withWorker = await derived("v2_mesh_two_devices", MORE_OPERATIONS);
  const straddling = straddle(`${withWorker.path}/db.sqlite`);
  await using snapshot = await tempDir();
  await Deno.copyFile(`${withWorker.path}/db.sqlite`, `${snapshot.path}/db.sqlite`);
  const w = new DatabaseSync(`${snapshot.path}/db.sqlite`);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  for (const e of Deno.readDirSync(snapshot.path)) {
    if (e.name !== "db.sqlite") Deno.removeSync(`${snapshot.path}/${e.name}`);
  }
  const rows = new DatabaseSync(`${withWorker.path}/db.sqlite`, { readOnly: true });
  const count = (rows.prepare("SELECT COUNT(*) AS n FROM buffers").get() as { n: number }).n;
  rows.close();
  assert.ok(count >= SCAN_PLAN.workerFrom, `${count} buffers rows: enough for a worker`);

  const { client, close } = await connect();
  try {
    const answer = async (dir: string) => {
      const loaded = await callOk(client, "load_report", { profiler_path: dir });
      const { handle: _, ...figures } = await callOk(client, "memory_profile", {
        handle: loaded.handle,
        limit: 100,
      });
      return figures as Row;
    };
    const split = await answer(withWorker.path);
    const alone = await answer(snapshot.path);
    const types = split.memory_by_buffer_type as Record<string, Row>;
    assert.ok((types.L1.operation_count as number) > 60_000, JSON.stringify(types.L1));
    // The peak is the operation read half by this thread, half by the worker: both halves of
    // it, as one operation.
    const top = (types.L1.operations as Row[])[0];
    assert.equal(top.operation_id, straddling);
    assert.ok((top.size as number) >= 14_000_000, JSON.stringify(top));
    assert.deepEqual(split, alone);
  } finally {
    await close();
  }
});
