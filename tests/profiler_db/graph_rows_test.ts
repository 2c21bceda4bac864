/**
 * The captured graphs read by ranges (on this thread and a worker) against the reader of
 * record, row by row through `JSON.parse`: every operation must get the same events, rows and
 * reason, in the same order; the bound must refuse at the same point; rows out of order must
 * be noticed; and a worker that cannot help, or finds the file changed, must not change the
 * answer or mix two files.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { derived, type FixtureName, openFixtureDb, PROFILER_FIXTURES } from "./_fixtures.ts";
import { tempDir } from "../_support/dirs.ts";
import {
  type GraphReading,
  NotGrouped,
  openGraphs,
  type OperationGraph,
  startRanges,
} from "../../src/profiler_db/l1/graph_rows.ts";
import { GRAPH_PLAN, type GraphPlan } from "../../src/profiler_db/l1/_graph_chunks.ts";
import type { ProfilerDb } from "../../src/profiler_db/connection.ts";
import { Refusal } from "../../src/kit/refusal.ts";
import { PERMISSION_FLAGS } from "../../src/kit/permissions.ts";
import { columnsOf } from "../../src/profiler_db/connection.ts";
import { LAST_USE_COLUMNS, lastUsesQuery } from "../../src/profiler_db/l1/inputs.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import { l1PeakRun } from "../../src/analysis/l1_peak.ts";

/** Ranges of 3 rowids; a worker from the second range on. */
const SPLIT: GraphPlan = { rangeRows: 3, workerFrom: 0, maxQueryBytes: 1 << 20 };
/** Ranges of 3 rowids, all on this thread. */
const ALONE: GraphPlan = { ...SPLIT, workerFrom: Infinity };

const pause = () => Promise.resolve();

/**
 * Every operation's graph, in id order, read as `reading` (ranges by `plan`); with
 * `workerFirst`, the worker reads every range it can before this thread starts; with
 * `prefetch`, this thread reads ahead every range the worker has not claimed first.
 */
async function graphsOf(
  pdb: ProfilerDb,
  reading: GraphReading,
  plan: GraphPlan = SPLIT,
  maxChars = 2 ** 30,
  workerFirst = false,
  prefetch = false,
  rank = "",
): Promise<OperationGraph[]> {
  const ids = (pdb.db.prepare(
    "SELECT DISTINCT operation_id AS id FROM operations WHERE operation_id IS NOT NULL " +
      "ORDER BY operation_id",
  ).all() as { id: number }[]).map((r) => r.id);
  const started = reading === "ranges"
    ? startRanges(pdb, rank, maxChars, 64, pause, { plan })
    : null;
  if (workerFirst) await started?.settled();
  if (prefetch) await started?.prefetch(new Promise(() => {}));
  const graphs = await openGraphs(pdb, rank, reading, maxChars, 64, started);
  try {
    const out: OperationGraph[] = [];
    for (const id of ids) out.push(await graphs.next(id));
    return out;
  } finally {
    graphs.close();
  }
}

const WITH_GRAPHS: FixtureName[] = ["w1_python_writer", "v2_1_tensor_size", "v2_mesh_two_devices"];

for (const name of [...WITH_GRAPHS, "v2_1_l1_peak", "v2_1_mesh_warm_cache"]) {
  Deno.test(`graphs read by ranges, with and without a worker, are the rows' (${name})`, async () => {
    // Prevents a range read on the worker, or on this thread, giving an operation other
    // events, rows or reasons than the row-by-row reader, or out of order.
    using pdb = await openFixtureDb(`${PROFILER_FIXTURES}${name}`);
    const expected = await graphsOf(pdb, "rows");
    assert.ok(expected.some((g) => g.events.length > 0));
    for (const plan of [SPLIT, ALONE, GRAPH_PLAN]) {
      assert.deepEqual(await graphsOf(pdb, "ranges", plan), expected);
    }
    assert.deepEqual(await graphsOf(pdb, "ranges", SPLIT, 2 ** 30, true), expected);
  });
}

