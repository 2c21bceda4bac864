/**
 * The buffers scan split across a worker: ranges built on another thread must visit exactly
 * what one thread visits, a worker that cannot build its range must not lose it, and a file
 * that changed since load must be refused rather than read half old, half new.
 */
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { derived, type FixtureName, openFixtureDb, PROFILER_FIXTURES } from "./_fixtures.ts";
import { scanOperations } from "../../src/profiler_db/buffer_scan.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import type { ProfilerDb } from "../../src/profiler_db/connection.ts";
import { Refusal } from "../../src/kit/refusal.ts";

/** Everything on this thread. */
const ONE_THREAD = { rangeRows: 1 << 18, workerFrom: Infinity };
/** Ranges of 7 rowids, every one after the first built by a worker. */
const SPLIT = { rangeRows: 7, workerFrom: 0 };

/** Each visited operation as the visitor saw it, copied. */
function visited(pdb: ProfilerDb, plan: typeof SPLIT, rank?: number) {
  return scanOperations(pdb, rankScope(pdb, rank), () => {
    const seen: unknown[] = [];
    return {
      visit: (b) => seen.push(structuredClone(b)),
      finish: () => seen,
    };
  }, plan);
}

/** Counts the column queries this thread runs. */
function counting(count: { columns: number }) {
  return (db: DatabaseSync): DatabaseSync =>
    new Proxy(db, {
      get(target, key) {
        if (key !== "prepare") return Reflect.get(target, key);
        return (sql: string) => {
          if (sql.includes("json_group_array")) count.columns++;
          return target.prepare(sql);
        };
      },
    });
}

for (const [name, rank] of [["v2_mesh_two_devices", undefined], ["ranked_two_hosts", 1]] as const) {
  Deno.test(`a scan split across a worker visits what one thread visits (${name})`, async () => {
    // Prevents ranges built on the worker being visited out of order, twice or not at all.
    const count = { columns: 0 };
    using pdb = await openFixtureDb(`${PROFILER_FIXTURES}${name satisfies FixtureName}`);
    using split = await openFixtureDb(`${PROFILER_FIXTURES}${name}`, counting(count));
    const alone = await visited(pdb, ONE_THREAD, rank);
    assert.ok(alone.length > 2);
    assert.deepEqual(await visited(split, SPLIT, rank), alone);
    assert.deepEqual(count.columns, 1, "this thread built the first range only");
  });
}

Deno.test("rows out of operation order are read in order with a worker too", async () => {
  // Prevents the worker's ranges hiding an operation that comes back, or the fallback losing it.
  await using dir = await derived(
    "v2_mesh_two_devices",
    `CREATE TABLE b2 AS SELECT * FROM buffers ORDER BY device_id, operation_id DESC;
     DELETE FROM buffers; INSERT INTO buffers SELECT * FROM b2; DROP TABLE b2;`,
  );
  using original = await openFixtureDb(`${PROFILER_FIXTURES}v2_mesh_two_devices`);
  using shuffled = await openFixtureDb(dir.path);
  const byOperation = (ops: unknown[]) =>
    (ops as { operation_id: number; types: string[]; devices: number[]; sums: number[] }[])
      .map((o) => ({
        id: o.operation_id,
        entries: o.types.map((t, k) => `${t}@${o.devices[k]}=${o.sums[k]}`).sort(),
      }));
  const expected = byOperation(await visited(original, ONE_THREAD));
  assert.deepEqual(byOperation(await visited(shuffled, SPLIT)), expected);
});

Deno.test("a worker that cannot build its ranges leaves them to this thread", async () => {
  // Prevents a worker's failure (here: its file is not where it looks) dropping ranges.
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}v2_mesh_two_devices`);
  const alone = await visited(pdb, ONE_THREAD);
  using astray = await openFixtureDb(`${PROFILER_FIXTURES}v2_mesh_two_devices`);
  astray.file = { ...astray.file!, path: `${PROFILER_FIXTURES}no_such_report/db.sqlite` };
  assert.deepEqual(await visited(astray, SPLIT), alone);
});

Deno.test("a database that changed since load is refused by the worker, not mixed", async () => {
  // Prevents a scan combining this connection's rows with a rewritten file's.
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}v2_mesh_two_devices`);
  pdb.file = { ...pdb.file!, identity: { ...pdb.file!.identity, size: 1 } };
  await assert.rejects(
    () => visited(pdb, SPLIT),
    (e) => e instanceof Refusal && /was rewritten after the report was loaded/.test(e.message),
  );
});
