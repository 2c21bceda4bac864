/**
 * Internal: which tools a `next` step may name for a handle. A next step the handle cannot
 * answer sends the agent into a refusal load_report already gave, so a tool names a step only
 * through `nextIf` (which says whether it did, so the tool can offer another), and the
 * framework drops any that slipped through, saying why and how to capture what is missing.
 *
 * @module
 */
import type { Inventory } from "../session/inventory.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  coreSpreadUnavailable,
  countersUnavailable,
  timelineUnavailable,
  zoneTimingsUnavailable,
} from "../session/device_log.ts";
import { cannotAnswerFrom, profilerDbUnavailable } from "../session/profiler_db.ts";
import { L1_PEAK_NEEDS, L1_PEAK_RANKED } from "../analysis/l1_peak.ts";
import type { NextStep, PartsWriter } from "./answer_parts.ts";
import { lowerBoundsUnavailable } from "../analysis/lower_bounds.ts";
import { programCacheUnavailable } from "../analysis/program_calls.ts";

/** How to capture the graphs l1_peak replays, when the database has none. */
const GRAPH_RECIPE = "to capture them, run the model with the TT-NN profiler's graph report on " +
  '(TTNN_CONFIG_OVERRIDES with "enable_graph_report": true, "enable_fast_runtime_mode": false ' +
  'and "enable_logging": true), then load_report the new report';

/** Why a tool cannot answer for an inventory, per tool a next step may name. */
const CHECKS: Record<string, (inv: Inventory) => string | null> = {
  top_ops: performanceCsvUnavailable,
  op_breakdown: performanceCsvUnavailable,
  program_cache: programCacheUnavailable,
  lower_bounds: lowerBoundsUnavailable,
  zone_timings: zoneTimingsUnavailable,
  core_spread: coreSpreadUnavailable,
  perf_counters: countersUnavailable,
  device_timeline: timelineUnavailable,
  core_utilisation: timelineUnavailable,
  core_states: timelineUnavailable,
  l1_peak: (inv) => {
    const why = cannotAnswerFrom(L1_PEAK_NEEDS, L1_PEAK_RANKED)(inv);
    return why !== null && why.includes("captured_graph") ? `${why}: ${GRAPH_RECIPE}` : why;
  },
  errors: profilerDbUnavailable,
  operation_detail: profilerDbUnavailable,
  memory_profile: profilerDbUnavailable,
  find_operations: profilerDbUnavailable,
  dram_fallbacks: profilerDbUnavailable,
  tensor_flow: profilerDbUnavailable,
  operation_provenance: profilerDbUnavailable,
};

/** Why `tool` cannot answer for `inv`, or null when it can (or is not one checked here). */
export function whyNotNext(tool: string, inv: Inventory): string | null {
  return CHECKS[tool]?.(inv) ?? null;
}

/**
 * Why `tool` cannot answer, judged without reading a performance CSV this call has not read
 * (a one-shot call of a tool that reads the device log only, where reading it would cost more
 * than the answer): the step's check runs with the CSV taken as reportable, and `assumed`
 * says when that mattered. A check that finds something else missing, or that needs the CSV's
 * contents, is judged in full.
 */
function judged(tool: string, inv: Inventory): { why: string | null; assumed: boolean } {
  const perf = inv.performance;
  if (perf === null || perf.csvJudged !== false) {
    return { why: whyNotNext(tool, inv), assumed: false };
  }
  let asked = false;
  const unread = Object.create(perf, {
    csvRead: { get: () => (asked = true, null) },
    whole: { get: () => (asked = true, null) },
    wholeProblem: { get: () => (asked = true, null) },
  });
  const why = whyNotNext(tool, { ...inv, performance: unread });
  if (!asked) return { why, assumed: false };
  return why === null ? { why, assumed: true } : { why: whyNotNext(tool, inv), assumed: false };
}

/** Says that a next step was named with the unread performance CSV taken as reportable. */
function assumeCsv(parts: PartsWriter, tool: string): void {
  parts.assume("performance_csv", {
    assumed: "can be reported on",
    why: `this call read the device log only, not the performance CSV, so ${tool} is named as ` +
      "the next step without it; it reads the CSV and refuses, saying why, if it cannot be " +
      "reported on",
    override: "call load_report, which reads the CSV and lists what can answer",
  });
}

/** Names `step` as a next step when its tool can answer for `inv`; says whether it did. */
export function nextIf(
  ctx: { parts: PartsWriter; report: { inventory: Inventory } },
  step: NextStep,
): boolean {
  const { why, assumed } = judged(step.tool, ctx.report.inventory);
  if (why !== null) return false;
  if (assumed) assumeCsv(ctx.parts, step.tool);
  ctx.parts.next(step);
  return true;
}

/**
 * Names `step` when its tool can answer for the handle; otherwise says why it cannot (and how to
 * capture what is missing) as a caveat. Says whether it named it, so the caller can offer
 * another step.
 */
export function nextOrSay(
  ctx: { parts: PartsWriter; report: { inventory: Inventory } },
  step: NextStep,
): boolean {
  if (nextIf(ctx, step)) return true;
  ctx.parts.caveat(unanswerable(step, ctx.report.inventory));
  return false;
}

function unanswerable(step: NextStep, inv: Inventory): string {
  return `${step.tool} would be the next step (${step.why}) but cannot answer for this ` +
    `handle: ${whyNotNext(step.tool, inv)}.`;
}

/**
 * Drops the next steps whose tool cannot answer for `inv`, with a caveat saying why (and, for
 * missing data, how to capture it).
 */
export function dropUnanswerableNext(parts: PartsWriter, inv: Inventory): void {
  for (const step of parts.dropNext((s) => judged(s.tool, inv).why !== null)) {
    parts.caveat(unanswerable(step, inv));
  }
}
