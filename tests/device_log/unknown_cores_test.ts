/**
 * Cores whose kernel time the log cannot tell — a kernel zone that starts and never ends (or
 * ends without a start) inside the operation's window, or a record that stopped mid-kernel in
 * an earlier operation — on captures whose answers are known in closed form
 * (scripts/_timeline_capture.ts). Clocks are 1000 MHz, so µs = cycles ÷ 1000.
 */
import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";
import { noteTexts } from "../_support/notes.ts";
import { timelineCapture, type TimelineOp } from "../../scripts/_timeline_capture.ts";

type Answer = Record<string, unknown>;

async function loaded(items: TimelineOp[]) {
  const dir = await tempDir();
  const { csv, log } = timelineCapture(items);
  await writeFiles(dir.path, { "ops_perf_results_t.csv": csv, "profile_log_device.csv": log });
  const s = session();
  const load = await s.call("load_report", { performance_path: dir.path });
  return { dir, s, handle: load.handle as string };
}

/**
 * A (perf_id 2): core (1,1)'s BRISC kernel starts at 100 — the op's first kernel start — and
 * never ends; (2,1) and (3,1) pair. B (perf_id 3): (1,1) writes nothing more.
 */
const CUT: TimelineOp[] = [
  {
    code: "Transpose",
    call: 1,
    fw: [0, 1000],
    cores: [
      { x: 1, y: 1, kernels: { BRISC: [100, null] } },
      { x: 2, y: 1, kernels: { BRISC: [150, 850], TRISC_1: [200, 800] } },
      { x: 3, y: 1, kernels: { TRISC_1: [300, 700] } },
    ],
  },
  {
    code: "LayerNorm",
    call: 2,
    fw: [1200, 2200],
    cores: [
      { x: 2, y: 1, kernels: { TRISC_1: [1300, 2100] } },
      { x: 3, y: 1, kernels: { TRISC_1: [1300, 1900] } },
    ],
  },
];

/** Every kernel zone starts and none ends. */
const ALL_UNPAIRED: TimelineOp[] = [{
  code: "LayerNorm",
  call: 1,
  fw: [0, 1000],
  cores: [
    { x: 1, y: 1, kernels: { TRISC_1: [100, null] } },
    { x: 2, y: 1, kernels: { TRISC_1: [200, null] } },
  ],
}];

Deno.test("a kernel that starts and never ends leaves its core's span unknown, not 0 µs", async () => {
  // Prevents a lost kernel end reading as a 0 µs span, the slowest core, or part of the median.
  const { dir, s, handle } = await loaded(CUT);
  await using _ = dir;
  const [a] = (await s.call("core_spread", { handle, perf_id: 2 })).operations as Answer[];
  assert.equal(a.cores_recorded, 3);
  assert.equal(a.cores_unpaired, 1);
  assert.equal(a.cores_record_stopped, 0);
  // (2,1) spans 150→850, (3,1) 300→700; (1,1) is in no figure.
  assert.deepEqual(a.span_us, { min: 0.4, median: 0.55, mean: 0.55, max: 0.7 });
  assert.equal(a.imbalance, 1.273);
  assert.deepEqual(a.slowest_cores, [
    { core_x: 2, core_y: 1, span_us: 0.7 },
    { core_x: 3, core_y: 1, span_us: 0.4 },
  ]);
  assert.deepEqual(a.unknown_cores, [{ core_x: 1, core_y: 1, span_us: null, why: "unpaired" }]);
  assert.deepEqual((a.per_risc as Answer[]).map((r) => [r.risc, r.cores]), [
    ["BRISC", 1],
    ["TRISC_1", 2],
  ]);
  assert.match(String(a.caveat), /1 core has a kernel zone that starts without an end/);
  assert.match(String(a.caveat), /its span is unknown, not 0.*cover the other 2 cores/);
});

Deno.test("a core whose record stopped mid-kernel is unknown in the operations after, not idle", async () => {
  // Prevents a core whose buffer filled reading as idle in every later operation.
  const { dir, s, handle } = await loaded(CUT);
  await using _ = dir;
  const [b] = (await s.call("core_spread", { handle, perf_id: 3 })).operations as Answer[];
  assert.equal(b.cores_recorded, 2);
  assert.equal(b.cores_record_stopped, 1);
  assert.deepEqual(b.unknown_cores, [
    { core_x: 1, core_y: 1, span_us: null, why: "record_stopped" },
  ]);
  assert.match(String(b.caveat), /record had stopped mid-kernel in an earlier operation/);
  const u = await s.call("core_utilisation", { handle, perf_id: 3 });
  const classes = u.classes as Record<string, Answer>;
  assert.equal(classes.idle.cores, 0);
  assert.equal(classes.unknown.cores, 1);
  assert.deepEqual(classes.unknown.examples, [
    { x: 1, y: 1, percent: null, why: "record_stopped", perf_id: 3, operations: 1 },
  ]);
  const states = await s.call("core_states", { handle, perf_id: 3 });
  assert.deepEqual(states.unknown_cores, {
    core_instances: 1,
    unpaired: 0,
    record_stopped: 1,
    examples: [{ perf_id: 3, core_x: 1, core_y: 1, why: "record_stopped" }],
  });
});

