/**
 * `demo`: loads the sample capture bundled in `fixtures/demo/` through the same tools an
 * agent calls and prints what it holds and where its time went, for a newcomer's first run;
 * each answer is shown by the renderer `call` uses at a terminal.
 *
 * @module
 */
import { callTool } from "../protocol/tool_call.ts";
import { loadTools } from "../tools/registry.ts";
import { HandleRegistry } from "../session/handles.ts";
import type { Roots } from "../kit/roots.ts";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";
import { renderAnswer } from "./renderers.ts";
import type { View } from "./render/text.ts";

/** The bundled sample capture. */
export const DEMO_DIR = new URL("../../fixtures/demo/", import.meta.url);

/** Prints the demo; returns the exit code. */
export async function runDemo(
  _roots: Roots,
  out: (s: string) => void,
  err: (s: string) => void,
  view: View = { width: 80, colour: false },
): Promise<number> {
  const tools = await loadTools();
  const ctx: ToolEnvironment = {
    registry: new HandleRegistry(),
    roots: _roots,
    signal: new AbortController().signal,
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const called = await callTool(tools.find((t) => t.name === name) as Tool, args, ctx);
    if (called.outcome !== "ok") {
      const text = (called.result.content as { text: string }[])[0].text;
      throw new Error(`${name}: ${text}`);
    }
    return called.result.structuredContent as Record<string, unknown>;
  };
  try {
    const dir = decodeURIComponent(DEMO_DIR.pathname).replace(/^\/([A-Za-z]:)/, "$1");
    const loaded = await call("load_report", {
      profiler_path: `${dir}profiler`,
      performance_path: `${dir}performance`,
    });
    for (const line of summariseLoad(loaded)) out(line);
    for (const section of await demoSections(loaded, call, view)) out(section);
    out("");
    out(
      "Next: register the server with your agent (claude mcp add ttnn-visualizer -- ttnn-visualizer-mcp)",
    );
    out(
      `or ask one question here: deno task call top_ops --performance ${dir}performance --limit 3`,
    );
    return 0;
  } catch (e) {
    err(`demo failed: ${(e as Error).message}`);
    return 1;
  }
}

/** The lines describing a load_report answer. */
export function summariseLoad(loaded: Record<string, unknown>): string[] {
  const lines = [`Loaded the sample capture as ${loaded.handle}.`];
  const arch = loaded.arch as Record<string, string>;
  const devices = loaded.device_count as Record<string, number>;
  for (const [file, value] of Object.entries(arch)) lines.push(`  arch (${file}): ${value}`);
  for (const [file, value] of Object.entries(devices)) lines.push(`  devices (${file}): ${value}`);
  if (loaded.performance_csv) lines.push(`  performance CSV: ${loaded.performance_csv}`);
  const signposts = (loaded.signposts ?? []) as { name: string; count: number }[];
  if (signposts.length > 0) {
    lines.push(`  signposts: ${signposts.map((s) => `${s.name} ×${s.count}`).join(", ")}`);
  }
  const db = loaded.profiler_database as { tables: string[] } | null | undefined;
  if (db) lines.push(`  profiler database tables: ${db.tables.join(", ")}`);
  const answerable = loaded.answerable as string[];
  lines.push(
    `  tools that can answer: ${answerable.length > 0 ? answerable.join(", ") : "none yet"}`,
  );
  const reasons = loaded.unanswerable_reasons as Record<string, string>;
  for (const [tool, why] of Object.entries(reasons)) lines.push(`  ${tool} cannot: ${why}`);
  const idle = loaded.data_present_without_tools as string[];
  if (idle.length > 0) lines.push(`  present, but no tool reads it yet: ${idle.join(", ")}`);
  return lines;
}

/** A demo section: a tool, the arguments it is called with, and whether the tool can answer. */
interface Section {
  tool: string;
  args: (loaded: Record<string, unknown>) => Record<string, unknown>;
}

/** The sections, in order: each is the tool's answer as its renderer shows it at a terminal. */
const SECTIONS: readonly Section[] = [
  { tool: "top_ops", args: () => ({ by: "device_time", limit: 5 }) },
  {
    tool: "op_breakdown",
    args: (loaded) => {
      const [first, second] = (loaded.signposts ?? []) as { name: string }[];
      return first && second
        ? { limit: 5, start_signpost: first.name, end_signpost: second.name }
        : { limit: 5 };
    },
  },
  { tool: "lower_bounds", args: () => ({ limit: 3 }) },
  { tool: "device_timeline", args: () => ({ limit: 5 }) },
  { tool: "core_utilisation", args: () => ({}) },
];

/**
 * The answerable tools' answers, each rendered as `call` renders it on a terminal, then the
 * costliest operation's spread across its cores in one sentence.
 */
async function demoSections(
  loaded: Record<string, unknown>,
  call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  view: View,
): Promise<string[]> {
  const sections: string[] = [];
  const answerable = new Set(loaded.answerable as string[]);
  for (const section of SECTIONS.filter((s) => answerable.has(s.tool))) {
    const answer = await call(section.tool, { handle: loaded.handle, ...section.args(loaded) });
    sections.push("", rule(section.tool, view), ...await renderAnswer(section.tool, answer, view));
  }
  if (answerable.has("core_spread")) {
    const cs = await call("core_spread", { handle: loaded.handle, limit: 1 });
    const op = (cs.operations as Record<string, unknown>[])[0];
    if (op?.in_log) {
      const span = op.span_us as Record<string, number>;
      sections.push(
        "",
        rule("core_spread", view),
        `Inside the costliest op (row ${op.id}, ${op.op_code}): ${op.cores_recorded} of the CSV's ` +
          `${op.core_count} cores recorded zones in the device log; per-core span min ${span.min} / median ${span.median} / max ${span.max} µs, ` +
          `imbalance ${op.imbalance}`,
      );
    }
  }
  return sections;
}

/** A rule naming the tool whose answer follows, as the command that gives it. */
function rule(tool: string, view: View): string {
  const label = `── call ${tool} `;
  return label + "─".repeat(Math.max(0, view.width - label.length));
}
