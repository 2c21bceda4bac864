/**
 * A TypeScript port of tt-perf-report (state 6278e268, after 1.2.9): per-op report, signpost
 * windows, stacked reports and advice, as pure functions over a parsed CSV.
 * @module
 */

export { CsvFormatError, type CsvTable, parseCsvTable } from "./csv_table.ts";
export { generatePerfReport, type PerfReportOptions, TT_PERF_REPORT_VERSION } from "./report.ts";
export { runTtPerfReport, type TtPerfReportOptions } from "./pipeline.ts";
export {
  countDevices,
  deviceRowCounts,
  listDeviceIds,
  listSignpostOccurrences,
  listSignposts,
  MAX_SIGNPOST_NAME_LENGTH,
  resolveSignpostWindow,
  type SignpostName,
  type SignpostWindow,
} from "./signposts.ts";
export {
  ALWAYS_REQUIRED_COLUMNS,
  missingColumns,
  REQUIRED_COLUMNS,
  requiredColumns,
} from "./columns.ts";
export {
  PerfReportInputError,
  type PerfReportInputErrorKind,
  SignpostRangeError,
  type SignpostRangeErrorKind,
} from "./exceptions.ts";
export { ARCHITECTURES, type ArchitectureSpec, type CsvFormat, detectCsvFormat } from "./arch.ts";
export { CATEGORY_ORDER, classifyOperation, type OpCategory } from "./categories.ts";
export { evaluateFidelity, type FidelityEvaluation } from "./fidelity.ts";
export { generateMatmulAdvice } from "./advice.ts";
export { generateStackedReport, opCodeFirstWord } from "./stacked.ts";
export { escapeCsvFormula } from "./cells.ts";
export type * from "./types.ts";
export { isCollective } from "./_merge.ts";
export { pyFormatFixed } from "../kit/python_format.ts";
