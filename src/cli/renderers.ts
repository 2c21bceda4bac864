/**
 * Which module renders each tool's answer for a person at a terminal, named by URL so that
 * none is loaded unless an answer is rendered: a one-shot call on a pipe prints JSON and loads
 * no renderer, and one on a terminal loads only its own tool's (`deno compile` embeds them
 * through `LAZY_MODULES`, scripts/compile_plan.ts). A tool without one of its own gets the
 * generic renderer: its key figures, then its first list as a table.
 *
 * @module
 */
import type { View } from "./render/text.ts";
import type { Rendered } from "./render/answer.ts";
import { INCLUDE_FIELDS, type IncludeGroup } from "../analysis/include_groups.ts";
import { MAX_DETAILED_ROWS } from "../analysis/row_detail.ts";
import type { TopOpsAnswer } from "../tools/top_ops.ts";
import type { OpBreakdownAnswer } from "../tools/op_breakdown.ts";
import type { ProgramCacheAnswer } from "../tools/program_cache.ts";
import type { DiffReportsAnswer } from "../tools/diff_reports.ts";
import type { LowerBoundsAnswer } from "../tools/lower_bounds.ts";
import type { DeviceTimelineAnswer } from "../tools/device_timeline.ts";
import type { CoreUtilisationAnswer } from "../tools/core_utilisation.ts";

/** What a renderer module of answers `A` exports. */
export interface RendererModule<A extends object = object> {
  render(answer: Rendered<A>, view: View, tool: string): string[];
}

/** The answer of each tool with a renderer of its own. */
export interface OwnRendered {
  top_ops: TopOpsAnswer;
  op_breakdown: OpBreakdownAnswer;
  program_cache: ProgramCacheAnswer;
  diff_reports: DiffReportsAnswer;
  lower_bounds: LowerBoundsAnswer;
  device_timeline: DeviceTimelineAnswer;
  core_utilisation: CoreUtilisationAnswer;
}

/**
 * Each renderer module as the compiler sees it (types only: nothing is loaded here), held to
 * render its own tool's answer: a renderer that reads another answer type, or a renamed
 * field, fails `deno check` here.
 */
export type OwnRenderers = Checked<{
  top_ops: typeof import("./render/top_ops.ts");
  op_breakdown: typeof import("./render/op_breakdown.ts");
  program_cache: typeof import("./render/program_cache.ts");
  diff_reports: typeof import("./render/diff_reports.ts");
  lower_bounds: typeof import("./render/lower_bounds.ts");
  device_timeline: typeof import("./render/device_timeline.ts");
  core_utilisation: typeof import("./render/core_utilisation.ts");
}>;

type Checked<M extends { [T in keyof OwnRendered]: RendererModule<OwnRendered[T]> }> = M;

/** The renderer every tool without its own uses. */
export const GENERIC_RENDERER = new URL("./render/generic.ts", import.meta.url);

/** The tools with a renderer of their own, and its module. */
export const TOOL_RENDERERS: { readonly [T in keyof OwnRendered]: URL } = {
  top_ops: new URL("./render/top_ops.ts", import.meta.url),
  op_breakdown: new URL("./render/op_breakdown.ts", import.meta.url),
  program_cache: new URL("./render/program_cache.ts", import.meta.url),
  diff_reports: new URL("./render/diff_reports.ts", import.meta.url),
  lower_bounds: new URL("./render/lower_bounds.ts", import.meta.url),
  device_timeline: new URL("./render/device_timeline.ts", import.meta.url),
  core_utilisation: new URL("./render/core_utilisation.ts", import.meta.url),
};

/** Every renderer module, for the compile plan. */
export const RENDERER_MODULES: readonly URL[] = [
  GENERIC_RENDERER,
  ...Object.values(TOOL_RENDERERS),
];

/**
 * The renderer of `tool` (its own, or the generic one), loaded now. This is where an answer
 * the CLI got back as JSON meets its tool's answer type: the one unchecked step between the
 * tool and the screen. It holds because the JSON is the tool's own answer (as its handler
 * returned it, parts added) and each module is held to that answer type by `OwnRenderers`.
 */
export async function loadRenderer(tool: string): Promise<RendererModule> {
  const url = isOwnRendered(tool) ? TOOL_RENDERERS[tool] : GENERIC_RENDERER;
  return await import(url.href) as RendererModule;
}

function isOwnRendered(tool: string): tool is keyof OwnRendered {
  return Object.hasOwn(TOOL_RENDERERS, tool);
}

/** `answer` of `tool` as the lines a person reads. */
export async function renderAnswer(
  tool: string,
  answer: object,
  view: View,
): Promise<string[]> {
  return (await loadRenderer(tool)).render(answer, view, tool);
}

/**
 * The include groups a tool's table needs for tt-perf-report's columns on a terminal (op-to-op
 * gap, DRAM GB/s and %, FLOPs and %, math fidelity): asked for only when rendering, so the
 * JSON answer of the same call is what the person's own arguments give.
 */
export const TERMINAL_INCLUDES: Readonly<Record<string, readonly IncludeGroup[]>> = {
  top_ops: ["config", "utilisation", "dispatch"],
};

/**
 * The arguments `tool` is called with to be rendered on a terminal, and the include fields
 * added only for its columns. None are added when the rows asked for exceed include's cap
 * (include would cut them).
 *
 * @example
 * ```ts
 * import { forTerminal } from "./renderers.ts";
 * const t = forTerminal("top_ops", { limit: 5, include: ["utilisation"] });
 * if (!t.args.include || !t.unasked.includes("op_to_op_gap") || t.unasked.includes("dram")) {
 *   throw new Error(JSON.stringify(t));
 * }
 * if (forTerminal("top_ops", { limit: 50 }).unasked.length !== 0) throw new Error();
 * ```
 */
export function forTerminal(
  tool: string,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; unasked: string[] } {
  const wanted = TERMINAL_INCLUDES[tool] ?? [];
  const limit = typeof args.limit === "number" ? args.limit : 10;
  if (wanted.length === 0 || limit > MAX_DETAILED_ROWS) return { args, unasked: [] };
  const asked = Array.isArray(args.include) ? args.include as string[] : [];
  const added = wanted.filter((g) => !asked.includes(g));
  if (added.length === 0) return { args, unasked: [] };
  return {
    args: { ...args, include: [...asked, ...added] },
    unasked: INCLUDE_FIELDS.filter((f) => added.includes(f.group)).map((f) => f.name),
  };
}
