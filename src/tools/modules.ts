/**
 * Where each tool is defined, so that a one-shot `call` loads `load_report` and the one tool
 * it calls rather than every tool and everything behind them (the profiler database, the
 * device log, the L1 replay): a third of a cold call on a small report was module loading.
 *
 * The modules are named by URL, not by a literal `import()`, because Deno fetches and prepares
 * every module a literal dynamic import names before the program starts, used or not. The
 * server (`protocol/stdio.ts`) still loads them all through the catalog, and `deno compile` embeds them
 * through it (see `LAZY_MODULES` in `scripts/compile_plan.ts`).
 *
 * @module
 */
import type { Tool } from "./tool.ts";

/** Every tool but `load_report` (which a call always loads), in the catalog's order. */
export const TOOL_MODULES: ReadonlyMap<string, URL> = new Map([
  ["top_ops", new URL("./top_ops.ts", import.meta.url)],
  ["op_breakdown", new URL("./op_breakdown.ts", import.meta.url)],
  ["program_cache", new URL("./program_cache.ts", import.meta.url)],
  ["diff_reports", new URL("./diff_reports.ts", import.meta.url)],
  ["lower_bounds", new URL("./lower_bounds.ts", import.meta.url)],
  ["find_operations", new URL("./find_operations.ts", import.meta.url)],
  ["operation_detail", new URL("./operation_detail.ts", import.meta.url)],
  ["memory_profile", new URL("./memory_profile.ts", import.meta.url)],
  ["tensor_flow", new URL("./tensor_flow.ts", import.meta.url)],
  ["operation_provenance", new URL("./operation_provenance.ts", import.meta.url)],
  ["errors", new URL("./errors.ts", import.meta.url)],
  ["dram_fallbacks", new URL("./dram_fallbacks.ts", import.meta.url)],
  ["l1_peak", new URL("./l1_peak.ts", import.meta.url)],
  ["zone_timings", new URL("./zone_timings.ts", import.meta.url)],
  ["core_spread", new URL("./core_spread.ts", import.meta.url)],
  ["perf_counters", new URL("./perf_counters.ts", import.meta.url)],
  ["device_timeline", new URL("./device_timeline.ts", import.meta.url)],
  ["core_utilisation", new URL("./core_utilisation.ts", import.meta.url)],
  ["core_states", new URL("./core_states.ts", import.meta.url)],
]);

/** The tool `name` from its own module, or undefined for a name no module defines. */
export async function loadTool(name: string): Promise<Tool | undefined> {
  const url = TOOL_MODULES.get(name);
  if (url === undefined) return undefined;
  const module: Record<string, unknown> = await import(url.href);
  return Object.values(module).find((v): v is Tool =>
    typeof v === "object" && v !== null && (v as Tool).name === name &&
    typeof (v as Tool).handler === "function"
  );
}
