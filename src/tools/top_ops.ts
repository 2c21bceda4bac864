/**
 * `top_ops`: the costliest operations of a performance report by one metric, over the whole
 * report or a signpost window, read exactly as tt-perf-report reports them.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import {
  capped,
  csvDeviceArg,
  handleArg,
  helped,
  includeArg,
  limitArg,
  MAX_LIMIT,
  opCodeFilterArg,
  rangeArgs,
  viewArgsOf,
} from "./args.ts";
import { nextIf } from "./_next.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import { DEVICE_LOG_FILE } from "../session/report_files.ts";
import {
  performanceTable,
  type Projection,
  subDeviceCaveat,
  type TimingCaveat,
  timingCaveat,
} from "../analysis/performance.ts";
import { round3 } from "../kit/rounding.ts";
import { derivedOf } from "../kit/derived.ts";
import { TopK } from "../kit/top_k.ts";
import {
  type Bound,
  type BoundAnalysis,
  cellOf,
  type CsvTable,
  type OpCategory,
  type PerfRow,
  PythonSum,
  rowIndexOf,
} from "../perf_report/mod.ts";
import {
  operationIdOf,
  type OperationLink,
  operationLink,
  type OperationLinkBlock,
  operationLinkBlock,
} from "../analysis/operation_link.ts";
import {
  type DetailAnswerKeys,
  type IncludedFields,
  MAX_DETAILED_ROWS,
  type RowDetail,
  rowDetail,
} from "../analysis/row_detail.ts";
import { architectureWarnings, reportArchitecture } from "../analysis/architecture.ts";
import type { FlagBasis } from "../analysis/row_detail.ts";
import type { ReportContext } from "./tool.ts";
import { reportOver, sayHostTime } from "./_window.ts";
import { type DeviceSpread, deviceSpreads } from "../analysis/device_spread.ts";
import { type OpFilter, opFilter } from "../analysis/op_filter.ts";

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
  /** The row's device time, µs, whatever the metric ranked by. */
  device_time?: number | null;
  /** tt-perf-report's core count: the CSV's CORE COUNT unless `cores_source` says otherwise. */
  cores: number | null;
  /**
   * Only where cores is not the CSV's CORE COUNT (note top_ops.rows): tt-perf-report's
   * substitution for a DRAM-sharded matmul, with the CSV's own count in `csv_core_count`.
   */
  cores_source?: "dram_sharded_matmul_cores";
  csv_core_count?: number | null;
  bound: Exclude<Bound, ""> | null;
  bound_analysis: BoundAnalysis;
  op_category: OpCategory | null;
  device: string | null;
  sub_device_id: string | null;
  op_type: string | null;
  /** The profiler operation the row links to, or null. */
  operation_id: number | null;
  /** A merged row's per-device device time: fastest and slowest device. */
  device_spread?: DeviceSpread;
  /** `include` utilisation: DRAM bandwidth reached, % of the architecture's. */
  dram_percent?: number | null;
  /** `include` utilisation: FLOPs reached, % of the architecture's. */
  flops_percent?: number | null;
  /** `include` config: the math fidelity, null when the CSV's is not one. */
  math_fidelity?: string | null;
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
  /** Which definition of an operation's time the figures use (note basis.<basis>). */
  basis: "device_kernel_duration";
  operation_link: OperationLinkBlock;
  /** The op_code filter applied: what it matched. */
  op_filter?: OpFilter["said"];
}

/** A row with its value of the metric. */
interface Ranked {
  row: PerfRow;
  value: number;
}

const input = z.strictObject({
  handle: handleArg,
  by: helped(
    z.enum(["device_time", "op_to_op_gap", "total_percent", "flops", "dram", "cores"])
      .default("device_time"),
    "The metric to rank rows by, highest first.",
  ),
  limit: limitArg("Rows"),
  ...rangeArgs,
  device: csvDeviceArg,
  op_code: opCodeFilterArg,
  order: helped(
    z.literal("ascending").optional(),
    "ascending: lowest first, where a low value is the finding (cores); default highest first.",
  ),
  include: includeArg,
});

