/**
 * The performance rows one profiler operation launched, as operation_detail lists them when
 * its handle holds both reports and they link: each row's device time in microseconds and its
 * share of the report's device time, with the operation's own total, share and slowest row
 * over every row it launched (even those past the cap on the list).
 *
 * @module
 */
import {
  type Bound,
  type BoundAnalysis,
  type OpCategory,
  type PerfRow,
  pythonSum,
} from "../perf_report/mod.ts";
import type { IncludeGroup } from "./include_groups.ts";
import type { LoadedReport } from "../session/handles.ts";
import type { OperationLink } from "./operation_link.ts";
import type { MatchedOn } from "./_link_align.ts";
import { round3, sharePercent } from "../kit/rounding.ts";
import { MAX_DETAILED_ROWS, type RowDetail, rowDetail } from "./row_detail.ts";
import { subDeviceCaveat } from "./performance.ts";

/** Rows listed at most (25 when include adds fields to each). */
export const MAX_PERF_ROWS = 100;

/** How the operation's performance rows were found: linked at a rank, or why not. */
export type OperationLinkField =
  | { status: "linked"; rank: number; matched_on: MatchedOn; matched_rows: number }
  | { status: "unlinked" | "unavailable"; reason: string };

/** One performance row the operation launched; include adds its groups' fields. */
export interface LaunchedPerfRow {
  /** The row's id (its CSV line), never an operation_id. */
  id: string;
  op_code: string;
  /** Microseconds. */
  device_time: number | null;
  device_time_share_percent: number | null;
  cores: number | null;
  bound: Exclude<Bound, ""> | null;
  bound_analysis: BoundAnalysis;
  op_category: OpCategory | null;
  /** The fields of the include groups asked for. */
  [field: string]: unknown;
}

/**
 * The perf-row fields of operation_detail: perf_rows with the figures over every row the
 * operation launched when it is linked at the rank read (device_time, its share and
 * slowest_perf_id only when a row has a device time; include's answer keys when asked), and
 * operation_link always.
 */
export interface PerfRowsFields {
  perf_rows?: LaunchedPerfRow[];
  perf_row_count?: number;
  device_time_unit?: "us";
  report_device_time_total?: number | null;
  device_time?: number | null;
  device_time_share_percent?: number | null;
  slowest_perf_id?: string;
  /** include's answer keys: included, empty_in_report, detail_note, flag_basis. */
  included?: unknown;
  empty_in_report?: unknown;
  detail_note?: unknown;
  flag_basis?: unknown;
  operation_link: OperationLinkField;
}

/** What operation_detail adds from the performance report, and the caveat part it needs. */
export interface OperationPerfRows {
  fields: PerfRowsFields;
  caveat: string | null;
}

/**
 * The device time of every row that is not a host op or a signpost, whether or not it linked:
 * the whole `report_device_time_total` each share is a percent of. Blank device times are left
 * out.
 */
export function reportDeviceTimeTotal(rows: readonly PerfRow[]): number {
  return pythonSum(
    rows.filter((r) => !r.is_host_op && r.op_type !== "signpost")
      .map((r) => r.device_time)
      .filter((t): t is number => t !== null && Number.isFinite(t)),
  );
}

/**
 * The perf-row fields of operation `operationId` read at `rank` (null on a single-host
 * report): `perf_rows` and the figures over them when linked at that rank; otherwise only
 * `operation_link` saying why there are none.
 */
export function operationPerfRows(
  report: LoadedReport,
  link: OperationLink,
  operationId: number,
  rank: number | null,
  groups: readonly IncludeGroup[],
): OperationPerfRows {
  if (link.status !== "linked") {
    return {
      fields: { operation_link: { status: link.status, reason: link.reason } },
      caveat: null,
    };
  }
  const block: OperationLinkField = {
    status: "linked",
    rank: link.rank,
    matched_on: link.matchedOn,
    matched_rows: link.operationByPerfId.size,
  };
  if ((rank ?? 0) !== link.rank) {
    return {
      fields: {
        operation_link: {
          status: "unavailable",
          reason: `performance rows are linked to rank ${link.rank} only; this operation was ` +
            `read at rank ${rank}`,
        },
      },
      caveat: null,
    };
  }
  const whole = report.inventory.performance!.whole!;
  const byId = new Map(whole.rows.map((r) => [r.id, r]));
  const rows = (link.perfRowsByOperation.get(operationId) ?? []).map((id) => byId.get(id)!);
  const total = reportDeviceTimeTotal(whole.rows);
  const detail = groups.length > 0 ? rowDetail(report, whole, groups) : null;
  const cap = detail ? MAX_DETAILED_ROWS : MAX_PERF_ROWS;
  const timed = rows.filter((r) => r.device_time !== null && Number.isFinite(r.device_time));
  const fields: PerfRowsFields = {
    perf_rows: rows.slice(0, cap).map((row) => launchedRow(row, total, detail)),
    perf_row_count: rows.length,
    device_time_unit: "us",
    report_device_time_total: round3(total),
    ...(timed.length > 0 ? ownDeviceTime(timed, total) : {}),
    ...detail?.answerKeys(rows),
    operation_link: block,
  };
  return { fields, caveat: subDeviceCaveat(whole) };
}

/** One launched row as perf_rows lists it, with include's fields when asked. */
function launchedRow(row: PerfRow, total: number, detail: RowDetail | null): LaunchedPerfRow {
  const out: LaunchedPerfRow = {
    id: String(row.id),
    op_code: row.op_code || row.raw_op_code,
    device_time: round3(row.device_time),
    device_time_share_percent: row.device_time === null || !Number.isFinite(row.device_time)
      ? null
      : sharePercent(row.device_time, total),
    cores: row.cores,
    bound: row.bound === "" ? null : row.bound,
    bound_analysis: row.bound_analysis,
    op_category: row.op_category,
  };
  detail?.decorate(row, out);
  return out;
}

/** The operation's own device time over its timed rows, its share, and its slowest row. */
function ownDeviceTime(
  timed: readonly PerfRow[],
  total: number,
): Pick<PerfRowsFields, "device_time" | "device_time_share_percent" | "slowest_perf_id"> {
  const own = pythonSum(timed.map((r) => r.device_time!));
  const slowest = timed.reduce((a, b) => (b.device_time! > a.device_time! ? b : a));
  return {
    device_time: round3(own),
    device_time_share_percent: sharePercent(own, total),
    slowest_perf_id: String(slowest.id),
  };
}
