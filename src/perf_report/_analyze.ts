/**
 * Internal: tt-perf-report's per-row analysis (`analyze_op`) — units, op-to-op gap, cores,
 * datatypes, block sizes, and the matmul/conv/halo models — producing a report row.
 * @module
 */

import { type ArchitectureSpec, type CsvFormat, shapeColumn } from "./arch.ts";
import {
  type CellValue,
  coreCountFromValue,
  finiteFloat,
  nonNegativeInt,
  sanitizeText,
  subDeviceIdFromText,
} from "./cells.ts";
import { AVAILABLE_WORKER_CORE_COUNT_COLUMN } from "./arch.ts";
import {
  type ConvModel,
  convModel,
  convRates,
  haloConfig,
  type MatmulModel,
  matmulModel,
  matmulRates,
} from "./_roofline.ts";
import { SHAPE_COLUMNS } from "./columns.ts";
import { type CsvColumn, NUMBER_CELL } from "./csv_table.ts";
import { derivedOf } from "../kit/derived.ts";
import {
  type CellReader,
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

/**
 * What `analyze_op` derives from a row's cells other than its times (its device duration and
 * op-to-op latency): the same for every row whose cells in {@link staticColumns} are the same,
 * so it is derived once for each such row and shared (strings included).
 */
interface StaticRow {
  rawOpCode: string;
  opCode: string;
  cores: number | null;
  subDeviceId: number | string | null;
  availableCores: number;
  mathFidelity: string | null;
  outDt: string | null;
  in0Dt: string | null;
  in1Dt: string | null;
  dramSharded: boolean;
  sparse: boolean;
  sparseMissing: boolean;
  sparseSource: string | null;
  boundAnalysis: PerfRow["bound_analysis"];
  matmul: MatmulModel | null;
  conv: ConvModel | null;
  input0Memory: string | null;
  inner: number | null;
  subH: number | null;
  subW: number | null;
  opType: string | null;
  isHostOp: boolean;
}

/** The columns whose cells the static part of `analyze_op` reads, in a report of `format`. */
function staticColumns(format: CsvFormat): string[] {
  return [
    "OP CODE",
    "OP TYPE",
    "CORE COUNT",
    "SUB DEVICE ID",
    AVAILABLE_WORKER_CORE_COUNT_COLUMN,
    "OUTPUT_0_DATATYPE",
    "INPUT_0_DATATYPE",
    "INPUT_1_DATATYPE",
    "ATTRIBUTES",
    "INPUT_0_MEMORY",
    "INPUT_1_MEMORY",
    "OUTPUT_0_MEMORY",
    "MATH FIDELITY",
    ...SHAPE_COLUMNS.map((c) => shapeColumn(c, format)),
  ];
}

/**
 * A reader of the static columns alone: the static part reading any other cell (a time, or a
 * column left out of the key) would share a figure between rows that differ, so it fails.
 */
class StaticCells implements CellReader {
  constructor(readonly reader: RowReader, readonly allowed: ReadonlySet<string>) {}
  #check(column: string): void {
    if (!this.allowed.has(column)) {
      throw new Error(`internal: analyze_op's static part read ${column}, which its key omits`);
    }
  }
  value(row: SourceRow, column: string) {
    this.#check(column);
    return this.reader.value(row, column);
  }
  dimension(row: SourceRow, column: string) {
    this.#check(column);
    return this.reader.dimension(row, column);
  }
  textOrNull(row: SourceRow, column: string) {
    this.#check(column);
    return this.reader.textOrNull(row, column);
  }
  text(row: SourceRow, column: string) {
    this.#check(column);
    return this.reader.text(row, column);
  }
  requiredText(row: SourceRow, column: string, why: string) {
    this.#check(column);
    return this.reader.requiredText(row, column, why);
  }
  requireColumn(row: SourceRow, column: string, why: string) {
    this.reader.requireColumn(row, column, why); // the header's, not a cell
  }
}

