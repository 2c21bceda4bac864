import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { captureNamesOrSkip, CAPTURES_DIR } from "../perf_report/_golden.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { gateUpCsv } from "../_support/gate_up.ts";
import { noteIds, noteTexts } from "../_support/notes.ts";
import { tensorSlots, TILE_BYTES } from "../../src/analysis/dram_traffic.ts";
import { type RowBound, rowBounds, shapeKey } from "../../src/analysis/lower_bounds.ts";
import { RowCells } from "../../src/analysis/include_groups.ts";
import { generatePerfReport, parseCsvTable } from "../../src/perf_report/mod.ts";

type Row = Record<string, unknown>;
const PERF = CAPTURES_DIR;
const captures = captureNamesOrSkip();

async function load(csv: string) {
  const dir = await tempDir();
  await writeFiles(dir.path, { "ops_perf_results_t.csv": csv });
  const s = session();
  const { handle } = await s.call("load_report", { performance_path: dir.path });
  return { s, handle: handle as string, dir };
}

Deno.test("the talk's gate+up limit and the split of its gap are reproduced to the microsecond", async () => {
  // Prevents a bound computed from the cores an op ran on, which hides the time it lost by
  // running on too few of them (the talk's 1,308 µs) from the ranking.
  const { s, handle, dir } = await load(gateUpCsv());
  await using _ = dir;
  const a = await s.call("lower_bounds", { handle });
  assert.equal(a.dram_bandwidth_gbps, 512);
  assert.deepEqual(a.architecture, {
    name: "blackhole",
    source: "performance_csv",
    worker_cores: 110,
  });
  const e = (a.entries as Row[])[0];
  assert.equal(e.count, 64);
  // 128 × 448 tiles × 576 B (BFLOAT4_B) per call, × 64 calls, ÷ 512 GB/s.
  assert.equal(e.dram_bytes, 128 * 448 * 576 * 64);
  assert.equal(e.dram_bound_us, 4128.768);
  // On all 110 worker cores compute takes 395 µs, so DRAM is the limit.
  assert.equal(e.limited_by, "dram");
  assert.equal(e.lower_bound_us, 4128.768);
  assert.equal(e.measured_us, 7798.4);
  assert.equal(e.gap_us, 3669.632);
  assert.equal(e.compute_modelled, true);
  assert.deepEqual(e.gap_split, {
    cores_used: 8,
    // 240.5 GFLOP ÷ (8 × 5.53 TFLOP/s): the 8 cores a DRAM-sharded Blackhole matmul runs on.
    compute_at_cores_used_us: 5437.061,
    not_kept_busy_us: 2361.339,
    // Compute binds on its 8 cores (5,437 µs > the 4,129 µs DRAM time), so none is DRAM's.
    dram_not_kept_busy_us: 0,
    too_few_cores_us: 1308.293,
    cores_needed_for_limit: 10.5,
  });
  assert.equal(e.effective_dram_gbps, 271);
  assert.equal(e.effective_dram_percent, 52.9);
  assert.equal(TILE_BYTES.BFLOAT8_B, 1088);
  const totals = a.totals as Row;
  assert.ok((totals.not_kept_busy_us as number) >= 2361.339);
  assert.ok((totals.too_few_cores_us as number) >= 1308.293);
});

/** The gate/up CSV with every LayerNorm's input and output in L1: nothing of it in DRAM. */
function layerNormInL1() {
  return editCsv((r) => {
    if (r["OP CODE"] !== "LayerNorm") return false;
    r["INPUT_0_MEMORY"] = "DEV_0_L1_INTERLEAVED";
    r["OUTPUT_0_MEMORY"] = "DEV_0_L1_INTERLEAVED";
  });
}

Deno.test("an op with nothing in DRAM and no compute model has a bound of 0 and says so", async () => {
  // Prevents an activation-only op from reading as infinitely far from a real bound.
  const csv = layerNormInL1();
  const { s, handle, dir } = await load(csv);
  await using _ = dir;
  const a = await s.call("lower_bounds", { handle, group_by: "op" });
  const notes = noteTexts(a);
  for (const e of a.entries as Row[]) {
    assert.deepEqual([e.lower_bound_us, e.ratio, e.limited_by], [0, null, "none"]);
    assert.match(notes[`lower_bounds.${e.note}`], /bound is 0/);
    assert.equal(e.gap_us, e.measured_us);
  }
});

Deno.test("the zero-bound note is named once per answer, its text in no answer", async () => {
  // Prevents the same "bound is 0" sentence repeated on every entry with nothing in DRAM.
  const csv = layerNormInL1();
  const { s, handle, dir } = await load(csv);
  await using _ = dir;
  const a = await s.call("lower_bounds", { handle, group_by: "op" });
  const entries = a.entries as Row[];
  assert.ok(entries.length > 1, "several LayerNorm rows");
  for (const e of entries) assert.equal(e.note, "zero_bound");
  assert.equal(noteIds(a).filter((id) => id === "lower_bounds.zero_bound").length, 1);
  assert.doesNotMatch(JSON.stringify(a), /the bound is 0, not a measurement/);
});

