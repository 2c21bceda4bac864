/**
 * `call`: runs one tool through the same path a `tools/call` takes and prints its answer, so
 * a person or a script can ask one question without an MCP client.
 *
 * @module
 */
import { callTool } from "../protocol/tool_call.ts";
import { loadTools, TOOL_NAMES } from "../tools/registry.ts";
import { HandleRegistry } from "../session/registry.ts";
import type { Roots } from "../kit/roots.ts";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";

/**
 * The tools a call of `name` needs: `load_report` (which loads the report first) and the tool.
 * Only `load_report` called on its own needs every tool, to say which can answer; otherwise
 * the tools it names are those loaded. Null for a name no tool has.
 */
function toolsFor(name: string): Promise<Tool[]> | null {
  if (!TOOL_NAMES.includes(name)) return null;
  return name === "load_report" ? loadTools() : loadTools([name]);
}

/** Where `call` writes. */
export interface CallIo {
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is a terminal (answers are pretty-printed for people). */
  pretty: boolean;
}

/** Exit codes: 0 answered, 1 the tool refused or failed, 2 the command line was wrong. */
export async function runCall(
  request: {
    tool: string;
    args: string | null;
    profiler: string | null;
    performance: string | null;
    appUrl?: string | null;
  },
  roots: Roots,
  io: CallIo,
): Promise<number> {
  const tools = await toolsFor(request.tool);
  const tool = tools?.find((t) => t.name === request.tool);
  if (!tools || !tool) {
    io.err(`unknown tool '${request.tool}'; tools: ${TOOL_NAMES.join(", ")}`);
    return 2;
  }
  let args: Record<string, unknown> = {};
  if (request.args !== null) {
    try {
      args = JSON.parse(request.args);
    } catch (e) {
      io.err(`the arguments are not JSON: ${(e as Error).message}`);
      return 2;
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      io.err("the arguments must be a JSON object");
      return 2;
    }
  }
  const ctx: ToolEnvironment = {
    registry: new HandleRegistry(),
    roots,
    signal: new AbortController().signal,
    appUrl: request.appUrl ?? null,
  };
  const paths: Record<string, unknown> = {};
  for (
    const [key, flag] of [["profiler_path", request.profiler], [
      "performance_path",
      request.performance,
    ]] as const
  ) {
    const value = flag ?? args[key];
    if (value !== undefined) paths[key] = value;
  }
  if (tool.name === "load_report") {
    args = { ...args, ...paths };
  } else if (Object.keys(paths).length > 0) {
    const load = tools.find((t) => t.name === "load_report") as Tool;
    const loaded = await callTool(load, paths, ctx);
    if (loaded.outcome !== "ok") return fail(loaded.result, io);
    const { profiler_path: _p, performance_path: _q, ...rest } = args;
    args = { handle: (loaded.result.structuredContent as { handle: string }).handle, ...rest };
  }
  const called = await callTool(tool, args, ctx);
  if (called.outcome !== "ok") return fail(called.result, io);
  const answer = called.result.structuredContent;
  io.out(io.pretty ? JSON.stringify(answer, null, 2) : JSON.stringify(answer));
  return 0;
}

function fail(result: Record<string, unknown>, io: CallIo): number {
  const content = result.content as { text: string }[];
  io.err(content.map((c) => c.text).join("\n"));
  return 1;
}