/** Each distinct row's static part, kept per frame and report settings. */
interface StaticParts {
  cells: StaticCells;
  /** The static columns the CSV has, read by code. */
  key: readonly CsvColumn[];
  /** By the hash of their cells, the rows made so far: their cells and static part. */
  made: Map<number, { cells: Float64Array; part: StaticRow }[]>;
  /** The cells of the row being looked up. */
  scratch: Float64Array;
}

const PARTS = new WeakMap<AnalysisContext, StaticParts>();

function staticParts(ctx: AnalysisContext): StaticParts {
  let parts = PARTS.get(ctx);
  if (parts !== undefined) return parts;
  const frame = ctx.reader.frame;
  parts = derivedOf(
    frame,
    `analyze_op:${ctx.format}:${JSON.stringify(ctx.spec)}:${ctx.activeExperts}`,
    () => {
      const columns = staticColumns(ctx.format);
      const key = columns.map((c) => frame.stored(c)).filter((c) => c !== undefined);
      return {
        cells: new StaticCells(ctx.reader, new Set(columns)),
        key,
        made: new Map(),
        scratch: new Float64Array(2 * key.length),
      };
    },
  );
  PARTS.set(ctx, parts);
  return parts;
}

/**
 * The static part of `analyze_op` for `row`, made once for each distinct row: rows are told
 * apart by their static cells' codes (and numbers), hashed, then compared whole.
 */
function staticOf(ctx: AnalysisContext, row: SourceRow): StaticRow {
  const parts = staticParts(ctx);
  const { key, scratch } = parts;
  const pos = row.pos;
  let h = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    const code = c.codes[pos];
    const n = code === NUMBER_CELL ? c.numbers![pos] : 0;
    scratch[2 * i] = code;
    scratch[2 * i + 1] = n;
    h = (Math.imul(h, 31) + code) | 0;
    h = (Math.imul(h, 31) + (n | 0)) | 0;
    h = (Math.imul(h, 31) + ((n / 4294967296) | 0)) | 0;
  }
  let bucket = parts.made.get(h);
  if (bucket !== undefined) {
    for (const made of bucket) {
      let same = true;
      for (let k = 0; k < scratch.length; k++) {
        if (made.cells[k] !== scratch[k]) {
          same = false;
          break;
        }
      }
      if (same) return made.part;
    }
  } else parts.made.set(h, bucket = []);
  const part = staticRow(ctx, parts.cells, row);
  bucket.push({ cells: scratch.slice(), part });
  return part;
}

function staticRow(ctx: AnalysisContext, reader: CellReader, row: SourceRow): StaticRow {
  const { format, spec } = ctx;
  const rawOpCode = reader.requiredText(row, "OP CODE", WHY);
  let opCode = sanitizeText(rawOpCode);
  let cores = coreCountFromValue(reader.value(row, "CORE COUNT"));
  const subDeviceText = reader.textOrNull(row, "SUB DEVICE ID");
  const subDeviceId = subDeviceText === undefined ? null : subDeviceIdFromText(subDeviceText);
  const availableCores = coreCountFromValue(
    reader.value(row, AVAILABLE_WORKER_CORE_COUNT_COLUMN),
    spec.worker_cores,
  )!;
  const dt = (c: string): Datatype => reader.textOrNull(row, c);
  const outDt = dt("OUTPUT_0_DATATYPE");
  const in0Dt = dt("INPUT_0_DATATYPE");
  const in1Dt = dt("INPUT_1_DATATYPE");
  let mathFidelity: string | null = (
    (in0Dt != null ? shortText(in0Dt) : "") +
    (in1Dt != null ? `, ${shortText(in1Dt)}` : "") +
    (outDt != null ? ` => ${shortText(outDt)}` : "")
  ).trim();

  let dramSharded = false;
  let sparse = false;
  let sparseMissing = false;
  let sparseSource: string | null = null;
  let boundAnalysis: PerfRow["bound_analysis"] = "none";
  let matmul: MatmulModel | null = null;
  let conv: ConvModel | null = null;
  const fullFidelity = (f: CellValue, text: string) =>
    truthy(f)
      ? `${text} ${shortText(in0Dt)} x ${shortText(in1Dt)} => ${shortText(outDt)}`
        .trim()
      : null;

  if (opCode.includes("Matmul")) {
    boundAnalysis = "full";
    const m = matmul = matmulModel(reader, row, rawOpCode, format, spec, ctx.activeExperts);
    dramSharded = m.dramSharded;
    sparse = m.sparse;
    sparseMissing = m.sparseMissing;
    sparseSource = m.sparseSource;
    opCode = `${opCode} ${m.size}`;
    cores = m.cores;
    mathFidelity = fullFidelity(m.mathFidelity, m.mathFidelityText);
  } else if (opCode.includes("OptimizedConvNew") || opCode.includes("Conv2d")) {
    boundAnalysis = "flops_only";
    const c = conv = convModel(reader, row, format, spec);
    opCode = `${opCode} ${c.size} ${c.config}`;
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
    rawOpCode,
    opCode,
    cores,
    subDeviceId,
    availableCores,
    mathFidelity,
    outDt: outDt ?? null,
    in0Dt: in0Dt ?? null,
    in1Dt: in1Dt ?? null,
    dramSharded,
    sparse,
    sparseMissing,
    sparseSource,
    boundAnalysis,
    matmul,
    conv,
    input0Memory: input0Memory ?? null,
    inner,
    subH,
    subW,
    opType,
    isHostOp: isHostOp(opCode),
  };
}

