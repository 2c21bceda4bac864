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
import { type View, wrap } from "./render/text.ts";

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
    // A summary line (the tools that can answer) can run past the terminal: wrapped to it.
    for (const line of summariseLoad(loaded)) {
      const lead = /^ */.exec(line)![0];
      for (const part of wrap(line.slice(lead.length), view.width, lead, `${lead}    `)) {
        out(part);
      }
    }
    for (const section of await demoSections(loaded, call, view, dir)) out(section);
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
  const lines = [
    `Loaded the sample capture as ${loaded.handle}: a small synthetic capture of a two-layer ` +
    "decoder step on one Wormhole device, written by scripts/make_demo_fixture.ts — its CSV, " +
    "device log and profiler database were made together, so their figures agree where a real " +
    "capture's would.",
  ];
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
  const reasons = loaded.unanswerable_reasons as { reason: string; tools: string[] }[];
  // Each reason is a paragraph; its first sentence says what is missing, the rest how to get it.
  for (const { reason, tools } of reasons) {
    for (const tool of tools) {
      lines.push(`  ${tool} cannot: ${reason.split(": ")[0]} (why: deno task call ${tool} --help)`);
    }
  }
  const idle = loaded.data_present_without_tools as string[];
  if (idle.length > 0) lines.push(`  present, but no tool reads it yet: ${idle.join(", ")}`);
  return lines;
}

/**
 * A step of the talk's walk: what it asks, the scope its figures are over, the tool that
 * answers and its arguments, and which blocks of the rendering (split at blank lines) it shows.
 */
interface Step {
  title: string;
  scope: string;
  tool: string;
  args: Record<string, unknown>;
  blocks: readonly number[];
}

/**
 * The steps, in the talk's order: token time and device busy time, the op intervals, the ops
 * ranked by their gap to the limit, the cores' utilisation, then inside the costliest op.
 */
const STEPS: readonly Step[] = [
  {
    title: "Token time → device busy time",
    scope: "device busy time",
    tool: "device_timeline",
    args: { limit: 5 },
    blocks: [0],
  },
  {
    title: "Op intervals, by op code",
    scope: "device busy time",
    tool: "device_timeline",
    args: { limit: 5 },
    blocks: [1],
  },
  {
    title: "Operations by device time",
    scope: "whole report",
    tool: "top_ops",
    args: { by: "device_time", limit: 5 },
    blocks: [0],
  },
  {
    title: "Ranked by gap to the limit",
    scope: "whole report",
    tool: "lower_bounds",
    args: { limit: 3 },
    blocks: [0],
  },
  {
    title: "Core utilisation",
    scope: "device busy time",
    tool: "core_utilisation",
    args: {},
    blocks: [0, 1],
  },
];

/**
 * The answerable steps, each its tool's rendering as `call` shows it on a terminal (the blocks
 * the step is about, and the command that prints the rest), then the costliest operation's
 * spread across its cores in one sentence.
 */
async function demoSections(
  loaded: Record<string, unknown>,
  call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  view: View,
  dir: string,
): Promise<string[]> {
  const sections: string[] = [];
  const answerable = new Set(loaded.answerable as string[]);
  let n = 0;
  // Two steps may show two parts of one answer (device_timeline): it is asked and rendered once.
  const rendered = new Map<string, string[][]>();
  for (const step of STEPS.filter((s) => answerable.has(s.tool))) {
    const key = `${step.tool} ${JSON.stringify(step.args)}`;
    let blocks = rendered.get(key);
    if (blocks === undefined) {
      const answer = await call(step.tool, { handle: loaded.handle, ...step.args });
      rendered.set(key, blocks = blocksOf(await renderAnswer(step.tool, answer, view)));
    }
    n += 1;
    sections.push(
      "",
      rule(`${n}. ${step.title} (${step.scope})`, view),
      ...step.blocks.flatMap((b) => blocks[b] ?? []),
      `  the whole answer: deno task call ${step.tool} --performance ${dir}performance`,
    );
  }
  if (answerable.has("core_spread")) {
    const cs = await call("core_spread", { handle: loaded.handle, limit: 1 });
    const op = (cs.operations as Record<string, unknown>[])[0];
    if (op?.in_log) {
      const span = op.span_us as Record<string, number>;
      sections.push(
        "",
        rule(`${n + 1}. Inside the core (row ${op.id}, the costliest op)`, view),
        ...wrap(
          `Inside the costliest op (row ${op.id}, ${op.op_code}): ${op.cores_recorded} of the CSV's ` +
            `${op.core_count} cores recorded zones in the device log; per-core span min ${span.min} / median ${span.median} / max ${span.max} µs, ` +
            `imbalance ${op.imbalance}`,
          view.width,
        ),
        `  per RISC: deno task call core_states --performance ${dir}performance --perf-id ${op.id}`,
      );
    }
  }
  return sections;
}

/** A rendering's lines in blocks, split at its blank lines. */
function blocksOf(lines: readonly string[]): string[][] {
  const blocks: string[][] = [[]];
  for (const line of lines) {
    if (line === "") {
      if (blocks[blocks.length - 1].length > 0) blocks.push([]);
    } else blocks[blocks.length - 1].push(line);
  }
  return blocks;
}

/** A rule naming the step that follows and the scope of its figures. */
function rule(title: string, view: View): string {
  const label = `── ${title} `;
  return label + "─".repeat(Math.max(0, view.width - label.length));
}
