/**
 * The two definitions of an operation's time the tools answer in, named so an answer says
 * which it uses: the op interval of the users' method, measured from the device log (first
 * kernel start on any core to the last core's firmware end), and tt-perf-report's device time,
 * the CSV's DEVICE KERNEL DURATION (first kernel start to last kernel end), with its op-to-op
 * gap, OP TO OP LATENCY. Both are right; they differ by each operation's firmware tail. Here
 * too: tt-perf-report's totals over the rows a device timeline covers, to put beside it.
 *
 * @module
 */
import {
  cellOf,
  type CsvTable,
  type PerfRow,
  pythonSum,
  rowCountOf,
  rowIndexOf,
} from "../perf_report/mod.ts";
import { round3 } from "../kit/rounding.ts";

/**
 * An answer's `basis`: which definition of an operation's time its figures use (what each
 * means is the note `basis.<basis>` of tools/notes.ts).
 */
export type TimeBasis = "op_interval" | "device_kernel_duration";

/** tt-perf-report's totals over some rows, in µs. */
export interface PerfReportTotals {
  basis: "device_kernel_duration";
  /** The window's rows that ran on the device (signposts and host ops left out). */
  rows: number;
  /** Of them, those with a device time. */
  rows_with_device_time: number;
  device_time_sum_us: number | null;
  op_to_op_gap_sum_us: number | null;
}

/**
 * tt-perf-report's device time and op-to-op gap summed over the rows of `rows` that ran on
 * `device` (any of a merged row's lines), as top_ops and op_breakdown sum them.
 */
export function perfReportTotals(
  rows: readonly PerfRow[],
  table: CsvTable,
  device: number,
): PerfReportTotals {
  const dev = table.header.findIndex((h) => h.trim() === "DEVICE ID");
  const onDevice = rows.filter((r) =>
    !r.is_signpost && !r.is_host_op && dev >= 0 &&
    (r.merged_ids ?? [r.id]).some((line) =>
      rowIndexOf(line) < rowCountOf(table) &&
      Number(cellOf(table, rowIndexOf(line), dev).trim()) === device
    )
  );
  const times = onDevice.flatMap((r) => (r.device_time === null ? [] : [r.device_time]));
  const gaps = onDevice.flatMap((r) => (r.op_to_op_gap === null ? [] : [r.op_to_op_gap]));
  return {
    basis: "device_kernel_duration",
    rows: onDevice.length,
    rows_with_device_time: times.length,
    device_time_sum_us: times.length === 0 ? null : round3(pythonSum(times)),
    op_to_op_gap_sum_us: gaps.length === 0 ? null : round3(pythonSum(gaps)),
  };
}

/** What a device timeline measured that the comparison needs, in µs. */
export interface TimelineTotals {
  operations: number;
  opIntervalSumUs: number;
  gapSumUs: number;
  /** Σ over the placed operations of last kernel end → DEVICE FW END CYCLE. */
  firmwareTailSumUs: number;
  /** Pairs of op intervals that overlap (a latency can then be negative). */
  overlappingPairs: number;
}

/**
 * Why a timeline's op-interval and gap sums differ from tt-perf-report's, in sentences true
 * of these numbers: how much of the interval difference the firmware tails explain, and which
 * case the gaps are (what each case means is the note `device_timeline.reconciliation`).
 *
 * @example
 * ```ts
 * import { whyTotalsDiffer } from "./time_basis.ts";
 * const why = whyTotalsDiffer(
 *   { operations: 2, opIntervalSumUs: 110, gapSumUs: 10, firmwareTailSumUs: 10, overlappingPairs: 0 },
 *   { basis: "device_kernel_duration", rows: 2, rows_with_device_time: 2,
 *     device_time_sum_us: 100, op_to_op_gap_sum_us: 15 },
 * );
 * if (!why.includes("exactly the firmware tails")) throw new Error(why);
 * ```
 */
export function whyTotalsDiffer(t: TimelineTotals, p: PerfReportTotals): string {
  if (p.device_time_sum_us === null) {
    return "No row here has a tt-perf-report device time, so there is nothing to compare.";
  }
  const diff = round3(t.opIntervalSumUs - p.device_time_sum_us)!;
  const rest = round3(diff - t.firmwareTailSumUs)!;
  const unplaced = p.rows_with_device_time - t.operations;
  const out = [
    Math.abs(rest) < 0.01
      ? `op_interval_sum_us exceeds device_time_sum_us by ${diff} µs, exactly the firmware ` +
        `tails (${t.firmwareTailSumUs} µs).`
      : `op_interval_sum_us − device_time_sum_us is ${diff} µs: ${t.firmwareTailSumUs} µs of ` +
        `firmware tails, and ${rest} µs where the CSV's DEVICE KERNEL DURATION and this log's ` +
        "kernel zones disagree" +
        (unplaced > 0
          ? ` (${unplaced} of tt-perf-report's rows have no op interval: not placed on the log).`
          : "."),
  ];
  if (p.op_to_op_gap_sum_us !== null) {
    const gaps = `op_to_op_gap_sum_us ${p.op_to_op_gap_sum_us} against gap_sum ${t.gapSumUs}`;
    out.push(
      p.op_to_op_gap_sum_us >= t.gapSumUs
        ? `${gaps}: the firmware tails left out of device time count in its gaps instead.`
        : t.overlappingPairs > 0
        ? `${gaps}: op intervals overlap here, and a latency across an overlap is negative.`
        : `${gaps}: latencies derived from this log's cycles could not sum below gap_sum, so ` +
          "the CSV's OP TO OP LATENCY does not follow this log, or some of it is blank or " +
          "unusable.",
    );
  }
  return out.join(" ");
}