/** The `top_ops` tool. */
export const topOps = reportTool({
  name: "top_ops",
  title: "Costliest operations",
  summary: "Rank a performance report's operations by one metric, highest first, as " +
    "tt-perf-report computes it (device time, gap, Total %, FLOPs, DRAM, cores).",
  description: "Costliest operations by device time, gap, total %, FLOPs, DRAM or cores, as " +
    "tt-perf-report computes them; include says why.",
  input,
  reads: ["performance_csv"],
  cannotAnswer: performanceCsvUnavailable,
  fitList: "ops",
  async handler(args, ctx): Promise<TopOpsAnswer> {
    const { report } = ctx;
    const { perf, projection } = reportOver(ctx, args);
    const link = await operationLink(ctx);
    const groups = [...new Set(args.include ?? [])];
    const detail = groups.length > 0 ? rowDetail(report, perf, groups) : null;
    const cap = detail ? Math.min(capped(args.limit), MAX_DETAILED_ROWS) : capped(args.limit);
    const filter = args.op_code === undefined ? null : opFilter(ctx.tool, perf.rows, args.op_code);
    const rows = filter ? filter.rows : perf.rows;
    const { ranked, eligible } = rankRows(rows, args.by, args.order === "ascending", cap);
    const table = performanceTable(ctx);
    const detailKeys = detail?.answerKeys(perf.rows);
    if (ADDITIVE.has(args.by)) ctx.parts.caveat(subDeviceCaveat(perf));
    const spreads = deviceSpreads(ctx, perf);
    sayHostTime(ctx, perf);
    const timed = timingCaveat(table, perf);
    if (timed.rows_without_device_time) ctx.parts.note("timing.no_device_time");
    sayAssumed(ctx, detailKeys?.flag_basis);
    const first = ranked[0]?.row;
    if (first) {
      const label = first.op_code || first.raw_op_code;
      nextIf(ctx, {
        tool: "lower_bounds",
        why: `how far ${label} is from its theoretical limit, and on how many cores it ran`,
        arguments: { handle: args.handle, op_code: label, ...viewArgsOf(args) },
      });
      nextIf(ctx, {
        tool: "core_spread",
        why: `how row ${first.id}'s kernel time fell across its cores`,
        arguments: { handle: args.handle, perf_id: first.id },
      });
    }
    ctx.parts.note("basis.device_kernel_duration", "top_ops.rows");
    ctx.parts.cut("ops", {
      total: eligible,
      returned: ranked.length,
      ...cutBy(args.limit, detail !== null),
    });
    return {
      handle: args.handle,
      metric: args.by,
      op_count: perf.rows.length,
      returned: ranked.length,
      ops: ranked.map((r) => opRow(r, args.by, link, detail, table, spreads)),
      projection,
      ...(filter ? { op_filter: filter.said } : {}),
      basis: "device_kernel_duration",
      ...detailKeys,
      ...metricTotal(rows, args.by),
      ...timed,
      operation_link: operationLinkBlock(
        report,
        link,
        report.inventory.performance?.whole?.rows ?? perf.rows,
        { ranged: perf !== report.inventory.performance?.whole },
      ),
    };
  },
});

/**
 * The first `cap` rows by `by`, highest first (lowest first when `ascending`), and how many
 * rows have a value of it: rows without a finite value are left out, and ties keep report
 * order. Only the kept rows are ordered, not every row of the report.
 */
function rankRows(
  rows: readonly PerfRow[],
  by: TopOpsMetric,
  ascending: boolean,
  cap: number,
): { ranked: Ranked[]; eligible: number } {
  const metric = METRICS[by];
  const top = new TopK<Ranked>(
    cap,
    ascending ? (a, b) => a.value - b.value : (a, b) => b.value - a.value,
  );
  let eligible = 0;
  // A row is made a candidate only when it would be kept: most rows are not.
  const probe: Ranked = { row: rows[0], value: 0 };
  for (const row of rows) {
    const value = metric(row);
    if (value === null || !Number.isFinite(value)) continue;
    eligible++;
    probe.row = row;
    probe.value = value;
    if (top.wouldKeep(probe)) top.offer({ row, value });
  }
  return { ranked: top.items(), eligible };
}

/** Why rows past the cap were cut, and how to get them. */
function cutBy(
  limit: number,
  included: boolean,
): { reason: "limit" | "include"; more: string } {
  if (included && capped(limit) > MAX_DETAILED_ROWS) {
    return {
      reason: "include",
      more: `include caps rows at ${MAX_DETAILED_ROWS}: ask again without include for up to ` +
        `${MAX_LIMIT} rows, or narrow the rows with op_code, a pass or a range`,
    };
  }
  return {
    reason: "limit",
    more: limit < MAX_LIMIT
      ? `pass a higher limit (at most ${MAX_LIMIT})`
      : `${MAX_LIMIT} is the most one answer lists: narrow the rows with op_code, a pass or a range`,
  };
}

