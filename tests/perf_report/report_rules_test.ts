import { Frame } from "../../src/perf_report/_frame.ts";
import { hostStartOrder } from "../../src/perf_report/_order.ts";
import assert from "node:assert/strict";
import { buildFixtures } from "../../scripts/make_perf_fixtures.ts";
import { generatePerfReport } from "../../src/perf_report/report.ts";
import { runTtPerfReport } from "../../src/perf_report/pipeline.ts";
import { PerfReportInputError } from "../../src/perf_report/exceptions.ts";
import { countDevices } from "../../src/perf_report/signposts.ts";
import { fixture, fixtureText, table } from "./_fixtures.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import type { PerfRow } from "../../src/perf_report/types.ts";

const byId = <T extends { id: number }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));

Deno.test("the committed fixtures are exactly what the generator builds", () => {
  // Prevents the tests from running on hand-edited fixtures the script no longer produces.
  for (const [name, text] of Object.entries(buildFixtures())) {
    assert.equal(fixtureText(name), text, name);
  }
});

Deno.test("a header-only CSV gives an empty report, not an error", () => {
  // Prevents a TypeError on a capture that recorded no ops.
  const r = generatePerfReport(fixture("header_only.csv"));
  assert.deepEqual(r.rows, []);
  assert.deepEqual(r.stacked, { op: null, memory: null, category: null });
  assert.equal(r.totals.device_time_us, 0);
  assert.equal(countDevices(fixture("header_only.csv")), 0);
});

Deno.test("a CSV without OP TYPE is refused before any row is read", () => {
  // Prevents a half-built report from a CSV tt-perf-report cannot open.
  assert.throws(
    () => generatePerfReport(table("OP CODE,DEVICE ID\nA,0\n")),
    (e: unknown) => e instanceof PerfReportInputError && e.kind === "missing_columns",
  );
});

Deno.test("an older format lacking matmul columns fails with a typed error at the first matmul", () => {
  // Prevents a KeyError-style crash; tt-perf-report aborts on this row too.
  assert.throws(
    () => generatePerfReport(fixture("old_format_missing_columns.csv")),
    (e: unknown) =>
      e instanceof PerfReportInputError && e.kind === "missing_columns" && e.row === 3,
  );
});

Deno.test("a matmul with a blank math fidelity is refused as tt-perf-report aborts on it", () => {
  // Prevents an invented peak (and FLOPs %) for an op whose fidelity is unknown.
  assert.throws(
    () => generatePerfReport(fixture("blank_fidelity_matmul.csv")),
    (e: unknown) =>
      e instanceof PerfReportInputError && e.kind === "unknown_math_fidelity" && e.row === 2 &&
      e.message.includes("nan"),
  );
});

Deno.test("blank, NaN, text and negative durations make a row invalid without a crash", () => {
  // Prevents a bad duration cell from becoming 0 µs or NaN in totals.
  const rows = byId(generatePerfReport(fixture("blanks_and_nans.csv")).rows);
  for (const id of [3, 4, 5, 6]) {
    assert.equal(rows.get(id)!.device_time, null, `row ${id}`);
    assert.equal(rows.get(id)!.internal.invalid_device_duration, true);
  }
  assert.equal(rows.get(2)!.device_time, 1);
  assert.equal(rows.get(4)!.cores, null, "'n/a' is a pandas missing value");
  assert.equal(rows.get(5)!.global_call_count, null, "'NA' is a pandas missing value");
});

Deno.test("a huge negative latency marks a trace-replay row invalid and hides the next gap", () => {
  // Prevents seconds-long replay artefacts from dominating Total % and the gap ranking.
  const report = generatePerfReport(fixture("blanks_and_nans.csv"));
  const rows = byId(report.rows);
  assert.equal(rows.get(7)!.device_time, null);
  assert.equal(rows.get(7)!.op_to_op_gap, null);
  assert.equal(rows.get(7)!.total_percent, null);
  assert.equal(rows.get(8)!.op_to_op_gap, null, "2 ms latency after an invalid row");
  assert.equal(rows.get(8)!.cores, null, "a fractional core count is no core count");
  assert.equal(report.invalid_duration_rows, 5);
});

Deno.test("an unusable DEVICE ID leaves a device op unmerged and without a device", () => {
  // Prevents a corrupt id from being merged into a real device's queue.
  const report = generatePerfReport(fixture("blanks_and_nans.csv"));
  assert.equal(byId(report.rows).get(9)!.device, null);
  assert.ok(report.messages.includes(
    "Warning: CopyDeviceOperation has no usable DEVICE ID and was not merged across devices.",
  ));
});

