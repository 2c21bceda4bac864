/**
 * The tools this server offers, in the order `tools/list` gives them. Only tools that are
 * implemented are here: a tool is never advertised before it can answer.
 *
 * @module
 */
import type { Tool } from "./tool.ts";
import { loadReportTool } from "./load_report.ts";
import { topOps } from "./top_ops.ts";
import { opBreakdown } from "./op_breakdown.ts";
import { programCache } from "./program_cache.ts";
import { diffReports } from "./diff_reports.ts";
import { lowerBounds } from "./lower_bounds.ts";
import { findOperationsTool } from "./find_operations.ts";
import { operationDetailTool } from "./operation_detail.ts";
import { memoryProfileTool } from "./memory_profile.ts";
import { tensorFlowTool } from "./tensor_flow.ts";
import { operationProvenanceTool } from "./operation_provenance.ts";
import { zoneTimings } from "./zone_timings.ts";
import { coreSpread } from "./core_spread.ts";
import { perfCounters } from "./perf_counters.ts";
import { deviceTimeline } from "./device_timeline.ts";
import { coreUtilisation } from "./core_utilisation.ts";
import { coreStates } from "./core_states.ts";
import { errorsTool } from "./errors.ts";
import { dramFallbacksTool } from "./dram_fallbacks.ts";
import { l1PeakTool } from "./l1_peak.ts";

/** Every tool, `load_report` first. */
export function catalog(): Tool[] {
  const tools: Tool[] = [];
  tools.push(
    loadReportTool(() => tools),
    topOps,
    opBreakdown,
    programCache,
    diffReports,
    lowerBounds,
    findOperationsTool,
    operationDetailTool,
    memoryProfileTool,
    tensorFlowTool,
    operationProvenanceTool,
    errorsTool,
    dramFallbacksTool,
    l1PeakTool,
    zoneTimings,
    coreSpread,
    perfCounters,
    deviceTimeline,
    coreUtilisation,
    coreStates,
  );
  return tools;
}
