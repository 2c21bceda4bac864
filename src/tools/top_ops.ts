/**
 * `top_ops`: the costliest operations of a performance report by one metric, over the whole
 * report or a signpost window, read exactly as tt-perf-report reports them.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { capped, handleArg, limitArg, rangeArgs } from "./args.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  isRanged,
  performanceReport,
  performanceTable,
  type Projection,
  subDeviceCaveat,
  type TimingCaveat,
  timingCaveat,
} from "../analysis/performance.ts";
import { round3 } from "../kit/figures.ts";
import { pythonSum } from "../perf_report/summation.ts";
import type { Bound, BoundAnalysis, PerfRow } from "../perf_report/types.ts";
import type { OpCategory } from "../perf_report/categories.ts";
import {
  operationIdOf,
  type OperationLink,
  operationLink,
  type OperationLinkBlock,
  operationLinkBlock,
} from "../analysis/operation_link.ts";
import { INCLUDE_GROUPS } from "../analysis/include_groups.ts";
import {
  type DetailAnswerKeys,
  type IncludedFields,
  MAX_DETAILED_ROWS,
  type RowDetail,
  rowDetail,
} from "../analysis/row_detail.ts";

/** The metrics rows can be ranked by, with the row field each reads. */
const METRICS = {
  device_time: (r: PerfRow) => r.device_time,
  op_to_op_gap: (r: PerfRow) => r.op_to_op_gap,
  total_percent: (r: PerfRow) => r.total_percent,
  flops: (r: PerfRow) => r.flops,
  dram: (r: PerfRow) => r.dram,
  cores: (r: PerfRow) => r.cores,
} as const;

/** A metric rows can be ranked by. */
export type TopOpsMetric = keyof typeof METRICS;

/** The metrics a sum over rows means something for. */
type Additive = "device_time" | "op_to_op_gap" | "total_percent";
const ADDITIVE: ReadonlySet<TopOpsMetric> = new Set<Additive>([
  "device_time",
  "op_to_op_gap",
  "total_percent",
]);

/** A row's value of the metric ranked by, keyed by the metric's name. */
type MetricValue = Partial<Record<TopOpsMetric, number | null>>;

/** One ranked operation: its value of the metric ranked by, and the fields `include` adds. */
export interface TopOpsRow extends MetricValue, IncludedFields {
  /** The performance CSV line, not a profiler id. */
  id: string;
  op_code: string;
  cores: number | null;
  bound: Exclude<Bound, ""> | null;
  bound_analysis: BoundAnalysis;
  op_category: OpCategory | null;
  device: string | null;
  sub_device_id: string | null;
  op_type: string | null;
  /** The profiler operation the row links to, or null. */
  operation_id: number | null;
}

/** The answer of `top_ops`; `<metric>_total` only for an additive metric. */
export interface TopOpsAnswer
  extends DetailAnswerKeys, TimingCaveat, Partial<Record<`${Additive}_total`, number | null>> {
  handle: string;
  metric: TopOpsMetric;
  op_count: number;
  returned: number;
  ops: TopOpsRow[];
  projection: Projection;
  operation_link: OperationLinkBlock;
}

/** A row with its value of the metric. */
interface Ranked {
  row: PerfRow;
  value: number;
}

const input = z.strictObject({
  handle: handleArg,
  by: z.enum(["device_time", "op_to_op_gap", "total_percent", "flops", "dram", "cores"])
    .default("device_time")
    .describe(
      "device_time (µs), op_to_op_gap (µs before the op), total_percent (share of device time " +
        "plus gaps), flops (TFLOPs), dram (GB/s) or cores (core count).",
    ),
  limit: limitArg("Rows"),
  ...rangeArgs,
  include: z.array(z.enum(INCLUDE_GROUPS)).optional().describe(
    "Add the fields that say why each operation took its time: config (fidelity, datatypes, " +
      "memory, block sizes), utilisation (DRAM, FLOPs, perf-model times), noc, riscs (per-RISC " +
      "kernel times, CB waits), cores (per-core spread, launch skew), dispatch, cache (program " +
      "hash, cache hit), kernels, advice (tt-perf-report's), flags (the performance view's " +
      "heuristic flags with their evidence). Rows are then capped at 25.",
  ),
});

