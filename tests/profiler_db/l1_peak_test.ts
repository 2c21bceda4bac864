import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { derived, loaded, moreOperations, openFixtureDb, PROFILER_FIXTURES } from "./_fixtures.ts";
import { l1PeakRun } from "../../src/analysis/l1_peak.ts";
import { Refusal } from "../../src/kit/refusal.ts";

type Row = Record<string, unknown>;
/** An entry as [operation, total, circular buffers, intermediate, persistent, stale, also_at]. */
type Figures = [number, number, number, number, number, number | null, number[]];
const table = (a: Row): Figures[] =>
  (a.top_operations as Row[]).map((t) => [
    t.operation_id as number,
    t.total_bytes as number,
    t.circular_buffer_bytes as number,
    t.intermediate_tensor_bytes as number,
    t.persistent_tensor_bytes as number,
    t.stale_tensor_bytes as number | null,
    t.also_at as number[],
  ]);
const peakOf = (a: Row) => a.peak as Row;

// The tiny CNN run (scripts/_profiler_model.ts), replayed by hand. Every device operation
// allocates two circular buffers, 16,384 at 103,712 and 32,768 at 136,480 (49,152 B/bank).
// L1 tensors: conv output 8,192 at 1,466,368 (last consumed by 6), relu output 8,192 at
// 1,458,176 (by 8), linear output 14,336 at 1,443,840 (by 10), softmax output 14,336 at
// 1,429,504 (by 10); the conv's L1_SMALL buffer, 16,384 at 1,482,752, enters with the snapshot
// after 5 and is no tensor (always persistent).
//   3 to_layout: the circular buffers alone                                   49,152
//   5 conv2d:    CBs + conv output                                            57,344
//   6 relu:      CBs + conv, relu outputs + L1_SMALL                          81,920
//   7 deallocate (conv output): on entry conv output is stale (6 < 7)         32,768
//   8 linear:    CBs + relu, linear outputs + L1_SMALL                        88,064
//   9 softmax:   CBs + relu output stale (8 < 9) + linear, softmax, L1_SMALL 102,400
//  10 add:       the same composition as 9                                   102,400
//  11 deallocate (softmax output): on entry linear and softmax are stale       53,248
//  12 to_torch:  relu, linear outputs stale + L1_SMALL                         38,912
const CNN: Figures[] = [
  [9, 102400, 49152, 0, 45056, 8192, [10]],
  [8, 88064, 49152, 0, 38912, 0, []],
  [6, 81920, 49152, 0, 32768, 0, []],
  [5, 57344, 49152, 0, 8192, 0, []],
  [11, 53248, 0, 0, 16384, 36864, []],
  [3, 49152, 49152, 0, 0, 0, []],
  [12, 38912, 0, 0, 16384, 22528, []],
  [7, 32768, 0, 0, 24576, 8192, []],
];

Deno.test("the CNN run's decomposition is the one replayed by hand", async () => {
  // Prevents any drift in the replay: every operation with L1, each kind's bytes, the tie.
  const r = await loaded("w1_python_writer");
  const a = await r.call("l1_peak", { limit: 100 });
  assert.deepEqual(table(a), CNN);
  assert.equal(a.composition_count, 8);
  assert.equal(a.figures_withheld, false);
  assert.equal(a.size_unit, "bytes_per_bank");
  assert.equal(peakOf(a).operation_id, 9);
  assert.equal(peakOf(a).name, "ttnn.softmax");
  assert.equal(peakOf(a).precision, "upper_bound");
  assert.deepEqual(
    (peakOf(a).contributors as Row[]).map((
      c,
    ) => [c.kind, c.address, c.bytes, c.last_used_by_operation_id]),
    [
      ["circular_buffer", 136480, 32768, null],
      ["circular_buffer", 103712, 16384, null],
      ["persistent_tensor", 1482752, 16384, null],
      ["persistent_tensor", 1429504, 14336, 10],
      ["persistent_tensor", 1443840, 14336, 10],
      ["stale_tensor", 1458176, 8192, 8],
    ],
  );
  assert.deepEqual(a.l1, {
    device_id: 0,
    worker_l1_size: 1499136,
    l1_num_banks: 64,
    l1_num_banks_assumed: false,
    peak_share_pct: 6.831,
  });
  assert.equal(a.operations_replayed, 12);
  assert.equal(a.operations_without_snapshot, 1); // from_torch: nothing on device yet
  assert.equal(a.caveat, undefined);
});