/** `analyze_op` for one row; `total_percent`, `bound` and `advice` are filled in later. */
export function analyzeOp(
  ctx: AnalysisContext,
  row: SourceRow,
  prev: PreviousRow | null,
): PerfRow {
  const { reader, spec } = ctx;
  const s = staticOf(ctx, row);
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

  let dram: number | null = null;
  let dramPercent: number | null = null;
  let flops: number | null = null;
  let flopsPercent: number | null = null;
  let dramBytes: number | null = null;
  if (s.matmul !== null) {
    const m = matmulRates(s.matmul, durationNs, spec);
    dram = m.dramGbS;
    dramPercent = m.dramPercent;
    flops = m.flops !== null ? m.flops / 1e12 : null;
    flopsPercent = m.flopsPercent;
    dramBytes = m.dramBytes;
  } else if (s.conv !== null) {
    const c = convRates(s.conv, durationNs);
    flops = c.flops !== null ? c.flops / 1e12 : null;
    flopsPercent = c.flopsPercent;
  }

  return {
    id: rowIdOf(row.pos),
    total_percent: null,
    bound: "",
    op_code: s.opCode,
    raw_op_code: s.rawOpCode,
    op_type: s.opType,
    device: nonNegativeInt(reader.frame.numeric(row.pos, "DEVICE ID")),
    device_time: deviceTime,
    op_to_op_gap: gap,
    cores: s.cores,
    dram,
    dram_percent: dramPercent,
    flops,
    flops_percent: flopsPercent,
    math_fidelity: s.mathFidelity,
    output_datatype: s.outDt,
    input_0_datatype: s.in0Dt,
    input_1_datatype: s.in1Dt,
    dram_sharded: s.dramSharded,
    input_0_memory: s.input0Memory,
    inner_dim_block_size: s.inner,
    output_subblock_h: s.subH,
    output_subblock_w: s.subW,
    global_call_count: finiteFloat(reader.value(row, "GLOBAL CALL COUNT")),
    sub_device_id: s.subDeviceId,
    available_cores: s.availableCores,
    op_category: null,
    bound_analysis: s.boundAnalysis,
    overlap: overlapBeforeGate,
    advice: null,
    is_signpost: false,
    is_host_op: s.isHostOp,
    merged_ids: row.merged,
    internal: {
      busy_time_before_gate: busyBeforeGate,
      overlap_before_gate: overlapBeforeGate,
      dram_bytes: dramBytes,
      invalid_device_duration: invalid,
      sparse_matmul: s.sparse,
      sparse_active_batches_missing: s.sparseMissing,
      sparse_active_source: s.sparseSource,
    },
  };
}
