/**
 * The port's helpers against tt-perf-report 6278e268's own outputs for enumerated inputs
 * (`tool_catalog-6278e268.json`). Numbers are compared bit for bit.
 */

import assert from "node:assert/strict";
import { catalog } from "./_catalog.ts";
import {
  architectureFromName,
  ARCHITECTURES,
  resolveArchitecture,
} from "../../src/perf_report/arch.ts";
import {
  CATEGORY_ORDER,
  classifyOperation,
  HOST_OP_MARKER,
  MAX_WARNED_OP_NAME_CHARS,
  OPERATION_CATEGORIES,
  unclassifiedWarning,
} from "../../src/perf_report/categories.ts";
import { evaluateFidelity } from "../../src/perf_report/fidelity.ts";
import { generateMatmulAdvice } from "../../src/perf_report/advice.ts";
import {
  type CellValue,
  coreCountFromValue,
  escapeCsvFormula,
  getDatatypeSize,
  getValuePhysicalLogical,
  sanitizeText,
  subDeviceIdFromText,
} from "../../src/perf_report/cells.ts";
import { isInvalidDeviceDuration } from "../../src/perf_report/_source.ts";
import { annotateOverlap } from "../../src/perf_report/overlap.ts";
import { pyFloatRepr } from "../../src/perf_report/_python.ts";
import { pyFormatFixed } from "../../src/kit/python_format.ts";
import { Frame } from "../../src/perf_report/_frame.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { PerfReportInputError } from "../../src/perf_report/exceptions.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
const cat = catalog();
const ignore = cat === null;
if (ignore) console.log("skipped: ../shared/captures not found");

const ABSENT = Symbol("absent");

