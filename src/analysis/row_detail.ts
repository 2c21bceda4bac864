/**
 * What `include` adds to performance rows and to the answer around them: the included
 * groups' fields on each row, the heuristic flags with the total_percent that gates them, and
 * the answer's `included`, `empty_in_report`, `detail_note` and `flag_basis`.
 *
 * @module
 */
import type { PerfReport, PerfRow } from "../perf_report/mod.ts";
import {
  DETAIL_NOTE,
  type EmptyField,
  emptyInReport,
  fieldsToInclude,
  type IncludeField,
  type IncludeGroup,
  readField,
  RowCells,
} from "./include_groups.ts";
import {
  CORES_RULE,
  FLAG_NAMES,
  FLAG_NOTE,
  type FlagContext,
  flagsOf,
  type MaxCores,
  maxCoresOf,
} from "./heuristic_flags.ts";
import { CACHE_DISABLED_CAVEAT, everyRecordedRepeatMissed, programCalls } from "./program_calls.ts";
import type { LoadedReport } from "../session/handles.ts";
import { round3 } from "../kit/rounding.ts";

/** Rows listed at most when include asks for more than the operation and its metric. */
export const MAX_DETAILED_ROWS = 25;

/**
 * The fields `include` adds to a row: the included groups' fields (named as in
 * `INCLUDE_FIELDS`, those empty in the whole report left out), and with flags the row's
 * `total_percent` and `flags`. Which ones a row carries depends on `include`.
 */
export interface IncludedFields {
  [field: string]: unknown;
}

/** What the flags were judged against, and how many rows read raised each. */
export interface FlagBasis extends MaxCores {
  flagged_rows: Record<string, number>;
  caveat?: string;
  /** Which core count underutilised_cores reads. */
  cores_rule: string;
  note: string;
}

/** The answer-level keys `include` adds. */
export interface DetailAnswerKeys {
  included?: { groups: IncludeGroup[]; fields: string[] };
  empty_in_report?: EmptyField[];
  detail_note?: string;
  flag_basis?: FlagBasis;
}

/** Adds the included fields (and flags) to answer rows, and says what it added. */
export interface RowDetail {
  /**
   * The included fields and flags of `row` that `present` (the row built so far) does not
   * carry already; `flags` always. Spread after the row's own keys.
   */
  fieldsOf(row: PerfRow, present: object): IncludedFields;
  /** Adds the included fields and flags of `row` to `out` (keys already there are kept). */
  decorate(row: PerfRow, out: Record<string, unknown>): void;
  /** The answer-level keys: included, empty_in_report, detail_note, flag_basis. */
  answerKeys(rowsRead: readonly PerfRow[]): DetailAnswerKeys;
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
  const flags: FlagContext | null = groups.includes("flags")
    ? {
      cells,
      calls: programCalls(whole.rows, cells),
      maxCores: maxCoresOf(report.inventory, whole.rows),
      rowHasProgramHash: fields.some((f) => f.name === "program_hash"),
    }
    : null;
  const fieldsOf = (row: PerfRow, present: object): IncludedFields => {
    const fromCsv: IncludedFields = Object.fromEntries(
      fields.filter((f) => !(f.name in present)).map((f) => [f.name, readField(f, row, cells)]),
    );
    if (!flags) return fromCsv;
    return {
      ...fromCsv,
      ...("total_percent" in present ? {} : { total_percent: round3(row.total_percent) }),
      flags: flagsOf(row, flags),
    };
  };
  return {
    fieldsOf,
    decorate(row, out) {
      Object.assign(out, fieldsOf(row, out));
    },
    answerKeys(rowsRead) {
      return {
        ...(csvGroups.length > 0
          ? {
            included: { groups: csvGroups, fields: fields.map((f) => f.name) },
            empty_in_report: empty,
            detail_note: DETAIL_NOTE,
          }
          : {}),
        ...(flags ? { flag_basis: flagBasis(rowsRead, flags) } : {}),
      };
    },
  };
}

/** How many of `rowsRead` raised each flag, and what the flags were judged against. */
function flagBasis(rowsRead: readonly PerfRow[], flags: FlagContext): FlagBasis {
  const counts = Object.fromEntries(FLAG_NAMES.map((n) => [n, 0]));
  for (const row of rowsRead) for (const f of flagsOf(row, flags)) counts[f.flag]++;
  return {
    flagged_rows: counts,
    ...flags.maxCores,
    ...(everyRecordedRepeatMissed(flags.calls.values()) ? { caveat: CACHE_DISABLED_CAVEAT } : {}),
    cores_rule: CORES_RULE,
    note: FLAG_NOTE,
  };
}