Deno.test("host ops have no device time and bound HOST, and count as time 0 when stacked", () => {
  // Prevents host fallback time being added to device totals, or host ops vanishing.
  const report = generatePerfReport(fixture("host_ops_v1.csv"));
  const rows = byId(report.rows);
  for (const id of [2, 3]) {
    assert.equal(rows.get(id)!.bound, "HOST");
    assert.equal(rows.get(id)!.device_time, null);
    assert.equal(rows.get(id)!.total_percent, null);
    assert.equal(rows.get(id)!.op_category, "Host");
  }
  const torch = report.stacked.op!.find((g) => g.op_code_joined === "(torch)")!;
  assert.deepEqual([torch.device_time_sum_us, torch.ops_count], [0, 2]);
  assert.equal(report.stacked.op!.at(-1), torch, "the zero-time host group comes last");
});

Deno.test("the first device op after host ops keeps its gap", () => {
  // Prevents the gap after a host fallback (often the largest) from being dropped.
  const rows = byId(generatePerfReport(fixture("host_ops_v1.csv")).rows);
  assert.equal(rows.get(4)!.op_to_op_gap, 0);
  assert.equal(rows.get(5)!.op_to_op_gap, 10);
});

Deno.test("hiding host ops drops them and recomputes Total % over the rest", () => {
  // Prevents shares that no longer add up once host rows are removed.
  const whole = generatePerfReport(fixture("host_ops_v1.csv"));
  const hidden = generatePerfReport(fixture("host_ops_v1.csv"), { hideHostOps: true });
  assert.deepEqual(hidden.rows.map((r) => r.id), [4, 5]);
  assert.equal(byId(hidden.rows).get(4)!.op_to_op_gap, 0, "gaps were computed before hiding");
  assert.equal(hidden.stacked.op!.some((g) => g.op_code_joined === "(torch)"), false);
  const sum = hidden.rows.reduce((s, r) => s + (r.total_percent ?? 0), 0);
  assert.ok(Math.abs(sum - 100) < 1e-9);
  assert.deepEqual(
    whole.rows.filter((r) => !r.is_host_op).map((r) => r.total_percent),
    hidden.rows.map((r) => r.total_percent),
    "host rows carry no time, so the shares are unchanged here",
  );
});

Deno.test("merging keeps the slowest device's row, and the lower device on a tie", () => {
  // Prevents a merged op from reporting a faster device's time or a different row id.
  const rows = byId(generatePerfReport(fixture("two_devices.csv")).rows);
  assert.deepEqual([rows.get(3)!.device, rows.get(3)!.device_time], [1, 3]);
  assert.deepEqual([rows.get(6)!.device, rows.get(6)!.device_time], [0, 5]);
  assert.deepEqual(rows.get(3)!.merged_ids, [2, 3]);
});

Deno.test("a row of one device stands for itself, with no list of merged rows", () => {
  // Prevents every row of a one-device report holding a list of its own id (a list per row of
  // a large file), while a row merged from several devices still lists them all.
  const one = generatePerfReport(fixture("host_ops_v1.csv")).rows;
  assert.ok(one.length > 0);
  assert.deepEqual(one.map((r) => r.merged_ids), one.map(() => null));
  const two = generatePerfReport(fixture("two_devices.csv")).rows;
  assert.ok(two.some((r) => (r.merged_ids?.length ?? 0) > 1));
  for (const r of two) assert.ok(r.merged_ids === null || r.merged_ids.includes(r.id));
});

Deno.test("a collective is averaged over devices on the lowest device's row", () => {
  // Prevents all-gather time being read as its slowest device's time.
  const rows = byId(generatePerfReport(fixture("two_devices.csv")).rows);
  const ag = rows.get(4)!;
  assert.deepEqual([ag.op_code, ag.device, ag.device_time, ag.op_to_op_gap], [
    "AllGatherAsyncDeviceOperation",
    0,
    1.5,
    7,
  ]);
  assert.equal(ag.op_category, "CCL");
});

Deno.test("a device that runs out of ops is reported and the rest still merge", () => {
  // Prevents a device with fewer rows from aborting or misaligning the merge.
  const report = generatePerfReport(fixture("two_devices.csv"));
  assert.deepEqual(report.rows.map((r) => r.id), [3, 4, 6, 8]);
  assert.ok(report.messages.includes("Warning: Device 0 is missing operation None at index 3"));
  assert.equal(countDevices(fixture("two_devices.csv")), 2);
});

Deno.test("without merging, every device row is kept in host-time order, stacked per device", () => {
  // Prevents per-device inspection from silently collapsing devices.
  const report = generatePerfReport(fixture("two_devices.csv"), { mergeDevices: false });
  assert.deepEqual(report.rows.map((r) => r.id), [2, 3, 4, 5, 6, 7, 8]);
  const devices = new Set(report.stacked.op!.map((g) => g.device));
  assert.deepEqual([...devices].sort(), [0, 1]);
});

Deno.test("equal host start times keep file order; rows without device ids stay in that order", () => {
  // Prevents a nondeterministic row order (and gaps measured from the wrong neighbour).
  const rows = generatePerfReport(fixture("unsorted_ties.csv")).rows;
  assert.deepEqual(rows.map((r) => r.id), [3, 5, 4, 2]);
  assert.equal(rows[0].op_to_op_gap, null, "the first row in report order has no gap");
});

