/**
 * The levers an agent reaches through the SDK client on the shared captures: one device's own
 * rows and the spread the merge hides, one pass of a capture that repeats itself, a row range,
 * an op-code filter and a low-first order, every op's cores in lower_bounds, the label an
 * answer printed taken back by the core tools, and the bad inputs refused with what exists.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { notesRead } from "../_support/notes.ts";
import { CAPTURES_DIR, capturesPresent } from "../perf_report/_golden.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";

type Row = Record<string, unknown>;
const ignore = !capturesPresent();
const DEEPSEEK = `${CAPTURES_DIR}bh_8xp150_deepseek_v3_d_p`;
const CLIP = `${CAPTURES_DIR}wh_clip_encoder_2`;

/** The raw CSV of a capture: each data row's cells by column, with its line. */
function rawRows(dir: string): { line: number; cell: (c: string) => string }[] {
  const name = dir.slice(dir.lastIndexOf("/") + 1);
  const table = parseCsvTable(Deno.readTextFileSync(`${dir}/ops_perf_results_${name}.csv`), name);
  return table.rows.map((_, i) => ({
    line: i + 2,
    cell: (c: string) => table.rows[i][table.header.indexOf(c)].trim(),
  }));
}

/** µs of the raw DEVICE KERNEL DURATION [ns] cells, summed as tt-perf-report sums them. */
function kernelUs(rows: { cell: (c: string) => string }[]): number {
  let sum = 0;
  for (const r of rows) sum += Number(r.cell("DEVICE KERNEL DURATION [ns]")) / 1000;
  return Math.round(sum * 1000) / 1000;
}