Deno.test("entries are ranked by absolute gap, not by ratio, and the totals cover every row", async () => {
  // Prevents a small op with a large ratio from outranking the op that costs the most time.
  const { s, handle, dir } = await load(editCsv(() => {}));
  await using _ = dir;
  const a = await s.call("lower_bounds", { handle, limit: 100 });
  const gaps = (a.entries as Row[]).map((e) => e.gap_us as number);
  assert.deepEqual(gaps, [...gaps].sort((x, y) => y - x));
  const ratios = (a.entries as Row[]).map((e) => e.ratio as number);
  assert.notDeepEqual(ratios, [...ratios].sort((x, y) => y - x), "the ratio order differs here");
  const totals = a.totals as Row;
  assert.equal(totals.rows, 24);
  assert.ok(
    Math.abs(
      (totals.measured_us as number) - (totals.lower_bound_us as number) -
        (totals.gap_us as number),
    ) < 1e-6,
  );
  assert.match(noteTexts(a)["lower_bounds.method"], /^dram_bound_us: /m);
  const custom = await s.call("lower_bounds", { handle, dram_bandwidth_gbps: 576 });
  assert.equal(custom.dram_bandwidth_from, "argument");
  assert.ok((custom.totals as Row).lower_bound_us as number < (totals.lower_bound_us as number));
  assert.match(
    await s.refusal("lower_bounds", { handle, dram_bandwidth_gbps: 0 }),
    /dram_bandwidth_gbps/,
  );
});

for (const capture of captures) {
  Deno.test(`every bound on ${capture} is at most the measured time, or flagged`, async () => {
    // Prevents a bound model that claims an op beat the hardware without saying so.
    const s = session();
    const { handle } = await s.call("load_report", { performance_path: `${PERF}${capture}` });
    const a = await s.call("lower_bounds", { handle, group_by: "op", limit: 100 });
    for (const e of a.entries as Row[]) {
      if ((e.lower_bound_us as number) > (e.measured_us as number)) {
        assert.equal(e.bound_exceeds_measured, true, String(e.id));
      } else assert.equal(e.bound_exceeds_measured, undefined);
    }
    assert.ok((a.totals as Row).rows as number > 0);
  });
}

Deno.test("a row's bound is the same shared with rows of equal cells as computed alone", () => {
  // Prevents what is read once for rows whose tensor cells match (tensors, bytes, peak, worker
  // cores, ideal time) being shared with a row that differs in any cell its bound reads.
  const copies = 4;
  const text = editCsv((row, i) => {
    const copy = Math.floor(i / 26);
    const ns = Number(row["DEVICE KERNEL DURATION [ns]"]);
    if (Number.isFinite(ns) && ns > 0) row["DEVICE KERNEL DURATION [ns]"] = String(ns * (copy + 1));
    if (copy === 1) {
      row["INPUT_0_Y_PAD[LOGICAL]"] = row["INPUT_0_Y_PAD[LOGICAL]"].replace("32", "64");
    }
    if (copy === 2 && row["MATH FIDELITY"] === "HiFi2") row["MATH FIDELITY"] = "LoFi";
    if (copy === 3) {
      row["INPUT_1_MEMORY"] = row["INPUT_1_MEMORY"].replace("DRAM", "L1");
      if (row["PM IDEAL [ns]"] !== "") row["PM IDEAL [ns]"] = "12345";
      row["AVAILABLE WORKER CORE COUNT"] = "56";
    }
  }, { repeat: copies });
  const lines = text.trimEnd().split("\n");
  const boundsOf = (csv: string) => {
    const table = parseCsvTable(csv, "t.csv");
    const perf = generatePerfReport(table);
    return rowBounds(perf, {
      spec: perf.arch,
      dramBandwidthGbps: perf.arch.dram_bandwidth_gb_s,
      cells: new RowCells(table),
      slots: tensorSlots(table.header),
    });
  };
  const figures = ({ row, ...rest }: RowBound) => ({
    id: row.id,
    ...rest,
    shape: shapeKey({ row, ...rest }),
  });
  const whole = boundsOf(text).map(figures);
  let compared = 0;
  for (let k = 0; k < copies; k++) {
    const alone = [lines[0], ...lines.slice(1 + 26 * k, 1 + 26 * (k + 1))].join("\n") + "\n";
    const own = boundsOf(alone).map((b) => ({ ...figures(b), id: b.row.id + 26 * k }));
    const shared = whole.filter((b) => b.id >= 2 + 26 * k && b.id < 2 + 26 * (k + 1));
    assert.deepEqual(shared, own, `copy ${k}`);
    compared += own.length;
  }
  assert.ok(compared > copies);
  // The copies do differ, so the rows shared nothing they should not.
  assert.ok(
    new Set(whole.map((b) => b.shape)).size > new Set(whole.slice(0, 26).map((b) => b.shape)).size,
  );
  assert.ok(new Set(whole.map((b) => b.model_ideal_us)).size >= 2);
  assert.ok(new Set(whole.map((b) => b.worker_cores)).size >= 2);
  assert.ok(new Set(whole.map((b) => b.peak_tflops_per_core)).size >= 2);
});
