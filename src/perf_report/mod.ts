/**
 * The door to the perf-report port, a TypeScript port of tt-perf-report (state 6278e268, after
 * 1.2.9): per-op report, signpost windows, stacked reports and advice, as pure functions over a
 * parsed CSV, with the CSV's probe. A module outside `perf_report/` imports from here alone
 * (`tests/unit/layers_test.ts`).
 * @module
 */

export { generateMatmulAdvice } from "./advice.ts";
export {
  ARCHITECTURE_ALIASES,
  architectureFromName,
  ARCHITECTURES,
  type ArchitectureSpec,
  AVAILABLE_WORKER_CORE_COUNT_COLUMN,
  type CsvFormat,
  detectCsvFormat,
  shapeColumn,
} from "./arch.ts";
export { CATEGORY_ORDER, classifyOperation, isCollective, type OpCategory } from "./categories.ts";
export { escapeCsvFormula } from "./cells.ts";
export {
  ALWAYS_REQUIRED_COLUMNS,
  missingColumns,
  REQUIRED_COLUMNS,
  requiredColumns,
} from "./columns.ts";
export {
  cellOf,
  CsvFormatError,
  type CsvTable,
  parseCsvTable,
  rowClasses,
  rowCountOf,
} from "./csv_table.ts";
export {
  PerfReportInputError,
  type PerfReportInputErrorKind,
  SignpostRangeError,
  type SignpostRangeErrorKind,
} from "./exceptions.ts";
export { evaluateFidelity, type FidelityEvaluation } from "./fidelity.ts";
export { runTtPerfReport, type TtPerfReportOptions } from "./pipeline.ts";
export {
  chooseOpsCsv,
  OPS_CSV_FILE,
  type OpsCsvFile,
  type OpsCsvRead,
  readOpenedCsv,
  readOpenedCsvSync,
} from "./probe.ts";
export { generatePerfReport, type PerfReportOptions, TT_PERF_REPORT_VERSION } from "./report.ts";
export { FIRST_ROW_ID, isRowId, rowIdOf, rowIndexOf } from "./row_id.ts";
export {
  countDevices,
  deviceRowCounts,
  listDeviceIds,
  listSignpostOccurrences,
  listSignposts,
  MAX_SIGNPOST_NAME_LENGTH,
  resolveSignpostWindow,
  type SignpostName,
  signpostNameLength,
  type SignpostWindow,
} from "./signposts.ts";
export { generateStackedReport, opCodeFirstWord } from "./stacked.ts";
export { PythonSum, pythonSum } from "./summation.ts";
export { KERNEL_DURATION, OP_TO_OP_LATENCY, unusableTimings } from "./unusable_timings.ts";
export type * from "./types.ts";
