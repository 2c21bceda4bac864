/**
 * Typed errors of the perf-report port. Where tt-perf-report itself aborts (a Python
 * exception), the port throws a {@link PerfReportInputError} naming the row and the cause.
 * @module
 */

/** Why a report cannot be generated from this input. */
export type PerfReportInputErrorKind =
  | "missing_columns"
  | "unknown_architecture"
  | "unknown_math_fidelity"
  | "missing_cell"
  | "invalid_option";

/**
 * The input is one tt-perf-report cannot report on (it would raise). `row` is the CSV line
 * (tt-perf-report's ID) of the offending row when there is one.
 */
export class PerfReportInputError extends Error {
  readonly kind: PerfReportInputErrorKind;
  readonly row: number | null;

  constructor(kind: PerfReportInputErrorKind, message: string, row: number | null = null) {
    super(row === null ? message : `row ${row}: ${message}`);
    this.name = "PerfReportInputError";
    this.kind = kind;
    this.row = row;
  }
}

/** Why a signpost range was refused. */
export type SignpostRangeErrorKind =
  | "unknown_name"
  | "single_occurrence"
  | "end_before_start"
  | "name_too_long"
  | "occurrence_out_of_range";

/** A signpost range the report cannot honour. */
export class SignpostRangeError extends Error {
  readonly kind: SignpostRangeErrorKind;
  /** The bound the refusal is about. */
  readonly bound: "start" | "end" | "both";

  constructor(kind: SignpostRangeErrorKind, bound: "start" | "end" | "both", message: string) {
    super(message);
    this.name = "SignpostRangeError";
    this.kind = kind;
    this.bound = bound;
  }
}
