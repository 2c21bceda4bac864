/**
 * The entry point the tools call: tt-perf-report's per-op report, stacked reports and advice
 * for a parsed CSV, read the way the product reads it — host ops included, signposts kept,
 * devices merged, and a signpost range only when one is asked for.
 * @module
 */

import type { CsvTable } from "./csv_table.ts";
import { runTtPerfReport, TT_PERF_REPORT_VERSION } from "./pipeline.ts";
import { resolveSignpostWindow } from "./signposts.ts";
import type { PerfReport } from "./types.ts";

export { TT_PERF_REPORT_VERSION };

/** How the tools read a report. */
export interface PerfReportOptions {
  /** Read only the rows after this signpost's earliest occurrence (by host start time). */
  startSignpost?: string;
  /** Read only the rows before this signpost (its second occurrence when it names the start). */
  endSignpost?: string;
  /**
   * Which occurrence of the start signpost to start after (1-based, default 1, as
   * tt-perf-report). Past the first, the end is the end signpost's first occurrence after it.
   */
  startOccurrence?: number;
  /** Merge per-device rows into one row per op (default true). */
  mergeDevices?: boolean;
  /** Keep only this DEVICE ID's rows (and rows with none); devices are then not merged. */
  device?: number;
  /** Keep rows whose ID (CSV line) is in [start, end] (tt-perf-report's `--id-range`). */
  idRange?: { start: number; end: number };
  /** Leave host ops out and recompute Total % without them (default false). */
  hideHostOps?: boolean;
}

/**
 * Generates the report. Without a signpost bound the whole file is read, signposts kept as
 * rows. With one, the range is resolved and checked first (see `resolveSignpostWindow`), and
 * the window holds the rows strictly between the bounds, any signposts inside it kept; Total %
 * is recomputed over it and its first row has no op-to-op gap. A report without signposts is
 * read whole and says so with `window.signpost_range_ignored`.
 *
 * @throws {SignpostRangeError} for a range the report cannot honour
 * @throws {PerfReportInputError} where tt-perf-report itself would abort
 */
export function generatePerfReport(table: CsvTable, options: PerfReportOptions = {}): PerfReport {
  const start = options.startSignpost || null;
  const end = options.endSignpost || null;
  const occurrence = options.startOccurrence ?? 1;
  const common = {
    noMergeDevices: options.mergeDevices === false,
    noHostOps: options.hideHostOps === true,
    printSignposts: true,
    device: options.device ?? null,
    idRange: options.idRange ?? null,
  };
  if (start === null && end === null && occurrence === 1) {
    return runTtPerfReport(table, { ...common, ignoreSignposts: true });
  }
  const window = resolveSignpostWindow(table, start, end, occurrence);
  if (window.ignored) {
    const report = runTtPerfReport(table, { ...common, ignoreSignposts: true });
    report.window = { start_signpost: start, end_signpost: end, signpost_range_ignored: true };
    return report;
  }
  const report = runTtPerfReport(table, {
    ...common,
    startSignpost: start,
    endSignpost: end,
    startOccurrence: occurrence,
  });
  report.window.start_occurrence = window.startOccurrence;
  return report;
}
