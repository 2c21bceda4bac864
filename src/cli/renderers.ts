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

/** What a renderer module exports. */
export interface RendererModule {
  render(answer: Record<string, unknown>, view: View, tool: string): string[];
}

/** The renderer every tool without its own uses. */
export const GENERIC_RENDERER = new URL("./render/generic.ts", import.meta.url);

/** The tools with a renderer of their own, and its module. */
export const TOOL_RENDERERS: Readonly<Record<string, URL>> = {
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

/** The renderer of `tool` (its own, or the generic one), loaded now. */
export async function loadRenderer(tool: string): Promise<RendererModule> {
  const url = Object.hasOwn(TOOL_RENDERERS, tool) ? TOOL_RENDERERS[tool] : GENERIC_RENDERER;
  return await import(url.href) as RendererModule;
}

/** `answer` of `tool` as the lines a person reads. */
export async function renderAnswer(
  tool: string,
  answer: Record<string, unknown>,
  view: View,
): Promise<string[]> {
  return (await loadRenderer(tool)).render(answer, view, tool);
}
