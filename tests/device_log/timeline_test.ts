/**
 * device_timeline, core_utilisation and core_states on captures whose answers are known in
 * closed form (scripts/_timeline_capture.ts writes the CSV and log from the same numbers).
 * Clocks are 1000 MHz, so µs = cycles ÷ 1000.
 */
import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { noteTexts } from "../_support/notes.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";
import {
  timelineCapture,
  type TimelineOp,
  type TimelineOptions,
  type TimelineSignpost,
} from "../../scripts/_timeline_capture.ts";
import { round3 } from "../../src/kit/rounding.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { editCsv } from "../_support/csv_edit.ts";

type Answer = Record<string, unknown>;
type Item = TimelineOp | TimelineSignpost;

async function loaded(items: Item[], options: TimelineOptions = {}, withLog = true) {
  const dir = await tempDir();
  const { csv, log } = timelineCapture(items, options);
  const files: Record<string, string> = { "ops_perf_results_t.csv": csv };
  if (withLog) files["profile_log_device.csv"] = log;
  await writeFiles(dir.path, files);
  const s = session();
  const load = await s.call("load_report", { performance_path: dir.path });
  return { dir, s, handle: load.handle as string, load };
}

/** Three operations; A's and B's firmware windows overlap by 50 cycles on core (1,1). */
const THREE: Item[] = [
  {
    code: "LayerNorm",
    call: 1,
    fw: [0, 1000],
    cores: [
      { x: 1, y: 1, kernels: { BRISC: [100, 900], NCRISC: [100, 500], TRISC_1: [200, 800] } },
      { x: 2, y: 1, kernels: { TRISC_1: [150, 950] } },
    ],
  },
  {
    code: "Softmax",
    call: 2,
    fw: [950, 2000],
    cores: [{ x: 1, y: 1, kernels: { BRISC: [1100, 1900], TRISC_1: [1200, 1800] } }],
  },
  {
    code: "LayerNorm",
    call: 3,
    fw: [2000, 3000],
    cores: [
      { x: 1, y: 1, kernels: { TRISC_1: [2300, 2900] } },
      { x: 2, y: 1, kernels: { BRISC: [2300, 2950] } },
    ],
  },
];

Deno.test("op intervals and gaps add up to busy time exactly, while firmware intervals overcount", async () => {
  // Prevents summing firmware intervals (the 1.87× overcount) or double counting overlaps.
  const { dir, s, handle } = await loaded(THREE, { idleCores: [{ x: 3, y: 1 }] });
  await using _ = dir;
  const a = await s.call("device_timeline", { handle });
  assert.deepEqual([a.busy_cycles, a.busy_us], [2900, 2.9]);
  assert.deepEqual([a.op_interval_sum_cycles, a.op_interval_sum_us], [2500, 2.5]);
  assert.deepEqual([a.gap_sum_cycles, a.gap_sum_us], [400, 0.4]);
  assert.deepEqual([a.residual_cycles, a.residual_us], [0, 0]);
  assert.equal(a.overlapping_op_pairs, 0);
  const { reading, ...firmware } = a.firmware as Answer;
  // The overlap here makes the firmware sum exceed busy time, so the reading says it overstates.
  assert.match(String(reading), /1 pair of firmware intervals overlap .*overstates busy time/);
  assert.deepEqual(firmware, {
    interval_sum_cycles: 3050,
    interval_sum_us: 3.05,
    sum_to_busy_ratio: round3(3050 / 2900),
    overlapping_op_pairs: 1,
    overlap_cycles: 50,
    overlap_us: 0.05,
    // Core (1,1) ran both A and B.
    overlapping_pairs_sharing_a_core: 1,
    overlap_sharing_a_core_cycles: 50,
    overlap_sharing_a_core_us: 0.05,
  });
  const gaps = a.gaps as Answer;
  assert.equal(gaps.count, 2);
  assert.equal(gaps.median_cycles, 200);
  assert.deepEqual((gaps.largest as Answer[])[0], {
    cycles: 300,
    us: 0.3,
    before: { perf_id: 3, op_code: "Softmax" },
    after: { perf_id: 4, op_code: "LayerNorm" },
  });
  assert.deepEqual(
    (a.by_op_code as Answer[]).map((e) => [e.op_code, e.count, e.interval_us]),
    [["LayerNorm", 2, 1.6], ["Softmax", 1, 0.9]],
  );
  assert.equal(a.caveat, undefined);
});