/** A generated capture: `count` operations, each with a graph (some unreadable, some empty). */
async function generated(count: number) {
  const dir = await tempDir();
  const db = new DatabaseSync(`${dir.path}/db.sqlite`);
  db.exec(
    "CREATE TABLE operations (operation_id int, name text); " +
      "CREATE TABLE captured_graph (operation_id int, captured_graph text);",
  );
  const op = db.prepare("INSERT INTO operations VALUES (?, 'ttnn.op')");
  const graph = db.prepare("INSERT INTO captured_graph VALUES (?, ?)");
  db.exec("BEGIN");
  for (let id = 1; id <= count; id++) {
    op.run(id);
    const cb = { address: String(100 * (id % 7)), size: String(id), globally_allocated: "0" };
    const nodes = [
      { node_type: "circular_buffer_deallocate_all", params: {} },
      { node_type: "circular_buffer_allocate", params: cb },
      { node_type: "buffer_allocate", params: { address: id * 8, type: "L1", size: 640 } },
      { node_type: "tensor", params: { shape: `Shape([${id}])`, name: "naïve" } },
    ];
    const text = id % 97 === 0 ? "[{" : id % 89 === 0 ? "{}" : JSON.stringify(nodes);
    if (id % 83 !== 0) graph.run(id, text);
    if (id % 79 === 0) graph.run(id, JSON.stringify(nodes.slice(1)));
  }
  db.exec("COMMIT");
  db.close();
  return dir;
}

Deno.test("a larger capture read by ranges on two threads is the rows' read", async () => {
  // Prevents the threads' shares overlapping, leaving a gap, or meeting out of order.
  await using dir = await generated(3000);
  using pdb = await openFixtureDb(dir.path);
  const expected = await graphsOf(pdb, "rows");
  assert.equal(expected.filter((g) => g.unreadable !== null).length, 30 + 33);
  assert.deepEqual(await graphsOf(pdb, "ranges", { ...SPLIT, rangeRows: 64 }), expected);
  assert.deepEqual(await graphsOf(pdb, "ranges", SPLIT, 2 ** 30, true), expected);
  assert.deepEqual(await graphsOf(pdb, "ranges", GRAPH_PLAN), expected);
  assert.deepEqual(await graphsOf(pdb, "ranges", SPLIT, 2 ** 30, false, true), expected);
  assert.deepEqual(await graphsOf(pdb, "ranges", ALONE, 2 ** 30, false, true), expected);
});

Deno.test("the bound on characters refuses at the same point by ranges as by rows", async () => {
  // Prevents the worker's reading ahead refusing a capture the replay would read, or a
  // capture past the bound being read.
  await using dir = await generated(600);
  using pdb = await openFixtureDb(dir.path);
  const outcome = (reading: GraphReading, max: number, workerFirst = false, prefetch = false) =>
    graphsOf(pdb, reading, SPLIT, max, workerFirst, prefetch).then(
      (g) => `read ${g.length}`,
      (e) => e instanceof Refusal ? e.message : `threw ${e}`,
    );
  const total = (pdb.db.prepare(
    "SELECT sum(length(captured_graph)) AS n FROM captured_graph",
  ).get() as { n: number }).n;
  for (const max of [0, 100, total / 3, total - 1, total, total + 1]) {
    const rows = await outcome("rows", Math.floor(max));
    assert.equal(await outcome("ranges", Math.floor(max)), rows, `bound ${max}`);
    assert.equal(await outcome("ranges", Math.floor(max), true), rows, `bound ${max}, worker`);
    assert.equal(await outcome("ranges", Math.floor(max), false, true), rows, `${max}, ahead`);
    assert.equal(/past the/.test(rows), Math.floor(max) < total, rows);
  }
});

Deno.test("graph rows out of operation order are noticed by ranges as by rows", async () => {
  // Prevents ranges read side by side hiding an operation whose rows are not together.
  await using dir = await derived(
    "w1_python_writer",
    "CREATE TABLE g AS SELECT * FROM captured_graph ORDER BY operation_id DESC; " +
      "DELETE FROM captured_graph; INSERT INTO captured_graph SELECT * FROM g; DROP TABLE g;",
  );
  using pdb = await openFixtureDb(dir.path);
  for (const reading of ["rows", "ranges"] as const) {
    await assert.rejects(() => graphsOf(pdb, reading), NotGrouped, reading);
  }
  using original = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  assert.deepEqual(await graphsOf(pdb, "ordered"), await graphsOf(original, "rows"));
});

