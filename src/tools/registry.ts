/**
 * The one list of tools: every tool's name and the module that defines it, in the order
 * `tools/list` gives them. The server's catalog, a one-shot call, the compile plan, the
 * README's tool table and the command line's help are all derived from it.
 *
 * Modules are named by URL, not by a literal `import()`, because Deno fetches and prepares
 * every module a literal dynamic import names before the program starts, used or not: a
 * one-shot `call` loads `load_report` and the one tool it calls, not every tool and everything
 * behind them (the profiler database, the device log, the L1 replay). `deno compile` embeds
 * them through `scripts/compile_plan.ts`, which reads this list.
 *
 * @module
 */
import type { Tool } from "./tool.ts";
import type { loadReportTool } from "./load_report.ts";

/** One tool: its name and its module. */
export interface ToolEntry {
  readonly name: string;
  readonly module: URL;
}

/** Every tool, `load_report` first. */
export const TOOLS: readonly ToolEntry[] = [
  { name: "load_report", module: new URL("./load_report.ts", import.meta.url) },
  { name: "top_ops", module: new URL("./top_ops.ts", import.meta.url) },
  { name: "op_breakdown", module: new URL("./op_breakdown.ts", import.meta.url) },
  { name: "program_cache", module: new URL("./program_cache.ts", import.meta.url) },
  { name: "diff_reports", module: new URL("./diff_reports.ts", import.meta.url) },
  { name: "lower_bounds", module: new URL("./lower_bounds.ts", import.meta.url) },
  { name: "find_operations", module: new URL("./find_operations.ts", import.meta.url) },
  { name: "operation_detail", module: new URL("./operation_detail.ts", import.meta.url) },
  { name: "memory_profile", module: new URL("./memory_profile.ts", import.meta.url) },
  { name: "tensor_flow", module: new URL("./tensor_flow.ts", import.meta.url) },
  { name: "operation_provenance", module: new URL("./operation_provenance.ts", import.meta.url) },
  { name: "errors", module: new URL("./errors.ts", import.meta.url) },
  { name: "dram_fallbacks", module: new URL("./dram_fallbacks.ts", import.meta.url) },
  { name: "l1_peak", module: new URL("./l1_peak.ts", import.meta.url) },
  { name: "zone_timings", module: new URL("./zone_timings.ts", import.meta.url) },
  { name: "core_spread", module: new URL("./core_spread.ts", import.meta.url) },
  { name: "perf_counters", module: new URL("./perf_counters.ts", import.meta.url) },
  { name: "device_timeline", module: new URL("./device_timeline.ts", import.meta.url) },
  { name: "core_utilisation", module: new URL("./core_utilisation.ts", import.meta.url) },
  { name: "core_states", module: new URL("./core_states.ts", import.meta.url) },
];

/** Every tool's name, in the list's order. */
export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);

/**
 * The tool `name` from its own module, or undefined for a name no module defines.
 * `load_report` is made over `others`, the tools whose listing it reports.
 */
export async function loadTool(
  name: string,
  others: () => readonly Tool[] = () => [],
): Promise<Tool | undefined> {
  const entry = TOOLS.find((t) => t.name === name);
  if (entry === undefined) return undefined;
  const module: Record<string, unknown> = await import(entry.module.href);
  if (name === "load_report") {
    return (module as { loadReportTool: typeof loadReportTool }).loadReportTool(others);
  }
  return Object.values(module).find((v): v is Tool =>
    typeof v === "object" && v !== null && (v as Tool).name === name &&
    typeof (v as Tool).run === "function"
  );
}

/**
 * Load `names` (every tool when omitted), `load_report` first whether named or not: it
 * reports which of the loaded tools can answer for a report.
 */
export async function loadTools(names: readonly string[] = TOOL_NAMES): Promise<Tool[]> {
  const tools: Tool[] = [];
  const others = await Promise.all(
    names.filter((n) => n !== "load_report").map(async (n) => {
      const tool = await loadTool(n);
      if (tool === undefined) throw new Error(`no tool named ${n}`);
      return tool;
    }),
  );
  tools.push((await loadTool("load_report", () => tools))!, ...others);
  return tools;
}
