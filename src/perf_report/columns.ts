/**
 * The performance-CSV columns without which tt-perf-report cannot build its report.
 *
 * @module
 */

/**
 * Columns a report cannot be generated without: the op's name and type, its device
 * duration and op-to-op latency, and input 0's memory (tt-perf-report aborts without it).
 */
export const REQUIRED_COLUMNS = [
  "OP CODE",
  "OP TYPE",
  "DEVICE KERNEL DURATION [ns]",
  "OP TO OP LATENCY [ns]",
  "INPUT_0_MEMORY",
] as const;

/**
 * The required columns `header` lacks, in the order above.
 *
 * @example
 * ```ts
 * import { missingColumns } from "./columns.ts";
 * const m = missingColumns(["OP CODE", "OP TYPE"]);
 * if (m.join("|") !== "DEVICE KERNEL DURATION [ns]|OP TO OP LATENCY [ns]|INPUT_0_MEMORY") throw new Error();
 * ```
 */
export function missingColumns(header: readonly string[]): string[] {
  const have = new Set(header);
  return REQUIRED_COLUMNS.filter((c) => !have.has(c));
}