/** A catalog key written as a Python repr, as a pandas cell value. */
function fromRepr(repr: string): CellValue | typeof ABSENT {
  if (repr === "<column absent>") return ABSENT;
  if (repr === "None" || repr === "nan") return null;
  if (repr === "inf") return Infinity;
  if (repr === "True" || repr === "False") return repr === "True";
  if (repr.startsWith("'") || repr.startsWith('"')) {
    return repr.slice(1, -1).replace(
      /\\(x[0-9a-fA-F]{2}|n|t|r|\\|'|")/g,
      (_, e: string) =>
        e.startsWith("x")
          ? String.fromCharCode(parseInt(e.slice(1), 16))
          : ({ n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' } as Record<
            string,
            string
          >)[e],
    );
  }
  return Number(repr);
}

/** Python `str()` of a cell value, as the sub-device reader sees it. */
function pyStr(v: CellValue): string | null {
  if (v === null) return null;
  if (typeof v === "number") {
    return Number.isInteger(v) && !/[.e]/.test(String(v)) ? String(v) : pyFloatRepr(v);
  }
  return String(v);
}

Deno.test({
  name: "the architecture registry holds the tool's exact TFLOPs, cores and bandwidth",
  ignore,
  fn() {
    // Prevents a rounding slip in a TFLOPs expression from shifting every FLOPs %.
    for (const [name, spec] of Object.entries(cat.architectures as Json)) {
      const ours = ARCHITECTURES[name];
      assert.deepEqual(
        {
          worker_cores: ours.worker_cores,
          dram_sharded_matmul_cores: ours.dram_sharded_matmul_cores,
          dram_bandwidth_gb_s: ours.dram_bandwidth_gb_s,
          tflops_per_core: ours.tflops_per_core,
        },
        spec,
        name,
      );
    }
    assert.equal(Object.keys(ARCHITECTURES).length, Object.keys(cat.architectures).length);
  },
});

Deno.test({
  name: "architecture names are lower-cased and SKU aliases resolve as the tool resolves them",
  ignore,
  fn() {
    // Prevents p150/p100 captures from being analysed with the wrong DRAM bandwidth.
    for (const [repr, want] of Object.entries(cat["ArchitectureSpec.from_name"] as Json)) {
      const v = fromRepr(repr);
      const name = v === ABSENT ? null : (v as string | null);
      if ("error" in (want as Json)) {
        assert.throws(() => architectureFromName(name), PerfReportInputError);
        continue;
      }
      const spec = architectureFromName(name);
      assert.deepEqual({ name: spec.name, worker_cores: spec.worker_cores }, want, repr);
    }
  },
});

Deno.test({
  name: "the file-wide worker-core count is the largest usable AVAILABLE WORKER CORE COUNT",
  ignore,
  fn() {
    // Prevents a zero, fraction or text budget from defining the grid every op is measured on.
    for (
      const c of cat["ArchitectureSpec._get_worker_core_count_from_df (DEVICE ARCH blackhole)"]
    ) {
      const cells = (c.values as unknown[]).map((v) => (v === null ? "" : String(v)));
      const text = "DEVICE ARCH,AVAILABLE WORKER CORE COUNT\n" +
        cells.map((v) => `blackhole,${v}`).join("\n") + "\n";
      const resolved = resolveArchitecture(new Frame(parseCsvTable(text, "budgets.csv")));
      assert.equal(resolved.spec.worker_cores, c.worker_cores, JSON.stringify(c.values));
      assert.deepEqual(resolved.spec.observed_budgets, c.observed_budgets);
      const printed = resolved.messages.filter((m) =>
        /^(Ignoring|Detected multiple|No usable)/.test(m)
      );
      assert.deepEqual(printed, c.printed);
    }
  },
});

Deno.test({
  name: "op categories match the tool's table, order and every classify_operation probe",
  ignore,
  fn() {
    // Prevents an op from being reported under a different category than tt-perf-report's.
    assert.deepEqual(CATEGORY_ORDER, cat.CATEGORY_ORDER);
    assert.equal(HOST_OP_MARKER, cat.HOST_OP_MARKER);
    assert.equal(MAX_WARNED_OP_NAME_CHARS, cat.MAX_WARNED_OP_NAME_CHARS);
    for (const [category, names] of Object.entries(cat.OPERATION_CATEGORIES as Json)) {
      assert.deepEqual(
        [...OPERATION_CATEGORIES[category as "DM"]].sort(),
        [...(names as string[])].sort(),
        category,
      );
    }
    for (const [opCode, want] of Object.entries(cat.classify_operation as Json)) {
      assert.equal(classifyOperation(opCode), want, opCode);
    }
    const warnings = ["Pad", "SomethingUnknown", "X".repeat(100)].map((n) =>
      unclassifiedWarning(n).message
    );
    assert.deepEqual(warnings, cat.classify_operation_warnings);
  },
});

Deno.test({
  name: "every fidelity verdict and text matches evaluate_fidelity",
  ignore,
  fn() {
    // Prevents wrong or reworded fidelity advice for any datatype/fidelity combination.
    for (const e of cat.evaluate_fidelity) {
      const got = evaluateFidelity(e.in0, e.in1, e.out, e.fidelity);
      assert.deepEqual([got.verdict, got.advice], [e.evaluation, e.advice], JSON.stringify(e));
    }
  },
});

Deno.test({
  name: "every matmul advice case matches generate_matmul_advice",
  ignore,
  fn() {
    // Prevents any branch of the advice (bounds, grid size, block sizes, sparse) from drifting.
    for (const e of cat.generate_matmul_advice) {
      const got = generateMatmulAdvice({
        op_code: e["Sparse Matmul"]
          ? "SparseMatmulDeviceOperation active=4/8 x 32 x 32 x 32"
          : "MatmulDeviceOperation 32 x 32 x 32",
        bound: e.Bound,
        math_fidelity: `${e.math_fidelity} x`,
        // A null datatype in the catalog is Python None (an absent column), not NaN.
        input_0_datatype: e.in0 ?? undefined,
        input_1_datatype: e.in1 ?? undefined,
        output_datatype: e.out ?? undefined,
        cores: e.Cores,
        available_cores: e["Available Cores"],
        dram_sharded: e["DRAM Sharded"],
        flops_percent: e["FLOPs %"],
        input_0_memory: e["Input 0 Memory"],
        inner_dim_block_size: e["Inner Dim Block Size"],
        output_subblock_h: e["Output Subblock H"],
        output_subblock_w: e["Output Subblock W"],
        sparse_matmul: e["Sparse Matmul"],
        sparse_active_batches_missing: e["Sparse Active Batches Missing"],
      });
      assert.deepEqual(got, e.advice, JSON.stringify(e));
    }
  },
});

Deno.test({
  name: "numbers are rounded for display as Python's format() rounds them",
  ignore,
  fn() {
    // Prevents JavaScript's toFixed rounding (halves up) leaking into printed tool figures.
    let checked = 0;
    for (const e of cat["Cell.format"]) {
      if (typeof e.value !== "number" || e.as_text || !Number.isFinite(e.value)) continue;
      const want = e.unit ? e.formatted.slice(0, -(e.unit.length + 1)) : e.formatted;
      assert.equal(pyFormatFixed(e.value, e.decimals), want, JSON.stringify(e));
      checked++;
    }
    assert.ok(checked > 50);
  },
});

Deno.test({
  name: "cell coercion matches the tool: datatype sizes, tensor dims, core budgets",
  ignore,
  fn() {
    // Prevents a malformed cell from being truncated into a plausible value.
    for (const [dt, size] of Object.entries(cat.get_datatype_size as Json)) {
      assert.equal(getDatatypeSize(dt), size, dt);
    }
    for (const [repr, want] of Object.entries(cat.get_value_physical_logical as Json)) {
      assert.equal(getValuePhysicalLogical(fromRepr(repr) as CellValue), want, repr);
    }
    for (
      const [repr, want] of Object.entries(
        cat["get_value_physical_logical(is_physical=False)"] as Json,
      )
    ) {
      assert.equal(getValuePhysicalLogical(fromRepr(repr) as CellValue, false), want, repr);
    }
    for (
      const [repr, want] of Object.entries(cat["get_op_available_cores(fallback=120)"] as Json)
    ) {
      const v = fromRepr(repr);
      assert.equal(coreCountFromValue(v === ABSENT ? undefined : v, 120), want, repr);
    }
  },
});

Deno.test({
  name: "sub-device ids, text sanitising and formula escaping match the tool",
  ignore,
  fn() {
    // Prevents a control character or a formula in a profiler cell from reaching a table or CSV.
    for (const [repr, want] of Object.entries(cat.get_op_sub_device_id as Json)) {
      const v = fromRepr(repr);
      const got = v === ABSENT ? null : subDeviceIdFromText(pyStr(v));
      assert.equal(got, want, repr);
    }
    for (const [repr, want] of Object.entries(cat.sanitize_text as Json)) {
      const v = fromRepr(repr);
      assert.equal(typeof v === "string" ? sanitizeText(v) : v, want, repr);
    }
    for (const [repr, want] of Object.entries(cat.escape_csv_formula as Json)) {
      assert.equal(escapeCsvFormula(fromRepr(repr)), want, repr);
    }
  },
});

Deno.test({
  name: "invalid device durations are recognised as is_invalid_device_duration does",
  ignore,
  fn() {
    // Prevents trace-replay rows with huge durations from dominating totals.
    for (const e of cat.is_invalid_device_duration) {
      const got = isInvalidDeviceDuration(
        e["DEVICE KERNEL DURATION [ns]"],
        e["OP TO OP LATENCY [ns]"],
      );
      assert.equal(got, e.invalid, JSON.stringify(e));
      assert.equal(!got, e.mask_valid);
    }
  },
});

Deno.test({
  name: "the overlap sweep matches annotate_overlap on every catalog case",
  ignore,
  fn() {
    // Prevents concurrent ops from being double counted, or sequential ones flagged.
    for (const c of cat.annotate_overlap) {
      const inputs = c.input_rows.map((r: Json, i: number) => ({
        deviceId: r["DEVICE ID"] ?? NaN,
        opType: r["OP TYPE"] ?? null,
        fwStartCycle: r["DEVICE FW START CYCLE"] ?? NaN,
        fwEndCycle: r["DEVICE FW END CYCLE"] ?? NaN,
        fwDurationNs: r["DEVICE FW DURATION [ns]"] ?? NaN,
        kernelNs: r["DEVICE KERNEL DURATION [ns]"] ?? NaN,
        valid: c.valid_duration === null ? true : c.valid_duration[i],
      }));
      const got = annotateOverlap(inputs);
      assert.deepEqual(got.overlapNs, c.overlap_ns, c.case);
      assert.deepEqual(got.busyNs, c.busy_ns, c.case);
    }
  },
});