Deno.test("core_utilisation classes an unpaired core unknown, and the mean says whom it covers", async () => {
  // Prevents a core with a lost kernel end counted idle beside the interval its start placed.
  const { dir, s, handle } = await loaded(CUT);
  await using _ = dir;
  const a = await s.call("core_utilisation", { handle, perf_id: 2 });
  // The interval runs from (1,1)'s unpaired start at 100 to the firmware end at 1000.
  assert.equal(a.interval_cycles, 900);
  const classes = a.classes as Record<string, Answer>;
  assert.deepEqual(
    Object.fromEntries(Object.entries(classes).map(([k, v]) => [k, v.cores])),
    { idle: 0, near_zero: 0, active: 2, saturated: 0, unknown: 1 },
  );
  assert.equal((classes.unknown.examples as Answer[])[0].why, "unpaired");
  assert.equal(a.mean_utilisation_percent, 61.111); // (700 + 400) ÷ 2 ÷ 900
  assert.deepEqual(a.mean_utilisation_over, { cores: 2, unknown_left_out: 1 });
  assert.deepEqual((a.grid as Answer).rows, [["unknown", 77.8, 44.4]]);
  assert.match(String(a.caveat), /1 of the 3 cores is unknown/);
  assert.match(String(a.caveat), /1 operation interval starts at a kernel zone that did not pair/);
});

Deno.test("an interval that starts at an unpaired kernel zone is counted and named", async () => {
  // Prevents an op interval bounded by a zone the log never closed passing as fully measured.
  const { dir, s, handle } = await loaded(CUT);
  await using _ = dir;
  const t = await s.call("device_timeline", { handle });
  assert.equal(t.op_intervals_from_unpaired_start, 1);
  assert.match(String(t.caveat), /kernel zone that did not pair inside its window \(perf_id 2\)/);
  const states = await s.call("core_states", { handle, perf_id: 2 });
  assert.equal((states.unknown_cores as Answer).unpaired, 1);
  assert.equal(states.computing_core_intervals, 2);
  assert.match(String(states.caveat), /perf_id 2/);
});

Deno.test("a log whose zones are all unpaired answers every core unknown, never zeros or an error", async () => {
  // Prevents a log of lost ends failing the call, or answering 0 µs spans and idle cores.
  const { dir, s, handle } = await loaded(ALL_UNPAIRED);
  await using _ = dir;
  const [a] = (await s.call("core_spread", { handle })).operations as Answer[];
  assert.equal(a.span_us, null);
  assert.equal(a.imbalance, null);
  assert.equal(a.cores_unpaired, 2);
  assert.deepEqual(a.slowest_cores, []);
  assert.deepEqual(a.per_risc, []);
  assert.match(String(a.caveat), /No core's span is known/);
  const u = await s.call("core_utilisation", { handle });
  assert.equal(u.mean_utilisation_percent, null);
  assert.equal((u.classes as Record<string, Answer>).unknown.cores, 2);
  assert.equal((u.classes as Record<string, Answer>).idle.cores, 0);
  assert.match(String(u.caveat), /Every one of the 2 cores is unknown/);
  const st = await s.call("core_states", { handle, perf_id: 2 });
  assert.equal(st.states, null);
  assert.equal(st.median_instance, null);
  assert.match(String(st.caveat), /so no state is measured/);
  const t = await s.call("device_timeline", { handle });
  assert.equal(t.op_intervals_from_unpaired_start, 1);
});

Deno.test("device_timeline names its basis and reconciles its sums with tt-perf-report's", async () => {
  // Prevents two right but different totals standing side by side unexplained, and a note
  // calling firmware intervals an overstatement beside a ratio below 1.
  const { dir, s, handle } = await loaded([
    {
      code: "A",
      call: 1,
      fw: [0, 1000],
      cores: [{ x: 1, y: 1, kernels: { TRISC_1: [100, 900] } }],
    },
    {
      code: "B",
      call: 2,
      fw: [1500, 2500],
      cores: [{ x: 1, y: 1, kernels: { TRISC_1: [1600, 2300] } }],
    },
  ]);
  await using _ = dir;
  const t = await s.call("device_timeline", { handle });
  assert.equal(t.basis, "op_interval");
  assert.match(noteTexts(t)["basis.op_interval"], /DEVICE FW END CYCLE.*DEVICE KERNEL DURATION/);
  // Intervals 100→1000 and 1600→2500; kernel durations 800 and 700; tails 100 and 200.
  assert.equal(t.op_interval_sum_us, 1.8);
  const tt = t.tt_perf_report as Answer;
  assert.equal(tt.basis, "device_kernel_duration");
  assert.equal(tt.rows, 2);
  assert.equal(tt.device_time_sum_us, 1.5);
  assert.equal(tt.firmware_tail_sum_us, 0.3);
  assert.match(String(tt.why_they_differ), /by 0\.3 µs, exactly the firmware tails/);
  // The CSV's latencies are 0 while the log has a 0.6 µs gap: they cannot be this log's.
  assert.equal(tt.op_to_op_gap_sum_us, 0);
  assert.match(String(tt.why_they_differ), /does not follow this log/);
  const fw = t.firmware as Answer;
  assert.equal(fw.sum_to_busy_ratio, 0.833);
  assert.doesNotMatch(String(fw.reading), /overstate/);
  assert.match(String(fw.reading), /No two firmware intervals overlap.*below busy time/);
  assert.doesNotMatch(noteTexts(t)["device_timeline.intervals"], /overstate/);
});