Deno.test("a worker that cannot open the file leaves its ranges to this thread", async () => {
  // Prevents a worker's failure (its file is not where it looks) dropping ranges.
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  const expected = await graphsOf(pdb, "rows");
  pdb.file = { ...pdb.file!, path: `${PROFILER_FIXTURES}no_such_report/db.sqlite` };
  assert.deepEqual(await graphsOf(pdb, "ranges", SPLIT, 2 ** 30, true), expected);
});

Deno.test("a database that changed since load is refused by the graphs' worker, not mixed", async () => {
  // Prevents a replay combining this connection's graphs with a rewritten file's.
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  pdb.file = { ...pdb.file!, identity: { ...pdb.file!.identity, size: 1 } };
  await assert.rejects(
    () => graphsOf(pdb, "ranges", SPLIT, 2 ** 30, true),
    (e) => e instanceof Refusal && /was rewritten after the report was loaded/.test(e.message),
  );
});

Deno.test("a process started with the flag list can run the graphs' worker", async () => {
  // Prevents the flags (or a change to the worker) silently sending every replay's graphs
  // back to one thread: the reader falls back quietly, so only this shows the worker runs.
  const probe = new URL("../_support/graph_worker_probe.ts", import.meta.url).pathname;
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSION_FLAGS, probe, `${PROFILER_FIXTURES}w1_python_writer`],
    stderr: "inherit",
  }).output();
  assert.equal(code, 0);
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  const { n } = pdb.db.prepare("SELECT count(*) AS n FROM captured_graph").get() as { n: number };
  assert.equal(new TextDecoder().decode(stdout).trim(), `read ${n}`);
});

Deno.test("the worker's last uses are the ones this thread reads", async () => {
  // Prevents the stale split reading other last uses when the worker reads them.
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  const query = lastUsesQuery(pdb, rankScope(pdb, undefined));
  assert.ok("sql" in query);
  const lastUses = { sql: query.sql, columns: LAST_USE_COLUMNS };
  const started = startRanges(pdb, "", 2 ** 30, 64, pause, { plan: SPLIT, lastUses })!;
  try {
    const columns = await started.lastUses();
    assert.ok(columns !== null && columns[0].length > 0);
    assert.deepEqual(columns, columnsOf(pdb.db, query.sql, LAST_USE_COLUMNS));
  } finally {
    started.close();
  }
  pdb.file = { ...pdb.file!, path: `${PROFILER_FIXTURES}no_such_report/db.sqlite` };
  const astray = startRanges(pdb, "", 2 ** 30, 64, pause, { plan: SPLIT, lastUses })!;
  assert.equal(await astray.lastUses(), null, "left to this thread");
  astray.close();
});

Deno.test("l1_peak on a capture large enough for the worker answers as without it", async () => {
  // Prevents the two threads' reading (the last uses and the graphs on the worker) changing
  // any figure: the same capture replayed with no file to start a worker on must agree.
  await using dir = await derived(
    "w1_python_writer",
    "WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < 4999) " +
      "INSERT INTO operations SELECT 2000 + v, 'ttnn.op_' || (v % 7), 0.001 FROM n; " +
      "WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < 4999) " +
      "INSERT INTO captured_graph SELECT 2000 + v, captured_graph FROM n, captured_graph " +
      "WHERE operation_id = 5 + (v % 7); " +
      "WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < 4999) " +
      "INSERT INTO buffers SELECT 2000 + v, device_id, address, max_size_per_bank, buffer_type " +
      "FROM n, buffers WHERE operation_id = 5 + (v % 7);",
  );
  const scope = { multiHost: false, rank: null, ranks: [] };
  using twoThreads = await openFixtureDb(dir.path);
  using oneThread = await openFixtureDb(dir.path);
  oneThread.file = undefined;
  const both = await l1PeakRun(twoThreads, scope);
  assert.ok(both.operationsReplayed > 5000 && both.peak !== null);
  assert.deepEqual(both, await l1PeakRun(oneThread, scope));
});