Deno.test("number-typed graph params and text buffer types replay to the same figures", async () => {
  // Prevents the newest capture's JSON numbers, or tensors typed 'L1', changing the answer.
  const r = await loaded("v2_1_tensor_size");
  assert.deepEqual(table(await r.call("l1_peak", { limit: 100 })), CNN);
});

// v2_1_l1_peak (scripts/_profiler_l1_peak.ts) appends to the CNN run; entering 13 the run
// holds relu output (stale), linear output (stale) and L1_SMALL: 38,912.
//  13 matmul: CB 65,536 (the globally allocated and address-less ones add nothing), an
//     intermediate 655,360 / 64 = 10,240, a 409,600 / 8 = 51,200 buffer the snapshot lacks
//     (persistent here, reconciled away after):    65,536 + 10,240 + 67,584 + 22,528 = 165,888
//  14 add: CB 8,192 and 20,480 allocated and freed (intermediate) then allocated again:
//     the first instant holds it                    8,192 + 20,480 + 16,384 + 22,528 = 67,584
//  15 relu: CB 8,192 over that tensor, persistent   8,192 + 36,864 + 22,528          = 67,584
//  16 deallocate: on entry the tensor is stale      16,384 + 43,008                  = 59,392
//  17 synchronize_device: no graph, no snapshot: the composition of 12 again.
const PASS: Figures[] = [
  [13, 165888, 65536, 10240, 67584, 22528, []],
  CNN[0],
  CNN[1],
  CNN[2],
  [14, 67584, 8192, 20480, 16384, 22528, []],
  [15, 67584, 8192, 0, 36864, 22528, []],
  [16, 59392, 0, 0, 16384, 43008, []],
  CNN[3],
  CNN[4],
  CNN[5],
  [12, 38912, 0, 0, 16384, 22528, [17]],
  CNN[7],
];

Deno.test("intermediate tensors, reconciliation and uncaptured operations replay as computed by hand", async () => {
  // Prevents an intermediate, a dropped graph allocation, a size without max_size_per_bank or
  // an operation with no graph and no snapshot being misread.
  const r = await loaded(`${PROFILER_FIXTURES}v2_1_l1_peak`);
  const a = await r.call("l1_peak", { limit: 100 });
  assert.deepEqual(table(a), PASS);
  assert.equal(peakOf(a).operation_id, 13);
  assert.equal(peakOf(a).resident_count, 6);
  assert.deepEqual(
    (peakOf(a).contributors as Row[]).map((c) => [c.kind, c.address, c.bytes]),
    [
      ["circular_buffer", 103712, 65536],
      ["persistent_tensor", 1350000, 51200],
      ["persistent_tensor", 1482752, 16384],
      ["stale_tensor", 1443840, 14336],
      ["intermediate_tensor", 1300000, 10240],
      ["stale_tensor", 1458176, 8192],
    ],
  );
  assert.equal(a.reconciled_away_count, 1);
  assert.equal(a.operations_without_graph, 1);
  assert.equal(a.operations_without_snapshot, 2);
  assert.equal(a.operations_replayed, 17);
});

Deno.test("an address reused by tensors with different last consumers is counted, and stale called a floor", async () => {
  // Prevents guessing which tensor's last use applies at a shared address.
  const r = await loaded(`${PROFILER_FIXTURES}v2_1_l1_peak`);
  const a = await r.call("l1_peak", {});
  assert.equal(a.unattributable_stale_address_count, 1);
  assert.match(String(a.caveat), /1 L1 address is reused .* stale_tensor_bytes is a floor/);
});

