/**
 * `call`: runs one tool through the same path a `tools/call` takes and prints its answer, so
 * a person or a script can ask one question without an MCP client. Its arguments come as flags
 * read from the tool's schema (or as JSON); the report it reads is loaded first from
 * `--performance` / `--profiler`. On a terminal the answer is rendered for a person by the
 * tool's renderer, loaded only then; a pipe gets JSON and loads no renderer. Long reads show a
 * progress line on a terminal's stderr.
 *
 * @module
 */
import { callTool } from "../protocol/tool_call.ts";
import { loadTool, loadTools, TOOL_NAMES } from "../tools/registry.ts";
import { HandleRegistry } from "../session/handles.ts";
import type { Roots } from "../kit/roots.ts";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";
import { argsFromWords, reportArgsOf } from "./tool_flags.ts";
import { planReports, type ReportDirs, type ReportLoad } from "./call_reports.ts";
import { outputMode, type Terminal, viewOf } from "./terminal.ts";
import { progressFor } from "./progress_line.ts";
import { forTerminal, renderAnswer } from "./renderers.ts";
import { loadAndRegister } from "../session/load.ts";
import { Refusal } from "../kit/refusal.ts";
import type { View } from "./render/text.ts";

/**
 * The tools a call of `name` needs: `load_report` (which loads the report first) and the tool.
 * Only `load_report` called on its own needs every tool, to say which can answer; otherwise
 * the tools it names are those loaded. Null for a name no tool has.
 */
async function toolsFor(name: string): Promise<Tool[] | null> {
  if (!TOOL_NAMES.includes(name)) return null;
  if (name === "load_report") return await loadTools();
  return [(await loadTool(name))!];
}

/** Where `call` writes, and what it writes to. */
export interface CallIo {
  /** A line on stdout. */
  out(text: string): void;
  /** A line on stderr. */
  err(text: string): void;
  /** Raw text on stderr (the progress line, redrawn in place). */
  errRaw(text: string): void;
  terminal: Terminal;
}

/** What a call asks for. */
export interface CallRequest extends ReportDirs {
  tool: string;
  /** The words after the tool's name: flags, their values, a JSON object. */
  words: readonly string[];
  /** `--json`: JSON even on a terminal. */
  json?: boolean;
  /** `--explain`: the rendering says the fixed notes too. */
  explain?: boolean;
  appUrl?: string | null;
}

/** Exit codes: 0 answered, 1 the tool refused or failed, 2 the command line was wrong. */
export async function runCall(request: CallRequest, roots: Roots, io: CallIo): Promise<number> {
  const tools = await toolsFor(request.tool);
  const tool = tools?.find((t) => t.name === request.tool);
  if (!tools || !tool) {
    io.err(`unknown tool '${request.tool}'; tools: ${TOOL_NAMES.join(", ")}`);
    return 2;
  }
  const read = argsFromWords(tool, request.words);
  if (!read.ok) {
    io.err(read.message);
    return 2;
  }
  const mode = outputMode(io.terminal, request.json ?? false);
  // A terminal's table asks for the include fields its columns show; --json and a pipe get
  // the answer to the arguments as given.
  const asked = mode === "text"
    ? forTerminal(tool.name, read.args)
    : { args: read.args, unasked: [] };
  const plan = planReports(tool, reportArgsOf(tool), asked.args, request);
  if (!plan.ok) {
    io.err(plan.message);
    return 2;
  }
  const progress = progressFor(io.terminal.stderr, io.errRaw, io.terminal.width);
  const ctx: ToolEnvironment = {
    registry: new HandleRegistry(),
    roots,
    signal: new AbortController().signal,
    appUrl: request.appUrl ?? null,
    progress,
  };
  // The progress line is erased before anything else is written, answer or refusal.
  let outcome: { ok: true; answer: Record<string, unknown> } | { ok: false; text: string };
  try {
    outcome = await loadAndCall(tool, tools, plan, ctx);
  } finally {
    progress.close();
  }
  if (!outcome.ok) {
    // A refusal on a terminal is wrapped to its width, as an answer is; on a pipe, one line.
    if (io.terminal.stderr) {
      const { wrap } = await import("./render/text.ts");
      io.err(wrap(outcome.text, io.terminal.width, "", "  ").join("\n"));
    } else io.err(outcome.text);
    return 1;
  }
  const answer = outcome.answer;
  if (mode === "json") io.out(JSON.stringify(answer));
  else if (mode === "pretty_json") io.out(JSON.stringify(answer, null, 2));
  // Only a person at a terminal gets a rendering; the renderer is loaded now, not before.
  else {
    io.out(
      await rendered(tool.name, answer, io, renderAnswer, {
        explain: request.explain ?? false,
        unasked: asked.unasked,
      }),
    );
  }
  return 0;
}

/**
 * The answer rendered for a person, or its JSON (and, on stderr, why) should its renderer fail:
 * an answer is never lost to a rendering bug.
 */
export async function rendered(
  tool: string,
  answer: Record<string, unknown>,
  io: Pick<CallIo, "err" | "terminal">,
  render: typeof renderAnswer = renderAnswer,
  asked: Pick<View, "explain" | "unasked"> = {},
): Promise<string> {
  try {
    return (await render(tool, answer, { ...viewOf(io.terminal), ...asked })).join("\n");
  } catch (e) {
    io.err(`${tool}'s answer could not be rendered (${(e as Error).message}); here is its JSON`);
    return JSON.stringify(answer, null, 2);
  }
}

/**
 * Loads the planned reports, then calls the tool on their handles. The reports are loaded
 * as load_report loads them, without building its answer, which nobody reads here.
 */
async function loadAndCall(
  tool: Tool,
  tools: readonly Tool[],
  plan: { args: Record<string, unknown>; loads: ReportLoad[] },
  ctx: ToolEnvironment,
): Promise<{ ok: true; answer: Record<string, unknown> } | { ok: false; text: string }> {
  const args = { ...plan.args };
  for (const { arg, paths } of plan.loads) {
    const loaded = await loadReport(tools, paths, ctx);
    if (!loaded.ok) return loaded;
    args[arg] = loaded.handle;
  }
  const called = await callTool(tool, args, ctx);
  if (called.outcome !== "ok") return { ok: false, text: textOf(called.result) };
  return { ok: true, answer: called.result.structuredContent as Record<string, unknown> };
}

/**
 * A report loaded for the call: directly when the paths are text (load_report's answer, which
 * nobody reads here, is not built, and the performance CSV is read only if the tool asks for
 * it), else through load_report, which refuses them by name.
 */
async function loadReport(
  tools: readonly Tool[],
  paths: ReportLoad["paths"],
  ctx: ToolEnvironment,
): Promise<{ ok: true; handle: string } | { ok: false; text: string }> {
  const text = Object.values(paths).every((p) => p === undefined || typeof p === "string");
  if (text) {
    try {
      const request = paths as { performance_path?: string; profiler_path?: string };
      const loaded = await loadAndRegister(ctx.registry, request, ctx.roots, ctx.progress, {
        lazyCsv: true,
      });
      return { ok: true, handle: loaded.handle };
    } catch (e) {
      if (e instanceof Refusal) return { ok: false, text: e.message };
      throw e;
    }
  }
  const load = tools.find((t) => t.name === "load_report") ??
    (await loadTool("load_report", () => tools))!;
  const loaded = await callTool(load, paths, ctx);
  if (loaded.outcome !== "ok") return { ok: false, text: textOf(loaded.result) };
  return { ok: true, handle: (loaded.result.structuredContent as { handle: string }).handle };
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { text: string }[]).map((c) => c.text).join("\n");
}
