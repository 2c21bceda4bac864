/**
 * Phrases the performance renderers share: the window an answer covers (from its projection),
 * what its operation link says about the `op id` column, and the units of each metric.
 *
 * @module
 */
import { figure } from "./text.ts";
import type { Projection } from "../../analysis/performance.ts";
import type { OperationLinkBlock } from "../../analysis/operation_link.ts";

/** The fields of a projection that say which window it covers. */
export type WindowFields = Pick<
  Projection,
  "start_signpost" | "end_signpost" | "start_occurrence" | "signpost_range_ignored"
>;

/** Each metric's name as a column header, with its unit. */
export const METRIC_HEADERS: Readonly<Record<string, string>> = {
  device_time: "device µs",
  op_to_op_gap: "gap µs",
  total_percent: "Total %",
  flops: "TFLOPs",
  dram: "DRAM GB/s",
  cores: "cores",
  count: "ops",
};

/** Each metric as words in a heading. */
export const METRIC_WORDS: Readonly<Record<string, string>> = {
  device_time: "device time",
  op_to_op_gap: "op-to-op gap",
  total_percent: "Total % (device time plus gaps)",
  flops: "TFLOPs",
  dram: "DRAM bandwidth",
  cores: "core count",
  count: "count",
};

/** Each metric's unit, after a figure. */
export const METRIC_UNITS: Readonly<Record<string, string>> = {
  device_time: "µs",
  op_to_op_gap: "µs",
  total_percent: "%",
  flops: "TFLOPs",
  dram: "GB/s",
  cores: "cores",
  count: "ops",
};

/**
 * The window a projection covers, as words.
 *
 * @example
 * ```ts
 * import { windowOf } from "./perf_parts.ts";
 * const w = windowOf({ start_signpost: "A", end_signpost: "B", start_occurrence: 2 });
 * if (w !== "between A (occurrence 2) and B") throw new Error(w);
 * ```
 */
export function windowOf(projection: WindowFields | undefined): string {
  const p = projection ?? {};
  if (p.signpost_range_ignored) return "over the whole report (the signpost range was ignored)";
  const start = typeof p.start_signpost === "string" ? p.start_signpost : null;
  const end = typeof p.end_signpost === "string" ? p.end_signpost : null;
  const occurrence = typeof p.start_occurrence === "number" && p.start_occurrence > 1
    ? ` (occurrence ${p.start_occurrence})`
    : "";
  if (start && end) return `between ${start}${occurrence} and ${end}`;
  if (start) return `after ${start}${occurrence}`;
  if (end) return `before ${end}`;
  return "over the whole report";
}

/** What an `operation_link` block says about the rows' profiler ids, in one sentence. */
export function linkSentence(block: OperationLinkBlock | undefined): string | null {
  if (block?.status === undefined) return null;
  const link = block;
  if (link.status === "linked") {
    const reasons = Object.entries(link.unlinked_by_reason ?? {})
      .filter(([, n]) => typeof n === "number" && n > 0)
      .map(([why, n]) => `${n} ${why.replaceAll("_", " ")}`);
    return `op id is the profiler database's operation_id at rank ${figure(link.rank)} ` +
      `(linked on ${figure(link.matched_on)}, ${figure(link.matched_rows)} rows matched` +
      (reasons.length > 0 ? `; unlinked: ${reasons.join(", ")}` : "") +
      "): pass it to operation_detail --operation-id; row is the CSV line, a different id.";
  }
  return `op id is unknown: the rows are not linked to a profiler report (${figure(link.status)}${
    link.reason ? `: ${link.reason}` : ""
  }).`;
}
