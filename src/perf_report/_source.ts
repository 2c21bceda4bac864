/**
 * Internal: the rows the pipeline carries between windowing, merging and analysis — a CSV row
 * plus what tt-perf-report adds to it (an averaged duration, overlap annotations, merged rows).
 * @module
 */

import type { CellValue } from "./cells.ts";
import { finiteFloat, getValuePhysicalLogical } from "./cells.ts";
import type { Frame } from "./_frame.ts";
import { PerfReportInputError } from "./exceptions.ts";
import { rowIdOf } from "./row_id.ts";

/** The device kernel duration column, in ns. */
export const KERNEL_DURATION = "DEVICE KERNEL DURATION [ns]";
/** The op-to-op latency column, in ns. */
export const OP_TO_OP_LATENCY = "OP TO OP LATENCY [ns]";
/** Latencies beyond ±1 ms mark trace-replay rows as invalid (`INVALID_OP_TO_OP_GAP_MIN_NS`). */
export const INVALID_OP_TO_OP_GAP_MIN_NS = 1_000_000;

/**
 * `is_invalid_device_duration`: the duration is missing, unusable or negative, or the latency
 * is below −1 ms and larger in magnitude than both half the duration and 1 ms.
 */
export function isInvalidDeviceDuration(
  durationCell: CellValue | undefined,
  latencyCell: CellValue | undefined,
): boolean {
  const duration = finiteFloat(durationCell);
  if (duration === null || duration < 0) return true;
  const gap = finiteFloat(latencyCell);
  return gap !== null && gap < -INVALID_OP_TO_OP_GAP_MIN_NS &&
    Math.abs(gap) > Math.max(duration * 0.5, INVALID_OP_TO_OP_GAP_MIN_NS);
}

/** A row of the windowed frame. */
export interface SourceRow {
  /** 0-based data-row position; the ID is `pos + 2`. */
  pos: number;
  /** Replaces DEVICE KERNEL DURATION [ns] (the averaged duration of a merged collective). */
  duration?: number | null;
  /** `OVERLAP [ns]` / `OVERLAP BUSY [ns]` from the overlap sweep (null = NaN). */
  overlapNs: number | null;
  busyNs: number | null;
  /** ORIGINAL_ROWs (IDs) of every per-device row a merged row stands for. */
  merged: number[] | null;
}

/** What reads a source row's cells (a RowReader, or one confined to some columns). */
export interface CellReader {
  value(row: SourceRow, column: string): CellValue | undefined;
  dimension(row: SourceRow, column: string): number | null;
  textOrNull(row: SourceRow, column: string): string | null | undefined;
  text(row: SourceRow, column: string): string | undefined;
  requiredText(row: SourceRow, column: string, why: string): string;
  requireColumn(row: SourceRow, column: string, why: string): void;
}

/** Reads cells of source rows, honouring the duration override. */
export class RowReader implements CellReader {
  constructor(readonly frame: Frame) {}

  /** The pandas value of a cell (undefined when the column is absent). */
  value(row: SourceRow, column: string): CellValue | undefined {
    if (column === KERNEL_DURATION && row.duration !== undefined) return row.duration;
    return this.frame.value(row.pos, column);
  }

  /**
   * A tensor dimension (`get_value_physical_logical` of the cell): read from the cell's text
   * when that is digits and brackets — the same figure, without typing the whole column — else
   * from its pandas value.
   */
  dimension(row: SourceRow, column: string): number | null {
    const text = this.frame.dimensionText(row.pos, column);
    return getValuePhysicalLogical(text !== undefined ? text : this.value(row, column));
  }

  /** `get_numeric_value`: a finite float or null. */
  numeric(row: SourceRow, column: string): number | null {
    return finiteFloat(this.value(row, column));
  }

  /** Python's `str()` of the cell (`nan` when missing), undefined when the column is absent. */
  text(row: SourceRow, column: string): string | undefined {
    return this.frame.text(row.pos, column);
  }

  /** The cell's `str()` form, null when missing, undefined when the column is absent. */
  textOrNull(row: SourceRow, column: string): string | null | undefined {
    return this.frame.textOrNull(row.pos, column);
  }

  /** A text cell the tool uses as a string; a blank one is an error there, as in the tool. */
  requiredText(row: SourceRow, column: string, why: string): string {
    const t = this.textOrNull(row, column);
    if (t === undefined) {
      throw new PerfReportInputError(
        "missing_columns",
        `the CSV has no ${column} column, which tt-perf-report needs ${why}`,
        rowIdOf(row.pos),
      );
    }
    if (t === null) {
      throw new PerfReportInputError(
        "missing_cell",
        `${column} is blank, which tt-perf-report cannot handle ${why}`,
        rowIdOf(row.pos),
      );
    }
    return t;
  }

  /** Fails like the tool's KeyError when a column it reads is absent. */
  requireColumn(row: SourceRow, column: string, why: string): void {
    if (!this.frame.has(column)) {
      throw new PerfReportInputError(
        "missing_columns",
        `the CSV has no ${column} column, which tt-perf-report needs ${why}`,
        rowIdOf(row.pos),
      );
    }
  }

  /** `is_invalid_device_duration`: missing/unusable/negative duration, or a huge negative latency. */
  isInvalidDuration(row: SourceRow): boolean {
    return isInvalidDeviceDuration(
      this.value(row, KERNEL_DURATION),
      this.value(row, OP_TO_OP_LATENCY),
    );
  }

  /** `get_analysis_duration_ns`: the duration when valid, else null. */
  analysisDuration(row: SourceRow): number | null {
    return this.isInvalidDuration(row) ? null : this.numeric(row, KERNEL_DURATION);
  }
}
