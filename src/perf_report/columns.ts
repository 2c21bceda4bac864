/**
 * The performance-CSV columns tt-perf-report reads, and which of them a header lacks.
 * @module
 */

import { detectCsvFormat, shapeColumn } from "./arch.ts";
import { pandasColumnNames } from "./_frame.ts";

/**
 * Columns without which tt-perf-report cannot report on any row: it aborts (a KeyError or an
 * exit) as soon as it reads one of them.
 */
export const ALWAYS_REQUIRED_COLUMNS = [
  "OP CODE",
  "OP TYPE",
  "DEVICE ID",
  "ATTRIBUTES",
  "INPUT_0_MEMORY",
  "GLOBAL CALL COUNT",
] as const;

/**
 * Every column the report is computed from (spec §2.1), shape columns named as in the v1
 * format: the always-required ones, the timing columns (without them every duration or gap
 * is blank), and the ones the matmul and conv models read (without them tt-perf-report aborts
 * on the first matmul or conv row).
 */
export const REQUIRED_COLUMNS = [
  ...ALWAYS_REQUIRED_COLUMNS,
  "HOST START TS",
  "DEVICE KERNEL DURATION [ns]",
  "OP TO OP LATENCY [ns]",
  "CORE COUNT",
  "MATH FIDELITY",
  "INPUT_1_MEMORY",
  "OUTPUT_0_MEMORY",
  "INPUT_0_DATATYPE",
  "INPUT_1_DATATYPE",
  "OUTPUT_0_DATATYPE",
] as const;

/** The shape columns the matmul and conv models read, before the format's suffix. */
export const SHAPE_COLUMNS = [
  "INPUT_0_W",
  "INPUT_0_Z",
  "INPUT_0_Y",
  "INPUT_0_X",
  "INPUT_1_W",
  "INPUT_1_Z",
  "INPUT_1_Y",
  "INPUT_1_X",
  "OUTPUT_0_W",
  "OUTPUT_0_Z",
  "OUTPUT_0_Y",
  "OUTPUT_0_X",
] as const;

/** The columns a header needs, with shape columns named for the header's format (v1 or v2). */
export function requiredColumns(header: readonly string[]): string[] {
  const format = detectCsvFormat(pandasColumnNames(header));
  return [...REQUIRED_COLUMNS, ...SHAPE_COLUMNS.map((c) => shapeColumn(c, format))];
}

/** The columns of {@link requiredColumns} that `header` lacks, in that order. */
export function missingColumns(header: readonly string[]): string[] {
  const have = new Set(pandasColumnNames(header));
  return requiredColumns(header).filter((c) => !have.has(c));
}

/**
 * Columns a report means nothing without, checked before generating one: the ones
 * tt-perf-report aborts without, and each op's device duration and op-to-op latency. The
 * columns only the matmul and conv models read are left to generation, which refuses at the
 * first such row rather than a CSV holding none.
 */
export const REPORTABLE_COLUMNS = [
  ...ALWAYS_REQUIRED_COLUMNS,
  "DEVICE KERNEL DURATION [ns]",
  "OP TO OP LATENCY [ns]",
] as const;

/** The columns of {@link REPORTABLE_COLUMNS} that `header` lacks, in that order. */
export function missingReportableColumns(header: readonly string[]): string[] {
  const have = new Set(pandasColumnNames(header));
  return REPORTABLE_COLUMNS.filter((c) => !have.has(c));
}