Deno.test("intervals that overlap are counted as pairs and leave a negative residual", async () => {
  // Prevents an overlap hiding inside busy time: the definition says 0 pairs, so say when not.
  const { dir, s, handle } = await loaded([
    { code: "A", call: 1, fw: [0, 1000], cores: [{ x: 1, y: 1, kernels: { BRISC: [100, 900] } }] },
    {
      code: "B",
      call: 2,
      fw: [950, 2000],
      cores: [{ x: 2, y: 1, kernels: { BRISC: [980, 1500] } }],
    },
  ]);
  await using _ = dir;
  const a = await s.call("device_timeline", { handle });
  assert.equal(a.overlapping_op_pairs, 1);
  assert.equal(a.residual_cycles, -20);
  assert.equal(a.busy_cycles, 1900);
  assert.match(a.caveat as string, /1 pairs of op intervals overlap \(0\.02 µs\)/);
});

Deno.test("host wait is wall time minus busy time, and a wall time shorter than busy is refused", async () => {
  // Prevents a negative host wait (a wall time from another window or run) passing as a figure.
  const { dir, s, handle } = await loaded(THREE);
  await using _ = dir;
  const a = await s.call("device_timeline", { handle, wall_time_us: 5 });
  assert.equal(a.host_wait_us, 2.1);
  assert.match(noteTexts(a)["device_timeline.host_wait"], /subtraction/);
  const why = await s.refusal("device_timeline", { handle, wall_time_us: 2 });
  assert.match(why, /shorter than the device's busy time 2\.9 µs/);
});

Deno.test("trace replays give per-iteration busy times with their spread", async () => {
  // Prevents replays of one trace being pooled into one busy time.
  const items: Item[] = [];
  [1000, 1200, 1100].forEach((busy, r) => {
    const t = r * 10_000;
    items.push(
      {
        code: "A",
        call: 1,
        replay: r + 1,
        fw: [t, t + 500],
        cores: [{ x: 1, y: 1, kernels: { BRISC: [t, t + 400] } }],
      },
      {
        code: "B",
        call: 2,
        replay: r + 1,
        fw: [t + 600, t + busy],
        cores: [{ x: 1, y: 1, kernels: { BRISC: [t + 700, t + busy - 10] } }],
      },
    );
  });
  const { dir, s, handle } = await loaded(items);
  await using _ = dir;
  const it = (await s.call("device_timeline", { handle })).iterations as Answer;
  assert.equal(it.by, "trace_replay");
  assert.equal(it.count, 3);
  assert.deepEqual(it.busy_us, { min: 1, median: 1.1, max: 1.2, spread_percent: 18.2 });
  assert.deepEqual((it.list as Answer[]).map((e) => e.replay_session), ["1", "2", "3"]);
});

Deno.test("a signpost repeated in the window splits it into iterations", async () => {
  // Prevents a per-token window being reported only as one total.
  const op = (call: number, t: number, len: number): TimelineOp => ({
    code: "A",
    call,
    fw: [t, t + len],
    cores: [{ x: 1, y: 1, kernels: { BRISC: [t, t + len] } }],
  });
  const { dir, s, handle } = await loaded([
    op(1, 0, 100),
    { signpost: "token" },
    op(2, 1000, 300),
    op(3, 1400, 100),
    { signpost: "token" },
    op(4, 3000, 700),
  ]);
  await using _ = dir;
  const it = (await s.call("device_timeline", { handle })).iterations as Answer;
  assert.equal(it.by, "signpost");
  assert.deepEqual(
    (it.list as Answer[]).map((e) => [e.occurrence, e.operations, e.busy_us]),
    [["1", 2, 0.5], ["2", 1, 0.7]],
  );
  assert.equal(it.operations_outside, 1);
});

/** One 20,000-cycle operation with cores at every utilisation class and its boundaries. */
const CLASSES: Item[] = [{
  code: "LayerNorm",
  call: 1,
  fw: [0, 20_000],
  cores: [
    { x: 1, y: 1, kernels: { BRISC: [0, 20_000] } }, // 100 %
    { x: 2, y: 1, kernels: { NCRISC: [0, 19_000] } }, // 95 %: saturated
    { x: 3, y: 1, kernels: { TRISC_0: [100, 160] } }, // a 60-cycle kernel: near_zero
    { x: 4, y: 1, kernels: { BRISC: [0, 10_000] } }, // 50 %
    { x: 1, y: 2, kernels: { TRISC_1: [1000, 1099] } }, // 0.495 %: near_zero
    { x: 2, y: 2, kernels: { BRISC: [0, 100] } }, // 0.5 %: active
  ],
}];

Deno.test("cores fall into idle, near_zero, active and saturated at the talk's boundaries", async () => {
  // Prevents a 60-cycle kernel counting as idle, or 95 % as merely active.
  const { dir, s, handle } = await loaded(CLASSES, { idleCores: [{ x: 5, y: 1 }] });
  await using _ = dir;
  const a = await s.call("core_utilisation", { handle, perf_id: 2 });
  const classes = a.classes as Record<string, Answer>;
  assert.deepEqual(
    Object.fromEntries(Object.entries(classes).map(([k, v]) => [k, v.cores])),
    { idle: 1, near_zero: 2, active: 2, saturated: 2, unknown: 0 },
  );
  assert.deepEqual(classes.idle.examples, [{ x: 5, y: 1, percent: 0 }]);
  assert.deepEqual((classes.near_zero.examples as Answer[]).map((e) => [e.x, e.y]), [[3, 1], [
    1,
    2,
  ]]);
  assert.equal(a.cores_in_log, 7);
  const busy = 20_000 + 19_000 + 60 + 10_000 + 99 + 100;
  assert.equal(a.mean_utilisation_percent, round3((100 * busy) / 7 / 20_000));
  const bins = a.histogram as Answer[];
  assert.deepEqual(bins.filter((b) => b.cores !== 0).map((b) => [b.from, b.cores]), [
    [0, 1],
    [50, 1],
    [95, 2],
  ]);
  assert.deepEqual(a.grid, {
    x_from: 1,
    x_to: 5,
    y_from: 1,
    y_to: 2,
    rows: [[100, 95, 0.3, 50, 0], [0.495, 0.5, null, null, null]],
  });
});

Deno.test("a core's busy time is the union of its RISCs' kernels, over the op code's instances", async () => {
  // Prevents overlapping RISC kernels counting twice, or firmware time counting as busy.
  const { dir, s, handle } = await loaded(THREE, { idleCores: [{ x: 3, y: 1 }] });
  await using _ = dir;
  const mm = await s.call("core_utilisation", { handle, op_code: "LayerNorm" });
  // LayerNorm intervals: A 900 + C 700. Core (1,1): 800 + 600; core (2,1): 800 + 650.
  assert.deepEqual([mm.interval_cycles, mm.interval_us], [1600, 1.6]);
  assert.deepEqual((mm.grid as Answer).rows, [[87.5, 90.6, 0]]); // 90.625 to 3 significant digits
  const whole = await s.call("core_utilisation", { handle });
  assert.equal(whole.interval_is, "device busy time");
  assert.equal(whole.mean_utilisation_percent, round3((100 * (2200 + 1450)) / 3 / 2900));
});

/** Three LayerNorm instances; in the first, two computing cores and one core without math. */
const STATES: Item[] = [
  {
    code: "LayerNorm",
    call: 1,
    fw: [0, 1000],
    cores: [
      { x: 1, y: 1, kernels: { BRISC: [100, 900], NCRISC: [100, 300], TRISC_1: [200, 700] } },
      { x: 2, y: 1, kernels: { NCRISC: [150, 400], TRISC_1: [300, 800], BRISC: [250, 850] } },
      { x: 3, y: 1, kernels: { BRISC: [120, 130] } },
    ],
  },
  {
    code: "LayerNorm",
    call: 2,
    fw: [2000, 2500],
    cores: [{ x: 1, y: 1, kernels: { TRISC_1: [2000, 2500] } }],
  },
  {
    code: "LayerNorm",
    call: 3,
    fw: [3000, 3800],
    cores: [{ x: 1, y: 1, kernels: { TRISC_1: [3000, 3800] } }],
  },
];

Deno.test("an operation's interval divides into the five core states, adding to 100 %", async () => {
  // Prevents states that leak outside the interval or count cores that never computed.
  const { dir, s, handle } = await loaded(STATES);
  await using _ = dir;
  const one = await s.call("core_states", { handle, perf_id: 2 });
  const cycles = (st: Answer) => Object.values(st).map((v) => (v as Answer).core_cycles);
  // Core (1,1): 0, 100, 500, 200, 100; core (2,1): 50, 150, 500, 50, 150; (3,1) has no math.
  assert.deepEqual(cycles(one.states as Answer), [50, 250, 1000, 250, 250]);
  assert.deepEqual(
    Object.values(one.states as Answer).map((v) => (v as Answer).share_percent),
    [2.778, 13.889, 55.556, 13.889, 13.889],
  );
  const all = await s.call("core_states", { handle, op_code: "LayerNorm" });
  assert.equal(all.instances, 3);
  // Intervals 900, 500, 800: the median is 800, the third instance (CSV line 4).
  assert.equal((all.median_instance as Answer).perf_id, 4);
  assert.deepEqual(cycles(all.states as Answer), [50, 250, 2300, 250, 250]);
});

Deno.test("core_states refuses an operation with no math kernel, and needs perf_id or op_code", async () => {
  // Prevents a compute-phase split invented for a data-movement-only operation.
  const { dir, s, handle } = await loaded([
    { code: "Copy", call: 1, fw: [0, 100], cores: [{ x: 1, y: 1, kernels: { BRISC: [10, 90] } }] },
  ]);
  await using _ = dir;
  assert.match(await s.refusal("core_states", { handle, perf_id: 2 }), /ran a math kernel/);
  assert.match(await s.refusal("core_states", { handle }), /exactly one of perf_id and op_code/);
  assert.match(
    await s.refusal("core_utilisation", { handle, perf_id: 2, op_code: "Copy" }),
    /not both/,
  );
  assert.match(
    await s.refusal("core_utilisation", { handle, op_code: "Nope" }),
    /op codes there: Copy/,
  );
  assert.match(
    await s.refusal("core_utilisation", { handle, perf_id: 9 }),
    /no device 0 operation has perf_id 9/,
  );
});

Deno.test("one device's clock at a time: the lowest by default, others named, unknown refused", async () => {
  // Prevents cycle counters of different devices being compared on one timeline.
  const op = (device: number, t: number): TimelineOp => ({
    code: "A",
    call: 1,
    device,
    fw: [t, t + 100],
    cores: [{ x: 1, y: 1, kernels: { BRISC: [t + 10, t + 90] } }],
  });
  const { dir, s, handle } = await loaded([op(0, 0), op(1, 5_000_000)]);
  await using _ = dir;
  const a = await s.call("device_timeline", { handle });
  assert.equal(a.device, 0);
  assert.match(a.caveat as string, /also ran on devices 1/);
  assert.equal(
    (await s.call("device_timeline", { handle, device: 1 })).busy_cycles,
    90,
  );
  assert.match(await s.refusal("device_timeline", { handle, device: 5 }), /devices: 0, 1/);
});

Deno.test("without a device log the timeline tools are unanswerable, and say why", async () => {
  // Prevents busy time being approximated from CSV firmware cycles alone, silently.
  const { dir, s, handle, load } = await loaded(THREE, {}, false);
  await using _ = dir;
  const reasons = reasonsByTool(load);
  for (const tool of ["device_timeline", "core_utilisation", "core_states"]) {
    assert.match(reasons[tool], /no profile_log_device\.csv/);
    const args = tool === "device_timeline" ? { handle } : { handle, op_code: "LayerNorm" };
    assert.match(await s.refusal(tool, args), /no profile_log_device\.csv/);
  }
});

Deno.test("signpost ranges resolve as top_ops resolves them, refusals and projection alike", async () => {
  // Prevents the timeline tools reading a different window than top_ops for the same range.
  const { dir, s, handle } = await loaded([
    { code: "A", call: 1, fw: [0, 100], cores: [{ x: 1, y: 1, kernels: { BRISC: [10, 90] } }] },
    { signpost: "start" },
    { code: "B", call: 2, fw: [200, 400], cores: [{ x: 1, y: 1, kernels: { BRISC: [210, 390] } }] },
    { signpost: "stop" },
    { code: "C", call: 3, fw: [500, 600], cores: [{ x: 1, y: 1, kernels: { BRISC: [510, 590] } }] },
  ]);
  await using _ = dir;
  const range = { start_signpost: "start", end_signpost: "stop" };
  const a = await s.call("device_timeline", { handle, ...range });
  assert.equal(a.operations, 1);
  assert.deepEqual(a.projection, (await s.call("top_ops", { handle, ...range })).projection);
  const u = await s.call("core_utilisation", { handle, ...range });
  assert.deepEqual([u.interval_cycles, u.interval_us], [190, 0.19]);
  const bad = { handle, start_signpost: "nowhere" };
  assert.equal(await s.refusal("device_timeline", bad), await s.refusal("top_ops", bad));
  assert.equal(await s.refusal("core_utilisation", bad), await s.refusal("top_ops", bad));
});

Deno.test("a range on a capture without signposts is read whole and says so", async () => {
  // Prevents a silently ignored range looking like an honoured one.
  const { dir, s, handle } = await loaded(THREE);
  await using _ = dir;
  const a = await s.call("device_timeline", { handle, start_signpost: "x" });
  assert.equal((a.projection as Answer).signpost_range_ignored, true);
  assert.equal(a.operations, 3);
});

Deno.test("every timeline total carries the sub-device caveat on a partitioned run", async () => {
  // Prevents busy time over concurrently running sub-devices being read as serial time.
  const items = THREE.map((op, i) => ({ ...(op as TimelineOp), subDevice: i % 2 }));
  const { dir, s, handle } = await loaded(items);
  await using _ = dir;
  for (
    const [tool, args] of [
      ["device_timeline", {}],
      ["core_utilisation", {}],
      ["core_states", { op_code: "LayerNorm" }],
    ] as const
  ) {
    const a = await s.call(tool, { handle, ...args });
    assert.match(a.caveat as string, /span 2 sub-devices/, tool);
  }
});

Deno.test("operations whose log lacks zones for some of their cores are named in a caveat", async () => {
  // Prevents a profiler that dropped cores passing for cores that sat idle.
  const { dir, s, handle } = await loaded([
    {
      code: "A",
      call: 1,
      fw: [0, 100],
      coreCount: 4,
      cores: [{ x: 1, y: 1, kernels: { BRISC: [10, 90] } }],
    },
    { code: "B", call: 2, fw: [200, 300], cores: [{ x: 1, y: 1, kernels: { BRISC: [210, 290] } }] },
  ]);
  await using _ = dir;
  const a = await s.call("core_utilisation", { handle });
  assert.match(
    a.caveat as string,
    /1 device 0 operations recorded kernel zones on fewer cores than their CORE COUNT \(3 core-instances missing; e\.g\. perf_id 2\)/,
  );
  const fine = await loaded(THREE);
  await using __ = fine.dir;
  const whole = await fine.s.call("core_utilisation", { handle: fine.handle });
  assert.doesNotMatch(String(whole.caveat ?? ""), /fewer cores/);
});

Deno.test("load_report lists lower_bounds only when the CSV has shape and dtype columns", async () => {
  // Prevents bounds of 0 for every op being listed as an answer when no shape was recorded.
  await using dir = await tempDir();
  const { csv, log } = timelineCapture(THREE);
  const shapes = parseCsvTable(csv, "t.csv").header.filter((h) => h.includes("_PAD[LOGICAL]"));
  await writeFiles(dir.path, {
    "ops_perf_results_t.csv": editCsv(() => {}, { text: csv, drop: shapes }),
    "profile_log_device.csv": log,
  });
  const load = await session().call("load_report", { performance_path: dir.path });
  assert.ok(!(load.answerable as string[]).includes("lower_bounds"));
  assert.match(
    reasonsByTool(load).lower_bounds,
    /no tensor shape columns/,
  );
  for (const tool of ["device_timeline", "core_utilisation", "core_states"]) {
    assert.ok((load.answerable as string[]).includes(tool), tool);
  }
});

Deno.test("a log with firmware zones only leaves the timeline tools unanswerable, and says why", async () => {
  // Prevents load_report promising op intervals a capture without kernel zones cannot give.
  const { dir, s, handle, load } = await loaded([
    { code: "A", call: 1, fw: [0, 100], cores: [{ x: 1, y: 1, kernels: {} }] },
  ]);
  await using _ = dir;
  const reasons = reasonsByTool(load);
  for (const tool of ["device_timeline", "core_utilisation", "core_states"]) {
    assert.match(reasons[tool], /holds no kernel zone/, tool);
  }
  assert.ok((load.answerable as string[]).includes("core_spread"), "core_spread says in_log");
  assert.match(await s.refusal("device_timeline", { handle }), /holds no kernel zone/);
});

Deno.test("a kernel zone name split across the probe's reads is still found", async () => {
  // Prevents a log being called kernel-less because '-KERNEL' straddled a read boundary.
  const { probeDeviceLog } = await import("../../src/device_log/probe.ts");
  await using dir = await tempDir();
  const { log } = timelineCapture([THREE[0]]);
  // Only the first kernel row, so the name occurs once, three bytes before a 1 MiB boundary.
  const lines = log.split("\n");
  const k = lines.findIndex((l) => l.includes("-KERNEL"));
  const kept = [...lines.slice(0, k + 1), ""];
  const pad = (1 << 20) - 3 - kept.join("\n").indexOf("-KERNEL");
  kept[0] += " ".repeat(pad);
  const text = kept.join("\n");
  assert.equal(text.indexOf("-KERNEL"), (1 << 20) - 3);
  assert.equal(text.indexOf("-KERNEL", (1 << 20) - 2), -1, "the only occurrence");
  await writeFiles(dir.path, { "profile_log_device.csv": text });
  const probe = await probeDeviceLog(`${dir.path}/profile_log_device.csv`);
  assert.equal(probe?.hasKernelZones, true);
});

Deno.test("the device-log answers stay under 256 KB with hundreds of op codes and iterations", async () => {
  // Prevents a per-op-code, per-iteration or per-core list growing with the capture.
  const items: Item[] = [];
  for (let k = 0; k < 150; k++) {
    items.push({ signpost: "token" });
    for (const j of [0, 1]) {
      const t = k * 10_000 + j * 4000;
      items.push({
        code: `Op${k}_${j}`,
        call: 2 * k + j + 1,
        fw: [t, t + 3000],
        cores: Array.from({ length: 16 }, (_, c) => ({
          x: 1 + (c % 8),
          y: 1 + (c >> 3),
          kernels: { BRISC: [t + 10, t + 2000 + c] as [number, number] },
        })),
      });
    }
  }
  const { dir, s, handle } = await loaded(items);
  await using _ = dir;
  const calls: [string, Answer][] = [
    ["device_timeline", { handle, limit: 1_000_000 }],
    ["core_utilisation", { handle }],
    ["core_states", { handle, op_code: "Op0_0" }],
    ["zone_timings", { handle, limit: 1_000_000 }],
    ["core_spread", { handle, limit: 1_000_000 }],
  ];
  for (const [tool, args] of calls) {
    const bytes = new TextEncoder().encode(JSON.stringify(
      await s.call(tool, args).catch(
        async () => ({ refused: await s.refusal(tool, args) }),
      ),
    )).length;
    assert.ok(bytes <= 256 * 1024, `${tool}: ${bytes} bytes`);
  }
  const timeline = await s.call("device_timeline", { handle, limit: 1_000_000 });
  assert.equal((timeline.by_op_code as Answer[]).length, 100, "the cap");
  assert.equal(timeline.op_code_count, 300);
  assert.equal(((timeline.iterations as Answer).list as Answer[]).length, 100);
  assert.equal((timeline.iterations as Answer).count, 150);
});

Deno.test("dispatch and ethernet cores are counted apart from the Tensix cores the mean is over", async () => {
  // Prevents a command-queue or ethernet core diluting the mean utilisation as an idle worker.
  const { csv, log } = timelineCapture(THREE);
  const extra = [
    "0, 1, 10, BRISC, 1, 10000000000000, 0, 1, , , CQ-DISPATCH, ZONE_START, 1, cq.cc, ",
    "0, 1, 10, BRISC, 1, 10000000000100, 0, 1, , , CQ-DISPATCH, ZONE_END, 1, cq.cc, ",
    "0, 9, 0, ERISC, 1, 10000000000000, 0, 1, , , ERISC-FW, ZONE_START, 1, e.cc, ",
    "0, 9, 0, ERISC, 1, 10000000000900, 0, 1, , , ERISC-FW, ZONE_END, 1, e.cc, ",
  ];
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "ops_perf_results_t.csv": csv,
    "profile_log_device.csv": log + extra.join("\n") + "\n",
  });
  const s = session();
  const { handle } = await s.call("load_report", { performance_path: dir.path });
  const a = await s.call("core_utilisation", { handle });
  assert.equal(a.cores_in_log, 2);
  assert.deepEqual(a.left_out_of_cores_in_log, { dispatch_cores: 1, ethernet_cores: 1 });
  assert.equal(a.mean_utilisation_percent, round3((100 * (2200 + 1450)) / 2 / 2900));
  assert.equal((a.classes as Record<string, Answer>).idle.cores, 0);
});