Deno.test("a replay past the device's L1 withholds every figure and says why", async () => {
  // Prevents a replay no run could hold being presented as a measurement.
  const r = await loaded(`${PROFILER_FIXTURES}v2_1_l1_peak_exceeds`);
  const a = await r.call("l1_peak", {});
  assert.equal(a.figures_withheld, true);
  assert.equal(a.peak, null);
  assert.equal(a.top_operations, null);
  assert.match(
    String(a.reason),
    /exceeds the device's L1 \(worker_l1_size 1499136 .* operation 13/,
  );
  assert.match(String(a.reason), /none of its figures is a measurement/);
  assert.equal((a.l1 as Row).peak_share_pct, null);
  assert.ok(!JSON.stringify(a).includes("2097152"));
});

Deno.test("a replay exactly at the device's L1 is not withheld", async () => {
  // Prevents an off-by-one: equal to worker_l1_size fits.
  await using dir = await derived(
    "w1_python_writer",
    "UPDATE devices SET worker_l1_size = 102400;",
  );
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(a.figures_withheld, false);
  assert.equal(peakOf(a).total_bytes, 102400);
  assert.equal((a.l1 as Row).peak_share_pct, 100);
  await using over = await derived(
    "w1_python_writer",
    "UPDATE devices SET worker_l1_size = 102399;",
  );
  assert.equal((await (await loaded(over.path)).call("l1_peak", {})).figures_withheld, true);
});

Deno.test("a report with no device row withholds the figures", async () => {
  // Prevents figures with no L1 size or bank count to read them against.
  await using dir = await derived("w1_python_writer", "DELETE FROM devices;");
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(a.figures_withheld, true);
  assert.match(String(a.reason), /no device row/);
  assert.equal(a.l1, null);
});

Deno.test("no worker_l1_size answers with a caveat that the replay was not checked against L1", async () => {
  // Prevents an unchecked replay reading as one that fits.
  await using dir = await derived("w1_python_writer", "UPDATE devices SET worker_l1_size = NULL;");
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(a.figures_withheld, false);
  assert.equal(peakOf(a).total_bytes, 102400);
  assert.match(String(a.caveat), /no worker_l1_size, so the replay could not be checked/);
});

Deno.test("no l1_num_banks assumes 64 for a node without a per-bank size, and says so", async () => {
  // Prevents a silent default behind a per-bank figure.
  await using dir = await derived("w1_python_writer", "UPDATE devices SET l1_num_banks = NULL;");
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal((a.l1 as Row).l1_num_banks, 64);
  assert.equal((a.l1 as Row).l1_num_banks_assumed, true);
  assert.match(String(a.caveat), /no l1_num_banks, so 64 banks are assumed/);
});

Deno.test("without the tensor tables stale is withheld and those tensors count as persistent", async () => {
  // Prevents every tensor reading as not stale when no last consumer could be read.
  await using dir = await derived("w1_python_writer", "DROP TABLE input_tensors;");
  const r = await loaded(dir.path);
  assert.ok((r.inventory.answerable as string[]).includes("l1_peak"));
  const a = await r.call("l1_peak", {});
  assert.equal(peakOf(a).stale_tensor_bytes, null);
  assert.equal(peakOf(a).persistent_tensor_bytes, 45056 + 8192);
  assert.match(String(a.caveat), /stale_tensor_bytes is withheld .* no `input_tensors` table/);
});

