/**
 * What a report's times leave out: the device operations tt-perf-report gives no device time
 * (their duration is blank, not a number or negative, or their latency is a trace replay's),
 * and the cells of the two timing columns that hold text which is not a number at all. The
 * report itself drops these rows from every device-time total, share and roofline figure, as
 * the tool does; this says how many, and which, so an answer can say so instead of showing a
 * smaller total as if it were complete.
 *
 * @module
 */
import type { CsvTable } from "./csv_table.ts";
import { Frame } from "./_frame.ts";
import { finiteFloat } from "./cells.ts";
import { KERNEL_DURATION, OP_TO_OP_LATENCY } from "./_source.ts";
import type { PerfRow } from "./types.ts";
import { rowIdOf } from "./row_id.ts";

export { KERNEL_DURATION, OP_TO_OP_LATENCY };

/** Cells of one timing column that hold something other than a number or a blank. */
export interface UnusableCells {
  column: typeof KERNEL_DURATION | typeof OP_TO_OP_LATENCY;
  count: number;
  /** CSV line (the header is line 1) of the first such cell. */
  first_line: number;
  /** Its text, as written. */
  first_text: string;
}

/** What a report's device times and gaps leave out. */
export interface UnusableTimings {
  /** Ids (CSV lines) of device operations without a device time, in report order. */
  without_device_time: number[];
  /** Timing cells anywhere in the CSV that are not numbers (text, infinities). */
  unusable_cells: UnusableCells[];
}

const cellsByTable = new WeakMap<CsvTable, UnusableCells[]>();

/**
 * The device operations of `rows` (host ops and signposts never carry a device time, and are
 * not counted) that tt-perf-report gave no device time, and the CSV's timing cells that hold
 * text other than a number.
 *
 * @example
 * ```ts
 * import { parseCsvTable } from "./csv_table.ts";
 * import { generatePerfReport } from "./report.ts";
 * import { unusableTimings } from "./unusable_timings.ts";
 * const text = await Deno.readTextFile(
 *   new URL("../../fixtures/perf/unsorted_ties.csv", import.meta.url),
 * );
 * const table = parseCsvTable(text, "x.csv");
 * const t = unusableTimings(table, generatePerfReport(table).rows);
 * if (t.without_device_time.length !== 0 || t.unusable_cells.length !== 0) throw new Error();
 * ```
 */
export function unusableTimings(table: CsvTable, rows: readonly PerfRow[]): UnusableTimings {
  let cells = cellsByTable.get(table);
  if (!cells) {
    cells = ([KERNEL_DURATION, OP_TO_OP_LATENCY] as const).flatMap((c) =>
      unusableCellsOf(table, c)
    );
    cellsByTable.set(table, cells);
  }
  const without: number[] = [];
  for (const r of rows) {
    if (!r.is_host_op && !r.is_signpost && r.internal.invalid_device_duration) without.push(r.id);
  }
  return { without_device_time: without, unusable_cells: cells };
}

function unusableCellsOf(
  table: CsvTable,
  column: typeof KERNEL_DURATION | typeof OP_TO_OP_LATENCY,
): UnusableCells[] {
  const frame = Frame.of(table);
  if (!frame.has(column)) return [];
  let count = 0;
  let first = -1;
  for (let pos = 0; pos < frame.length; pos++) {
    const value = frame.value(pos, column);
    // A blank or NA cell is missing, not unusable; anything else must read as a finite float.
    if (value === null || value === undefined || finiteFloat(value) !== null) continue;
    if (count++ === 0) first = pos;
  }
  if (count === 0) return [];
  return [{
    column,
    count,
    first_line: rowIdOf(first),
    first_text: frame.raw(first, column) ?? "",
  }];
}