Deno.test({
  name:
    "deepseek: each device's own SDPA time is its raw row, and the merged answer names the 2× spread",
  ignore,
  async fn() {
    // Prevents a multi-device report whose slow half hides behind the merged slowest row.
    const raw = rawRows(DEEPSEEK).filter((r) =>
      r.cell("OP CODE") === "RingJointSDPADeviceOperation"
    );
    const { client, close } = await connect();
    try {
      const loaded = await callOk(client, "load_report", { performance_path: DEEPSEEK });
      const handle = loaded.handle;
      assert.deepEqual(
        loaded.devices,
        [0, 1, 2, 3, 4, 5, 6, 7].map((device) => ({ device, rows: 26 })),
      );
      for (const r of raw) {
        const device = Number(r.cell("DEVICE ID"));
        const a = await callOk(client, "top_ops", { handle, device, op_code: "RingJointSDPA" });
        const op = (a.ops as Row[])[0];
        assert.equal(op.id, String(r.line));
        assert.equal(op.device_time, Number(r.cell("DEVICE KERNEL DURATION [ns]")) / 1000);
        assert.equal((a.projection as Row).merge_devices, false);
        assert.equal((a.projection as Row).device, device);
        assert.equal(a.caveat?.toString().includes("Devices differ"), false);
      }
      const merged = await callOk(client, "top_ops", { handle, limit: 1 });
      const top = (merged.ops as Row[])[0];
      assert.equal(top.device_time, 6907.398, "the merged row is still tt-perf-report's");
      assert.deepEqual(top.device_spread, {
        min_us: 3500.495,
        min_device: 1,
        max_us: 6907.398,
        max_device: 7,
        devices: 8,
      });
      assert.match(
        String(merged.caveat),
        /Devices differ: .* RingJointSDPADeviceOperation .*\(1\.97×/,
      );
      assert.match(String(merged.caveat), /pass device/);
      for (const tool of ["op_breakdown", "lower_bounds"]) {
        const a = await callOk(client, tool, { handle });
        assert.match(String(a.caveat), /Devices differ/, tool);
      }
      const refused = await callRefused(client, "top_ops", { handle, device: 9 });
      assert.match(refused, /no row of device 9; its devices: 0, 1, 2, 3, 4, 5, 6, 7/);
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "wh_clip_encoder_2: two passes listed, pass 2 read alone and named, rows past the end refused",
  ignore,
  async fn() {
    // Prevents totals that sum a cold pass with a warm one, with no way to read one of them.
    const raw = rawRows(CLIP);
    const { client, close } = await connect();
    try {
      const loaded = await callOk(client, "load_report", { performance_path: CLIP });
      const handle = loaded.handle;
      const passes = loaded.passes as Row[];
      assert.deepEqual(
        passes.map((p) => [p.pass, p.start_row, p.end_row, p.ops, p.cold]),
        [[1, 2, 937, 936, true], [2, 938, 1873, 936, false]],
      );
      assert.equal(loaded.warm_pass, 2);
      const second = raw.filter((r) => r.line >= 938);
      assert.equal(passes[1].device_time_us, kernelUs(second));
      const a = await callOk(client, "top_ops", { handle, pass: 2, limit: 1 });
      assert.equal(a.device_time_total, kernelUs(second));
      assert.equal(a.op_count, 936);
      assert.deepEqual(
        [
          (a.projection as Row).pass,
          (a.projection as Row).start_row,
          (a.projection as Row).end_row,
        ],
        [2, 938, 1873],
      );
      const rows = await callOk(client, "op_breakdown", { handle, start_row: 940 });
      assert.equal(rows.device_time_total, 31590.391);
      assert.equal(rows.device_time_total, kernelUs(raw.filter((r) => r.line >= 940)));
      const whole = await callOk(client, "top_ops", { handle, limit: 1 });
      assert.match(String(whole.caveat), /read pass 2 \(pass: 2, warm/);
      assert.match(
        await callRefused(client, "top_ops", { handle, pass: 3 }),
        /no pass 3; the capture holds passes 1–2 \(1: lines 2–937, 2: lines 938–1873\)/,
      );
      assert.match(
        await callRefused(client, "lower_bounds", { handle, end_row: 5000 }),
        /its rows are lines 2–1873/,
      );
      assert.match(
        await callRefused(client, "top_ops", { handle, pass: 1, start_row: 2 }),
        /not both/,
      );
      const demo = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
      assert.equal(demo.passes, undefined);
      assert.match(
        await callRefused(client, "top_ops", { handle: demo.handle, pass: 1 }),
        /does not repeat its operation sequence, so it has no passes; read a row range/,
      );
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "top_ops filters by op code, ranks lowest first and keeps device_time on every row",
  ignore,
  async fn() {
    // Prevents a one-core op that no ranking, filter or order can bring into view.
    const { client, close } = await connect();
    try {
      const { handle } = await callOk(client, "load_report", { performance_path: CLIP });
      const low = await callOk(client, "top_ops", { handle, by: "cores", order: "ascending" });
      const first = (low.ops as Row[])[0];
      assert.deepEqual([first.id, first.op_code, first.cores], [
        "7",
        "LayerNormDeviceOperation",
        1,
      ]);
      assert.equal(first.device_time, 53.336, "device_time whatever the metric");
      const ln = await callOk(client, "top_ops", { handle, op_code: "LayerNorm", limit: 100 });
      assert.deepEqual(ln.op_filter, { op_code: "LayerNorm", matched: "prefix", rows: 130 });
      assert.ok((ln.ops as Row[]).every((r) => r.op_code === "LayerNormDeviceOperation"));
      const label = "Matmul b={20} x 32 x 64 x 32";
      const exact = await callOk(client, "top_ops", { handle, op_code: label, limit: 100 });
      assert.equal((exact.op_filter as Row).matched, "exact");
      assert.ok((exact.ops as Row[]).every((r) => r.op_code === label));
      assert.match(
        await callRefused(client, "lower_bounds", { handle, op_code: "NoSuchOp" }),
        /the op codes here: /,
      );
      assert.match(
        await callRefused(client, "top_ops", { handle, op_code: "NoSuchOp" }),
        /no operation's op code is or starts with "NoSuchOp"; the op codes here: .*LayerNormDeviceOperation/,
      );
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "lower_bounds gives every op its cores, says too few cores, and gives DRAM its own residual",
  ignore,
  async fn() {
    // Prevents LayerNorm on 1 of 64 cores read without a core count, and a DRAM-bound matmul's
    // gap read as cores not kept busy.
    const { client, close } = await connect();
    try {
      const { handle } = await callOk(client, "load_report", { performance_path: CLIP });
      const ln = await callOk(client, "lower_bounds", { handle, op_code: "LayerNorm" });
      const e = (ln.entries as Row[])[0];
      assert.deepEqual(
        [e.op_code, e.count, e.cores_used, e.worker_cores, e.findings],
        ["LayerNormDeviceOperation", 130, 1, 64, ["too_few_cores"]],
      );
      const mm = await callOk(client, "lower_bounds", { handle, limit: 1 });
      const top = (mm.entries as Row[])[0];
      const split = top.gap_split as Row;
      assert.equal(top.limited_by, "dram");
      assert.equal(split.not_kept_busy_us, 0);
      assert.equal(split.dram_not_kept_busy_us, top.gap_us);
      assert.equal(top.findings, undefined, "64 of 64 cores is not too few");
    } finally {
      await close();
    }
  },
});

Deno.test("the core tools take the label top_ops printed for one shape group", async () => {
  // Prevents the step from "this shape group has the gap" to "what its cores did" being refused.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const label = "Matmul 32 x 8192 x 2048";
    const top = await callOk(client, "top_ops", { handle, op_code: label, limit: 100 });
    const ids = (top.ops as Row[]).map((r) => r.id).sort();
    assert.ok(ids.length > 0 && ids.length < 8, "one shape of several");
    const states = await callOk(client, "core_states", { handle, op_code: label });
    assert.equal(states.instances, ids.length);
    const util = await callOk(client, "core_utilisation", { handle, op_code: label });
    assert.equal(util.operations, ids.length);
    const spread = await callOk(client, "core_spread", { handle, op_code: label });
    assert.deepEqual((spread.operations as Row[]).map((o) => o.id).sort(), ids);
    const all = await callOk(client, "core_states", { handle, op_code: "Matmul" });
    assert.ok((all.instances as number) > ids.length, "the CSV's OP CODE still pools shapes");
  } finally {
    await close();
  }
});

Deno.test({
  name: "diff_reports says when the reports share no op code and differ in devices",
  ignore,
  async fn() {
    // Prevents a delta between two different workloads read as the effect of a change.
    const { client, close } = await connect();
    try {
      const a = await callOk(client, "load_report", { performance_path: DEEPSEEK });
      const b = await callOk(client, "load_report", { performance_path: CLIP });
      const d = await callOk(client, "diff_reports", { handle_a: a.handle, handle_b: b.handle });
      assert.match(
        String(d.caveat),
        /The reports share 1 of their 31 op codes \(under 50 %\)/,
      );
      assert.match(String(d.caveat), /handle_a holds 8 devices and handle_b 1/);
      const same = await callOk(client, "diff_reports", { handle_a: b.handle, handle_b: b.handle });
      assert.doesNotMatch(String(same.caveat ?? ""), /share|devices and/);
    } finally {
      await close();
    }
  },
});

Deno.test({
  name: "the host-time caveat counts PROGRAM CACHE HIT misses where the CSV records them",
  ignore,
  async fn() {
    // Prevents first calls counted by hash while the CSV says every row missed the cache.
    const raw = rawRows(DEEPSEEK);
    const { client, close } = await connect();
    try {
      const { handle } = await callOk(client, "load_report", { performance_path: DEEPSEEK });
      const a = await callOk(client, "top_ops", { handle });
      assert.ok(raw.every((r) => r.cell("PROGRAM CACHE HIT") === "False"));
      assert.match(
        String(a.caveat),
        /26 of the 26 device operations here missed the program cache \(PROGRAM CACHE HIT False/,
      );
    } finally {
      await close();
    }
  },
});

Deno.test("lower_bounds prints the label core_states takes back, and names that step", async () => {
  // Prevents a lower_bounds entry whose printed op code the drill-down tools refuse.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const lb = await callOk(client, "lower_bounds", { handle, limit: 1 });
    const e = (lb.entries as Row[])[0];
    assert.match(String(e.label), /^Matmul \d+ x \d+ x \d+$/);
    const states = await callOk(client, "core_states", { handle, op_code: e.label });
    assert.equal(states.instances, e.count);
    const step = (lb.next as { tool: string; arguments: Row }[])[0];
    assert.deepEqual([step.tool, step.arguments.op_code], ["core_spread", e.label]);
  } finally {
    await close();
  }
});

Deno.test("device_timeline ranks the gaps inside busy time beside the op codes, read once", async () => {
  // Prevents 15 % of busy time in gaps going unranked and unexplained.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const t = await callOk(client, "device_timeline", { handle });
    const gaps = t.gaps as Row;
    assert.equal(gaps.total_us, t.gap_sum_us);
    assert.equal(
      gaps.share_of_busy_percent,
      Math.round((1000 * (t.gap_sum_us as number)) / (t.busy_us as number)) / 10,
    );
    const above = (t.by_op_code as Row[]).filter((c) =>
      (c.interval_us as number) > (gaps.total_us as number)
    );
    assert.equal(gaps.rank_among_op_codes, above.length + 1);
    const reading = (await notesRead(client, t))["device_timeline.gaps"];
    assert.match(reading, /metal trace/);
    assert.match(reading, /TT_METAL_DEVICE_PROFILER_DISPATCH=1/);
    assert.doesNotMatch(JSON.stringify(t), /DISPATCH=1/, "said in the note only");
  } finally {
    await close();
  }
});

Deno.test({
  name: "load_report names the warm pass's top_ops as the next step",
  ignore,
  async fn() {
    // Prevents an agent starting from totals that sum the cold pass with the warm one.
    const { client, close } = await connect();
    try {
      const loaded = await callOk(client, "load_report", { performance_path: CLIP });
      const [step] = loaded.next as { tool: string; arguments: Row }[];
      assert.deepEqual([step.tool, step.arguments], ["top_ops", {
        handle: loaded.handle,
        pass: 2,
      }]);
      const top = await callOk(client, step.tool, step.arguments);
      assert.equal((top.projection as Row).pass, 2);
    } finally {
      await close();
    }
  },
});
