/**
 * What `include` adds to performance rows and to the answer around them: the included
 * groups' fields on each row, the heuristic flags with the total_percent that gates them, and
 * the answer's `included`, `empty_in_report`, `detail_note` and `flag_basis`.
 *
 * @module
 */
import type { PerfReport, PerfRow } from "../perf_report/types.ts";
import {
  DETAIL_NOTE,
  emptyInReport,
  fieldsToInclude,
  type IncludeField,
  type IncludeGroup,
  readField,
  RowCells,
} from "./include_groups.ts";
import { FLAG_NAMES, FLAG_NOTE, type FlagContext, flagsOf, maxCoresOf } from "./heuristic_flags.ts";
import { CACHE_DISABLED_CAVEAT, everyRecordedRepeatMissed, programCalls } from "./program_calls.ts";
import type { LoadedReport } from "../session/registry.ts";

/** Rows listed at most when include asks for more than the operation and its metric. */
export const MAX_DETAILED_ROWS = 25;

/** Adds the included fields (and flags) to answer rows, and says what it added. */
export interface RowDetail {
  /** Adds the included fields and flags of `row` to `out` (keys already there are kept). */
  decorate(row: PerfRow, out: Record<string, unknown>): void;
  /** The answer-level keys: included, empty_in_report, detail_note, flag_basis. */
  answerKeys(rowsRead: readonly PerfRow[]): Record<string, unknown>;
}

/**
 * The detail for `groups` on a report loaded as `report`; `perf` is the report the rows come
 * from (the whole one or a window). Empty fields and first calls are judged on the whole report.
 */
export function rowDetail(
  report: LoadedReport,
  perf: PerfReport,
  groups: readonly IncludeGroup[],
): RowDetail {
  const read = report.inventory.performance?.csvRead;
  const whole = report.inventory.performance?.whole ?? perf;
  if (!read?.ok) throw new Error("row detail needs a parsed performance CSV");
  const cells = new RowCells(read.table);
  const csvGroups = groups.filter((g) => g !== "flags");
  const empty = csvGroups.length > 0 ? emptyInReport(csvGroups, whole.rows, cells) : [];
  const fields: IncludeField[] = fieldsToInclude(csvGroups, empty);
  let flags: FlagContext | null = null;
  if (groups.includes("flags")) {
    flags = {
      cells,
      calls: programCalls(whole.rows, cells),
      maxCores: maxCoresOf(report.inventory, whole.rows),
      rowHasProgramHash: fields.some((f) => f.name === "program_hash"),
    };
  }
  return {
    decorate(row, out) {
      for (const field of fields) {
        if (!(field.name in out)) out[field.name] = readField(field, row, cells);
      }
      if (flags) {
        if (!("total_percent" in out)) out.total_percent = row.total_percent;
        out.flags = flagsOf(row, flags);
      }
    },
    answerKeys(rowsRead) {
      const keys: Record<string, unknown> = {};
      if (csvGroups.length > 0) {
        keys.included = { groups: csvGroups, fields: fields.map((f) => f.name) };
        keys.empty_in_report = empty;
        keys.detail_note = DETAIL_NOTE;
      }
      if (flags) {
        const counts = Object.fromEntries(FLAG_NAMES.map((n) => [n, 0]));
        for (const row of rowsRead) for (const f of flagsOf(row, flags)) counts[f.flag]++;
        keys.flag_basis = {
          flagged_rows: counts,
          ...flags.maxCores,
          ...(everyRecordedRepeatMissed(flags.calls.values())
            ? { caveat: CACHE_DISABLED_CAVEAT }
            : {}),
          note: FLAG_NOTE,
        };
      }
      return keys;
    },
  };
}