Deno.test("an unreadable graph is replayed as empty and named in a caveat", async () => {
  // Prevents one corrupt graph failing the whole answer, or going unmentioned.
  await using dir = await derived(
    "w1_python_writer",
    "UPDATE captured_graph SET captured_graph = '{not json' WHERE operation_id = 3; " +
      "UPDATE captured_graph SET captured_graph = '{\"a\": 1}' WHERE operation_id = 8;",
  );
  const a = await (await loaded(dir.path)).call("l1_peak", { limit: 100 });
  assert.equal(a.unreadable_graph_count, 2);
  assert.match(
    String(a.caveat),
    /2 operations' captured graphs could not be read \(first: operation 3, its captured graph does not parse as JSON\)/,
  );
  assert.ok(!table(a).some((t) => t[0] === 3));
});

Deno.test("graph rows stored out of operation order replay in operation order", async () => {
  // Prevents a writer that inserted graphs out of order replaying operations out of order.
  await using dir = await derived(
    "w1_python_writer",
    "CREATE TABLE g AS SELECT * FROM captured_graph ORDER BY operation_id DESC; " +
      "DELETE FROM captured_graph; INSERT INTO captured_graph SELECT * FROM g; DROP TABLE g;",
  );
  assert.deepEqual(table(await (await loaded(dir.path)).call("l1_peak", { limit: 100 })), CNN);
});

Deno.test("a graph row for an operation the report does not hold is ignored", async () => {
  // Prevents an importer's orphan graph (the earliest importer files a whole run under a
  // base id) entering the replay.
  await using dir = await derived(
    "w1_python_writer",
    'INSERT INTO captured_graph VALUES (0, \'[{"node_type": "circular_buffer_allocate", ' +
      '"params": {"address": "1", "size": "9999999"}}]\');',
  );
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(peakOf(a).total_bytes, 102400);
});

Deno.test("also_at names at most 20 operations and also_at_count counts them all", async () => {
  // Prevents a composition repeated thousands of times growing the answer without bound.
  await using dir = await derived("w1_python_writer", moreOperations(30, () => "ttnn.add"));
  const a = await (await loaded(dir.path)).call("l1_peak", { limit: 100 });
  const last = (a.top_operations as Row[]).find((t) => t.operation_id === 12)!;
  assert.equal(last.also_at_count, 30);
  assert.deepEqual(last.also_at, Array.from({ length: 20 }, (_, i) => 1000 + i));
});

Deno.test("a limit past the cap returns the cap, and composition_count counts them all", async () => {
  // Prevents an unbounded list, or a count of only what was listed.
  const graph = (i: string) =>
    `'[{"node_type": "circular_buffer_allocate", "params": {"address": 1, "size": ' || (${i}) || '}}]'`;
  await using dir = await derived(
    "w1_python_writer",
    "WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 150) " +
      "INSERT INTO operations SELECT 1000 + v, 'ttnn.op_' || v, 0.001 FROM n; " +
      "WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 150) " +
      `INSERT INTO captured_graph SELECT 1000 + v, ${graph("200000 + v")} FROM n;`,
  );
  const r = await loaded(dir.path);
  const a = await r.call("l1_peak", { limit: 1_000_000 });
  assert.equal(a.returned, 100);
  assert.equal((a.top_operations as Row[]).length, 100);
  assert.equal(a.composition_count, 150 + 8);
  assert.equal(peakOf(a).operation_id, 1150);
  assert.equal(peakOf(a).precision, "upper_bound"); // the CB beside the run's survivors
  assert.equal((await r.call("l1_peak", { limit: 3 })).returned, 3);
  const bytes = new TextEncoder().encode(JSON.stringify(a)).length;
  assert.ok(bytes <= 256 * 1024, `${bytes} bytes`);
});

Deno.test("one resident alone is exact", async () => {
  // Prevents precision reading upper_bound where nothing was summed.
  await using dir = await derived(
    "w1_python_writer",
    "DELETE FROM buffers; UPDATE captured_graph SET captured_graph = '[]' WHERE operation_id <> 3; " +
      'UPDATE captured_graph SET captured_graph = \'[{"node_type": "circular_buffer_allocate", ' +
      '"params": {"address": 5, "size": 777}}]\' WHERE operation_id = 3;',
  );
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(peakOf(a).precision, "exact");
  assert.equal(peakOf(a).total_bytes, 777);
});

