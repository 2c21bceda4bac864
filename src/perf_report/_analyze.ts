/**
 * Internal: tt-perf-report's per-row analysis (`analyze_op`) — units, op-to-op gap, cores,
 * datatypes, block sizes, and the matmul/conv/halo models — producing a report row.
 * @module
 */

import type { ArchitectureSpec, CsvFormat } from "./arch.ts";
import {
  type CellValue,
  coreCountFromValue,
  finiteFloat,
  nonNegativeInt,
  sanitizeText,
  subDeviceIdFromText,
} from "./cells.ts";
import { AVAILABLE_WORKER_CORE_COUNT_COLUMN } from "./arch.ts";
import { analyzeConv, analyzeMatmul, haloConfig } from "./_roofline.ts";
import {
  INVALID_OP_TO_OP_GAP_MIN_NS,
  KERNEL_DURATION,
  OP_TO_OP_LATENCY,
  type RowReader,
  type SourceRow,
} from "./_source.ts";
import type { PerfRow } from "./types.ts";
import { isHostOp } from "./_rows.ts";
import { rowIdOf } from "./row_id.ts";

const SHORT_NAMES: Readonly<Record<string, string>> = {
  FLOAT32: "FP32",
  BFLOAT16: "BF16",
  BFLOAT8_B: "BFP8",
  BFLOAT4_B: "BFP4",
};

/** A datatype cell: text, null for NaN, undefined when the column is absent. */
type Datatype = string | null | undefined;

/** How the tool prints `short_name(v)` in an f-string. */
function shortText(v: Datatype): string {
  if (v === undefined) return "None";
  if (v === null) return "nan";
  return SHORT_NAMES[v] ?? v;
}

/** Python truthiness of a pandas value (NaN is truthy). */
function truthy(v: CellValue): boolean {
  return !(v === 0 || v === "" || v === false);
}

/** Everything the analysis needs besides the row. */
export interface AnalysisContext {
  reader: RowReader;
  format: CsvFormat;
  spec: ArchitectureSpec;
  activeExperts: number | null;
}

/** The previous non-signpost row, for the gap rule. */
export interface PreviousRow {
  invalid: boolean;
}

const WHY = "for every row it reports";

