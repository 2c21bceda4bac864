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

/** Names `step` as a next step when its tool can answer for `inv`; says whether it did. */
export function nextIf(
  ctx: { parts: PartsWriter; report: { inventory: Inventory } },
  step: NextStep,
): boolean {
  if (whyNotNext(step.tool, ctx.report.inventory) !== null) return false;
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
  for (const step of parts.dropNext((s) => whyNotNext(s.tool, inv) !== null)) {
    parts.caveat(unanswerable(step, inv));
  }
}