/**
 * Says what the answer's figures rest on that the report did not say: tt-perf-report's
 * architecture (its roofline fields: bound, DRAM and FLOPs) and, with flags, the device's core
 * count when it was defaulted.
 */
function sayAssumed(ctx: ReportContext, basis: FlagBasis | undefined): void {
  const read = ctx.report.inventory.performance!.csvRead!;
  const whole = ctx.report.inventory.performance!.whole!;
  if (!read.ok) return;
  const arch = reportArchitecture(read.table, whole);
  const warnings = architectureWarnings(whole);
  if (warnings.length > 0) {
    ctx.parts.caveat(
      `tt-perf-report warned, and the roofline fields rest on it: ${warnings.join(" ")}`,
    );
  }
  if (arch.source === "assumed") {
    ctx.parts.assume("architecture", {
      assumed: arch.spec.name,
      why: `${arch.why}; every row's bound, DRAM and FLOPs figures rest on it`,
      override: "re-export the CSV with a tt-metal that writes DEVICE ARCH; lower_bounds takes " +
        "arch for its own limit",
    });
  }
  const defaulted = basis?.max_cores_source === "fallback_default" ||
    (basis?.max_cores_source === "architecture_default" && deviceLogArch(ctx) === null);
  if (basis && defaulted) {
    ctx.parts.assume("max_cores", {
      assumed: `${basis.max_cores} (Wormhole's)`,
      why: "no device log gives the device's Max Compute Cores or architecture, so the flags' " +
        "core capacity for rows without AVAILABLE WORKER CORE COUNT is Wormhole's, as the " +
        "performance view defaults it",
      override: `load the report with its ${DEVICE_LOG_FILE.name} beside the CSV`,
    });
  }
}

function deviceLogArch(ctx: ReportContext): string | null {
  return ctx.report.inventory.performance?.deviceLog?.capture.ARCH ?? null;
}

/** `<by>_total`, the metric summed over every row read, when `by` is additive. */
function metricTotal(
  rows: readonly PerfRow[],
  by: TopOpsMetric,
): Partial<Record<`${Additive}_total`, number | null>> {
  if (!ADDITIVE.has(by)) return {};
  return derivedOf(rows, `total:${by}`, () => {
    const metric = METRICS[by];
    const sum = new PythonSum();
    for (const r of rows) {
      const v = metric(r);
      if (v !== null && Number.isFinite(v)) sum.add(v);
    }
    return { [`${by}_total`]: round3(sum.value) };
  });
}

/** One answer row: the operation, its value of `by`, its link, and the included fields. */
function opRow(
  { row, value }: Ranked,
  by: TopOpsMetric,
  link: OperationLink,
  detail: RowDetail | null,
  table: CsvTable,
  spreads: ReadonlyMap<number, DeviceSpread>,
): TopOpsRow {
  const spread = spreads.get(row.id);
  const own: TopOpsRow = {
    id: String(row.id),
    op_code: row.op_code || row.raw_op_code,
    ...metricValue(by, value),
    ...(by === "device_time" ? {} : { device_time: round3(row.device_time) }),
    cores: row.cores,
    ...coresSource(row, table),
    bound: row.bound === "" ? null : row.bound,
    bound_analysis: row.bound_analysis,
    op_category: row.op_category,
    device: row.device === null ? null : String(row.device),
    sub_device_id: row.sub_device_id === null ? null : String(row.sub_device_id),
    op_type: row.op_type,
    operation_id: operationIdOf(link, row.id),
    ...(spread ? { device_spread: spread } : {}),
  };
  return detail ? { ...own, ...detail.fieldsOf(row, own) } : own;
}

/** What a row's core count is: the CSV's, or tt-perf-report's DRAM-sharded substitution. */
function coresSource(
  row: PerfRow,
  table: CsvTable,
): Pick<TopOpsRow, "cores_source" | "csv_core_count"> {
  if (row.cores === null || !row.dram_sharded) return {};
  const col = table.header.indexOf("CORE COUNT");
  const csv = col < 0 ? NaN : Number(cellOf(table, rowIndexOf(row.id), col).trim() || NaN);
  return {
    cores_source: "dram_sharded_matmul_cores",
    csv_core_count: Number.isFinite(csv) ? csv : null,
  };
}

/** `value` keyed by the metric's name: a core count as it is, anything else rounded. */
function metricValue(by: TopOpsMetric, value: number): MetricValue {
  return { [by]: by === "cores" ? value : round3(value) };
}