Deno.test("a run with no L1 at all has no peak, and says so", async () => {
  // Prevents a zero figure or an arbitrary operation reading as a peak.
  await using dir = await derived(
    "w1_python_writer",
    "DELETE FROM buffers WHERE buffer_type <> 0; UPDATE captured_graph SET captured_graph = '[]';",
  );
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(a.peak, null);
  assert.deepEqual(a.top_operations, []);
  assert.equal(a.composition_count, 0);
  assert.match(String(a.caveat), /No operation holds any L1/);
});

Deno.test("buffers on several devices are replayed as one L1, with a caveat", async () => {
  // Prevents an upper bound across devices reading as one device's figure. By hand: device 1
  // alone holds 65,536 more at 1,363,968 after 9, which enters 10 and is reconciled away after.
  const r = await loaded("v2_mesh_two_devices");
  const a = await r.call("l1_peak", { limit: 2 });
  assert.deepEqual(table(a), [
    [10, 167936, 49152, 0, 110592, 8192, []],
    [9, 118784, 0, 0, 110592, 8192, []],
  ]);
  assert.equal(a.reconciled_away_count, 1);
  assert.match(String(a.caveat), /L1 buffers on 2 devices \(0, 1\).*upper bound on any one device/);
});

Deno.test("each rank of a multi-host report is replayed apart and named", async () => {
  // Prevents one rank's figures answering for another. Rank 1 ran twice the batch: its relu
  // output is 16,384 and its linear and softmax outputs 26,624 each.
  const r = await loaded("ranked_two_hosts");
  const zero = await r.call("l1_peak", {});
  assert.equal(peakOf(zero).total_bytes, 102400);
  assert.equal(zero.rank, 0);
  assert.equal(zero.multi_host, true);
  assert.match(String(zero.caveat), /read at rank 0 only/);
  const one = await r.call("l1_peak", { rank: 1 });
  assert.deepEqual(table(one)[0], [9, 135168, 49152, 0, 69632, 16384, [10]]);
  assert.equal(one.rank, 1);
  assert.match(await r.refusal("l1_peak", { rank: 7 }), /no rank 7/);
});

Deno.test("figures from tables without rank on a multi-rank report are refused, never attributed", async () => {
  // Prevents every rank's graphs and buffers being summed and called rank 0's.
  const r = await loaded("mixed_rank_operations_only");
  assert.ok((r.inventory.unanswerable as string[]).includes("l1_peak"));
  assert.match(
    reasonsByTool(r.inventory).l1_peak,
    /`captured_graph`, `buffers`/,
  );
  assert.match(
    await r.refusal("l1_peak", {}),
    /not on `captured_graph`, `buffers`, so their rows span ranks 0, 1 and cannot be attributed to rank 0/,
  );
});

const RANKLESS = (table: string, cols: string) =>
  `CREATE TABLE t AS SELECT ${cols} FROM ${table} WHERE rank = 0; DROP TABLE ${table}; ` +
  `ALTER TABLE t RENAME TO ${table};`;

Deno.test("devices without rank on a multi-rank report withhold the figures", async () => {
  // Prevents reading the replay against another rank's L1 size.
  await using dir = await derived(
    "ranked_two_hosts",
    RANKLESS("devices", "device_id, worker_l1_size, l1_num_banks, l1_bank_size"),
  );
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(a.figures_withheld, true);
  assert.match(String(a.reason), /not on `devices`.*cannot be attributed to rank 0/);
  assert.match(String(a.caveat), /rank 0 only/);
});

Deno.test("tensor tables without rank on a multi-rank report withhold stale, with a caveat", async () => {
  // Prevents another rank's consumers deciding which tensors are stale.
  await using dir = await derived(
    "ranked_two_hosts",
    RANKLESS("input_tensors", "operation_id, input_index, tensor_id"),
  );
  const a = await (await loaded(dir.path)).call("l1_peak", {});
  assert.equal(peakOf(a).stale_tensor_bytes, null);
  assert.equal(peakOf(a).total_bytes, 102400);
  assert.match(String(a.caveat), /stale_tensor_bytes is withheld .*not on `input_tensors`/);
});