/** `analyze_op` for one row; `total_percent`, `bound` and `advice` are filled in later. */
export function analyzeOp(
  ctx: AnalysisContext,
  row: SourceRow,
  prev: PreviousRow | null,
): PerfRow {
  const { reader, format, spec } = ctx;
  const id = rowIdOf(row.pos);
  const rawOpCode = reader.requiredText(row, "OP CODE", WHY);
  let opCode = sanitizeText(rawOpCode);
  let cores = coreCountFromValue(reader.value(row, "CORE COUNT"));
  const subDeviceText = reader.textOrNull(row, "SUB DEVICE ID");
  const subDeviceId = subDeviceText === undefined ? null : subDeviceIdFromText(subDeviceText);
  const availableCores = coreCountFromValue(
    reader.value(row, AVAILABLE_WORKER_CORE_COUNT_COLUMN),
    spec.worker_cores,
  )!;
  const invalid = reader.isInvalidDuration(row);
  // `get_analysis_duration_ns`, with the validity just found.
  const durationNs = invalid ? null : reader.numeric(row, KERNEL_DURATION);
  const deviceTime = durationNs !== null ? durationNs / 1000 : null;

  const rawGapNs = reader.numeric(row, OP_TO_OP_LATENCY);
  const eitherInvalid = invalid || (prev !== null && prev.invalid);
  const gap = prev !== null && rawGapNs !== null &&
      !(eitherInvalid && Math.abs(rawGapNs) > INVALID_OP_TO_OP_GAP_MIN_NS)
    ? rawGapNs / 1000
    : null;

  let overlapBeforeGate: number | null = null;
  let busyBeforeGate: number | null = null;
  if (deviceTime !== null) {
    const overlapNs = finiteFloat(row.overlapNs);
    const busyNs = finiteFloat(row.busyNs);
    overlapBeforeGate = overlapNs ? overlapNs / 1000 : null;
    busyBeforeGate = busyNs !== null ? busyNs / 1000 : null;
  }

  const dt = (c: string): Datatype => reader.textOrNull(row, c);
  const outDt = dt("OUTPUT_0_DATATYPE");
  const in0Dt = dt("INPUT_0_DATATYPE");
  const in1Dt = dt("INPUT_1_DATATYPE");
  let mathFidelity: string | null = (
    (in0Dt != null ? shortText(in0Dt) : "") +
    (in1Dt != null ? `, ${shortText(in1Dt)}` : "") +
    (outDt != null ? ` => ${shortText(outDt)}` : "")
  ).trim();

  let dram: number | null = null;
  let dramPercent: number | null = null;
  let flops: number | null = null;
  let flopsPercent: number | null = null;
  let dramBytes: number | null = null;
  let dramSharded = false;
  let sparse = false;
  let sparseMissing = false;
  let sparseSource: string | null = null;
  let boundAnalysis: PerfRow["bound_analysis"] = "none";
  const fullFidelity = (f: CellValue, text: string) =>
    truthy(f)
      ? `${text} ${shortText(in0Dt)} x ${shortText(in1Dt)} => ${shortText(outDt)}`
        .trim()
      : null;

  if (opCode.includes("Matmul")) {
    boundAnalysis = "full";
    const m = analyzeMatmul(reader, row, rawOpCode, format, spec, ctx.activeExperts);
    dramSharded = m.dramSharded;
    sparse = m.sparse;
    sparseMissing = m.sparseMissing;
    sparseSource = m.sparseSource;
    opCode = `${opCode} ${m.size}`;
    dram = m.dramGbS;
    dramPercent = m.dramPercent;
    flops = m.flops !== null ? m.flops / 1e12 : null;
    flopsPercent = m.flopsPercent;
    dramBytes = m.dramBytes;
    cores = m.cores;
    mathFidelity = fullFidelity(m.mathFidelity, m.mathFidelityText);
  } else if (opCode.includes("OptimizedConvNew") || opCode.includes("Conv2d")) {
    boundAnalysis = "flops_only";
    const c = analyzeConv(reader, row, format, spec);
    opCode = `${opCode} ${c.size} ${c.config}`;
    flops = c.flops !== null ? c.flops / 1e12 : null;
    flopsPercent = c.flopsPercent;
    mathFidelity = fullFidelity(c.mathFidelity, c.mathFidelityText);
  } else if (opCode.includes("HaloDeviceOperation")) {
    opCode = `${opCode} ${haloConfig(reader.textOrNull(row, "ATTRIBUTES") ?? "")}`;
  }

  const input0Memory = reader.textOrNull(row, "INPUT_0_MEMORY");
  if (input0Memory === undefined) reader.requireColumn(row, "INPUT_0_MEMORY", WHY);
  const attributesText = reader.textOrNull(row, "ATTRIBUTES");
  if (attributesText === undefined) reader.requireColumn(row, "ATTRIBUTES", WHY);
  const attributes = attributesText ?? "";
  let inner: number | null = null;
  let subH: number | null = null;
  let subW: number | null = null;
  if (attributes.includes("program_config")) {
    const grab = (re: RegExp) => {
      const match = re.exec(attributes);
      return match ? Number(match[1]) : null;
    };
    inner = grab(/in0_block_w=(\d+)/);
    subH = grab(/out_subblock_h=(\d+)/);
    subW = grab(/out_subblock_w=(\d+)/);
  }
  reader.requireColumn(row, "GLOBAL CALL COUNT", WHY);
  const opType = reader.textOrNull(row, "OP TYPE") ?? null;

  return {
    id,
    total_percent: null,
    bound: "",
    op_code: opCode,
    raw_op_code: rawOpCode,
    op_type: opType,
    device: nonNegativeInt(reader.frame.numeric(row.pos, "DEVICE ID")),
    device_time: deviceTime,
    op_to_op_gap: gap,
    cores,
    dram,
    dram_percent: dramPercent,
    flops,
    flops_percent: flopsPercent,
    math_fidelity: mathFidelity,
    output_datatype: outDt ?? null,
    input_0_datatype: in0Dt ?? null,
    input_1_datatype: in1Dt ?? null,
    dram_sharded: dramSharded,
    input_0_memory: input0Memory ?? null,
    inner_dim_block_size: inner,
    output_subblock_h: subH,
    output_subblock_w: subW,
    global_call_count: finiteFloat(reader.value(row, "GLOBAL CALL COUNT")),
    sub_device_id: subDeviceId,
    available_cores: availableCores,
    op_category: null,
    bound_analysis: boundAnalysis,
    overlap: overlapBeforeGate,
    advice: null,
    is_signpost: false,
    is_host_op: isHostOp(opCode),
    merged_ids: row.merged,
    internal: {
      busy_time_before_gate: busyBeforeGate,
      overlap_before_gate: overlapBeforeGate,
      dram_bytes: dramBytes,
      invalid_device_duration: invalid,
      sparse_matmul: sparse,
      sparse_active_batches_missing: sparseMissing,
      sparse_active_source: sparseSource,
    },
  };
}