Deno.test("rows without firmware cycles, and operations without kernel zones, are left out by name", async () => {
  // Prevents an operation that cannot be placed on the clock vanishing from the sums unsaid.
  const items: Item[] = [
    ...THREE,
    { code: "Lost", call: 4, fw: [4000, 4100], cores: [{ x: 1, y: 1, kernels: {} }] },
    {
      code: "NoCycles",
      call: 5,
      fw: [5000, 5100],
      cores: [{ x: 1, y: 1, kernels: { BRISC: [5010, 5090] } }],
    },
  ];
  const { csv, log } = timelineCapture(items);
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "ops_perf_results_t.csv": editCsv((row) => {
      if (row["OP CODE"] === "NoCycles") {
        row["DEVICE FW START CYCLE"] = "";
        row["DEVICE FW END CYCLE"] = "";
      }
    }, { text: csv }),
    "profile_log_device.csv": log,
  });
  const s = session();
  const { handle } = await s.call("load_report", { performance_path: dir.path });
  const a = await s.call("device_timeline", { handle });
  assert.equal(a.operations, 3, "only the three placed operations");
  assert.equal(a.busy_cycles, 2900);
  assert.match(String(a.caveat), /1 device 0 rows have no DEVICE FW START\/END CYCLE/);
  assert.match(String(a.caveat), /1 device 0 operations have no kernel zone in the device log/);
});
