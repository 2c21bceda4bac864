/**
 * The performance rows one profiler operation launched, as operation_detail lists them when
 * its handle holds both reports and they link: each row's device time in microseconds and its
 * share of the report's device time, with the operation's own total, share and slowest row
 * over every row it launched (even those past the cap on the list).
 *
 * @module
 */
import type { PerfRow } from "../perf_report/types.ts";
import type { IncludeGroup } from "./include_groups.ts";
import type { LoadedReport } from "../session/registry.ts";
import type { OperationLink } from "./operation_link.ts";
import { round3, sharePercent } from "../kit/figures.ts";
import { pythonSum } from "../perf_report/summation.ts";
import { MAX_DETAILED_ROWS, rowDetail } from "./row_detail.ts";
import { subDeviceCaveat } from "./performance.ts";

/** Rows listed at most (25 when include adds fields to each). */
export const MAX_PERF_ROWS = 100;

/** What operation_detail adds from the performance report, and the caveat part it needs. */
export interface OperationPerfRows {
  fields: Record<string, unknown>;
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
  const block = {
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
  const fields: Record<string, unknown> = {
    perf_rows: rows.slice(0, cap).map((row) => {
      const out: Record<string, unknown> = {
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
    }),
    perf_row_count: rows.length,
    device_time_unit: "us",
    report_device_time_total: round3(total),
  };
  if (timed.length > 0) {
    const own = pythonSum(timed.map((r) => r.device_time!));
    const slowest = timed.reduce((a, b) => (b.device_time! > a.device_time! ? b : a));
    fields.device_time = round3(own);
    fields.device_time_share_percent = sharePercent(own, total);
    fields.slowest_perf_id = String(slowest.id);
  }
  Object.assign(fields, detail?.answerKeys(rows));
  fields.operation_link = block;
  return { fields, caveat: subDeviceCaveat(whole) };
}