/** The `top_ops` tool. */
export const topOps = reportTool({
  name: "top_ops",
  title: "Costliest operations",
  summary: "Rank a performance report's operations by one metric, highest first, as " +
    "tt-perf-report computes it (device time, gap, Total %, FLOPs, DRAM, cores).",
  description:
    "Rank a performance report's operations by one metric, highest first, as tt-perf-report " +
    "computes it: devices merged (the slowest device's row; collectives averaged), host ops and " +
    "signposts kept, the whole report unless start_signpost/end_signpost narrow it. A row without " +
    "a value for the metric is left out of the ranking. Each row's id is its line in the " +
    "performance CSV, not a profiler id: pass a row's operation_id (set when the handle holds " +
    "both reports and they link; operation_link says how) to operation_detail or " +
    "operation_provenance, never its id. A null bound is not a clean bill of health: " +
    "bound_analysis says whether a roofline model ran at all (full for matmuls, flops_only for " +
    "convolutions, none otherwise). Totals are given only for device_time, op_to_op_gap and " +
    "total_percent, summed over every row read, not just those returned.",
  input,
  reads: ["performance_csv"],
  cannotAnswer: performanceCsvUnavailable,
  handler(args, ctx): TopOpsAnswer {
    const { report } = ctx;
    const range = { start_signpost: args.start_signpost, end_signpost: args.end_signpost };
    const { perf, projection } = performanceReport(ctx, range);
    const link = operationLink(report);
    const groups = [...new Set(args.include ?? [])];
    const detail = groups.length > 0 ? rowDetail(report, perf, groups) : null;
    const cap = detail ? Math.min(capped(args.limit), MAX_DETAILED_ROWS) : capped(args.limit);
    const ranked = rankRows(perf.rows, args.by, cap);
    if (ADDITIVE.has(args.by)) ctx.parts.caveat(subDeviceCaveat(perf));
    return {
      handle: args.handle,
      metric: args.by,
      op_count: perf.rows.length,
      returned: ranked.length,
      ops: ranked.map((r) => opRow(r, args.by, link, detail)),
      projection,
      ...detail?.answerKeys(perf.rows),
      ...metricTotal(perf.rows, args.by),
      ...timingCaveat(performanceTable(ctx), perf),
      operation_link: operationLinkBlock(
        report,
        link,
        report.inventory.performance?.whole?.rows ?? perf.rows,
        { ranged: isRanged(range) },
      ),
    };
  },
});

/**
 * The `cap` rows with the highest value of `by`, highest first; rows without a finite value
 * are left out, and ties keep report order (the sort is stable).
 */
function rankRows(rows: readonly PerfRow[], by: TopOpsMetric, cap: number): Ranked[] {
  const metric = METRICS[by];
  return rows
    .map((row) => ({ row, value: metric(row) }))
    .filter((x): x is Ranked => x.value !== null && Number.isFinite(x.value))
    .sort((a, b) => b.value - a.value)
    .slice(0, cap);
}

/** `<by>_total`, the metric summed over every row read, when `by` is additive. */
function metricTotal(
  rows: readonly PerfRow[],
  by: TopOpsMetric,
): Partial<Record<`${Additive}_total`, number | null>> {
  if (!ADDITIVE.has(by)) return {};
  const values = rows.map(METRICS[by]).filter((v): v is number => v !== null && Number.isFinite(v));
  return { [`${by}_total`]: round3(pythonSum(values)) };
}

/** One answer row: the operation, its value of `by`, its link, and the included fields. */
function opRow(
  { row, value }: Ranked,
  by: TopOpsMetric,
  link: OperationLink,
  detail: RowDetail | null,
): TopOpsRow {
  const own: TopOpsRow = {
    id: String(row.id),
    op_code: row.op_code || row.raw_op_code,
    ...metricValue(by, value),
    cores: row.cores,
    bound: row.bound === "" ? null : row.bound,
    bound_analysis: row.bound_analysis,
    op_category: row.op_category,
    device: row.device === null ? null : String(row.device),
    sub_device_id: row.sub_device_id === null ? null : String(row.sub_device_id),
    op_type: row.op_type,
    operation_id: operationIdOf(link, row.id),
  };
  return detail ? { ...own, ...detail.fieldsOf(row, own) } : own;
}

/** `value` keyed by the metric's name: a core count as it is, anything else rounded. */
function metricValue(by: TopOpsMetric, value: number): MetricValue {
  return { [by]: by === "cores" ? value : round3(value) };
}