Deno.test("a truncated capture without graphs or buffers is not listed as answerable", async () => {
  // Prevents load_report advertising l1_peak where every call would be refused.
  const r = await loaded("w1_truncated_operations_only");
  assert.ok((r.inventory.unanswerable as string[]).includes("l1_peak"));
  assert.match(await r.refusal("l1_peak", {}), /no `captured_graph`, `buffers` tables/);
});

Deno.test("the replay is read once per handle and rank, and refused past the graph bound", async () => {
  // Prevents every call re-reading every graph, and a capture too large to read being loaded.
  using pdb = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  const scope = { multiHost: false, rank: null, ranks: [] };
  await assert.rejects(
    () => l1PeakRun(pdb, scope, 100),
    (e) =>
      e instanceof Refusal && /its captured graphs run past the 100 characters l1_peak will read/
        .test(e.message),
  );
  const first = await l1PeakRun(pdb, scope);
  assert.equal(await l1PeakRun(pdb, scope), first);
});

/** The w1_python_writer fixture opened with a count of the captured-graph rows pulled. */
async function countingFixture() {
  const count = { pulled: 0 };
  const pdb = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`, (db) =>
    new Proxy(db, {
      get(target, key) {
        if (key !== "prepare") {
          return Reflect.get(target, key).bind?.(target) ?? target[key as never];
        }
        return (sql: string) => {
          const statement = target.prepare(sql);
          if (!sql.includes("FROM captured_graph")) return statement;
          return {
            iterate: () => {
              const it = statement.iterate();
              return {
                next: () => (count.pulled++, it.next()),
                return: () => it.return?.() ?? { done: true, value: undefined },
              };
            },
          };
        };
      },
    }));
  return { pdb, count, close: () => pdb[Symbol.dispose]() };
}

Deno.test("a cancelled replay stops, is forgotten, and the next call replays afresh", async () => {
  // Prevents a cancelled l1_peak running on through every graph, or its failure being kept.
  const { pdb, count, close } = await countingFixture();
  try {
    const scope = { multiHost: false, rank: null, ranks: [] };
    const cancel = new AbortController();
    const cancelled = l1PeakRun(pdb, scope, undefined, cancel.signal);
    cancel.abort(new Error("cancelled by the client"));
    await assert.rejects(cancelled, /cancelled by the client/);
    const pulledBeforeStop = count.pulled;
    const kept = [...pdb.memo.keys()].filter((k) => String(k).startsWith("l1-peak"));
    assert.deepEqual(kept, [], "the stopped replay is not kept");
    const fresh = await l1PeakRun(pdb, scope);
    assert.ok(fresh.operationsReplayed > 0);
    assert.ok(
      pulledBeforeStop < count.pulled - pulledBeforeStop,
      `the cancelled replay stopped early (${pulledBeforeStop} graph rows, a whole one ${
        count.pulled - pulledBeforeStop
      })`,
    );
  } finally {
    close();
  }
});

Deno.test("a replay refused past the graph bound is refused again without reading the graphs", async () => {
  // Prevents every call on a too-large capture reading up to a gigabyte of graphs to refuse.
  const { pdb, count, close } = await countingFixture();
  try {
    const scope = { multiHost: false, rank: null, ranks: [] };
    await assert.rejects(() => l1PeakRun(pdb, scope, 100), /run past the 100 characters/);
    const pulled = count.pulled;
    assert.ok(pulled > 0);
    await assert.rejects(() => l1PeakRun(pdb, scope, 100), /run past the 100 characters/);
    assert.equal(count.pulled, pulled, "no graph row read the second time");
  } finally {
    close();
  }
});