Deno.test("sub-device ids keep a float column's text form and promote Available Cores", () => {
  // Prevents '1.50' being truncated into sub-device 1, or per-op budgets going unreported.
  const report = generatePerfReport(fixture("sub_devices.csv"));
  assert.deepEqual(report.rows.map((r) => r.sub_device_id), ["1.5", 2, null]);
  assert.deepEqual(report.sub_devices, {
    count: 2,
    show_available_cores: true,
    budgets: [108, 64, 12],
  });
  assert.equal(report.overlap.gate_open, false);
});

Deno.test("a matmul gets the full roofline with the tool's constants", () => {
  // Prevents a unit slip (ns vs s, GB vs GiB) in DRAM or FLOPs figures.
  const r = byId(runTtPerfReport(fixture("signposts.csv"), { ignoreSignposts: true }).rows).get(4)!;
  assert.equal(r.op_code, "MatmulDeviceOperation 64 x 128 x 256");
  const seconds = 2000 * 1e-9;
  assert.equal(r.internal.dram_bytes, 128 * 256 * 1);
  assert.equal(r.dram, 128 * 256 / seconds / 1e9);
  assert.equal(r.flops, 64 * 128 * 256 * 2 / seconds / 1e12);
  assert.equal(r.flops_percent, (64 * 128 * 256 * 2 / seconds) / ((148 / 72) * 1e12 * 64) * 100);
  assert.equal(r.bound, "SLOW");
  assert.equal(r.math_fidelity, "HiFi2 BF16 x BFP8 => BF16");
  assert.deepEqual(
    [r.inner_dim_block_size, r.output_subblock_h, r.output_subblock_w],
    [2, 1, 4],
  );
  assert.deepEqual(r.advice, [
    "in0_block_w=2 and output subblock 1x4 look good 🤷",
    "If your matmuls are not FLOP-bound use HiFi4 with BF16 activations for full accuracy",
  ]);
});

Deno.test("host order: numbers ascending with ties and infinities in file order, blanks last", () => {
  // Prevents the in-order shortcut returning the file's order for a file that is not in order.
  const order = (cells: string[]) =>
    hostStartOrder(Frame.of({ header: ["HOST START TS"], rows: cells.map((c) => [c]) }));
  assert.deepEqual(order(["1", "inf", "", "inf", "2"]), [0, 4, 1, 3, 2]);
  assert.deepEqual(order(["1", "1", "inf", "inf", ""]), [0, 1, 2, 3, 4]);
  assert.deepEqual(order(["5", "-inf", "5", "3"]), [1, 3, 0, 2]);
  assert.deepEqual(order(["2.5", "2.5", "1"]), [2, 0, 1]);
});

Deno.test("a row repeated with other times or another cell is analysed as if it stood alone", () => {
  // Prevents what is derived once for rows whose cells match (shapes, bytes, FLOPs, op code)
  // being shared with a row that differs in a time (its rates) or in any other cell it reads.
  const copies = 3;
  const text = editCsv((row, i) => {
    const copy = Math.floor(i / 26);
    const ns = Number(row["DEVICE KERNEL DURATION [ns]"]);
    if (Number.isFinite(ns) && ns > 0) row["DEVICE KERNEL DURATION [ns]"] = String(ns * (copy + 1));
    if (copy === 2 && row["MATH FIDELITY"] === "HiFi2") row["MATH FIDELITY"] = "LoFi";
    if (copy === 1) row["INPUT_1_MEMORY"] = row["INPUT_1_MEMORY"].replace("DRAM", "L1");
  }, { repeat: copies });
  const lines = text.trimEnd().split("\n");
  const whole = generatePerfReport(parseCsvTable(text, "t.csv")).rows;
  assert.equal(whole.length, 26 * copies);
  // What a row's neighbours decide is left out: its gap, share and overlap (the copies run
  // at the same device cycles, so each overlaps the others).
  const figures = (r: PerfRow) => {
    const { id: _id, op_to_op_gap: _g, total_percent: _t, merged_ids: _m, overlap: _o, ...rest } =
      r;
    const { busy_time_before_gate: _b, overlap_before_gate: _ob, ...internal } = r.internal;
    return { ...rest, internal };
  };
  for (let k = 0; k < copies; k++) {
    const alone = [lines[0], ...lines.slice(1 + 26 * k, 1 + 26 * (k + 1))].join("\n") + "\n";
    const own = generatePerfReport(parseCsvTable(alone, `copy${k}.csv`)).rows;
    const shared = whole.filter((r) => r.id >= 2 + 26 * k && r.id < 2 + 26 * (k + 1));
    assert.deepEqual(shared.map(figures), own.map(figures), `copy ${k}`);
  }
  // The copies do differ, so the rows shared nothing they should not.
  const matmuls = whole.filter((r) => r.op_code.includes("Matmul") && r.device_time !== null);
  assert.ok(new Set(matmuls.map((r) => r.flops)).size >= 3);
  assert.ok(new Set(matmuls.map((r) => r.math_fidelity)).size >= 2);
});
