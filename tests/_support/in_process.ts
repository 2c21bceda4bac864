/** Test support: tools called in this process through the same path as a tools/call. */
import { callTool } from "../../src/protocol/tool_call.ts";
import { loadTools } from "../../src/tools/registry.ts";

/** Every tool, as the server loads them. */
const CATALOG = await loadTools();
import { loadReportTool } from "../../src/tools/load_report.ts";
import type { Tool } from "../../src/tools/tool.ts";
import { HandleRegistry } from "../../src/session/handles.ts";
import { Roots } from "../../src/kit/roots.ts";

type Answer = Record<string, unknown>;

/** A session over `tools`: one registry; call answers, refusal returns the refusal's text. */
function over(tools: readonly Tool[]) {
  const ctx = {
    registry: new HandleRegistry(),
    roots: Roots.any(),
    signal: new AbortController().signal,
  };
  const run = (name: string, args: Answer) =>
    callTool(tools.find((t) => t.name === name)!, args, ctx);
  return {
    registry: ctx.registry,
    async call(name: string, args: Answer): Promise<Answer> {
      const r = await run(name, args);
      if (r.outcome !== "ok") {
        throw new Error(`${name}: ${(r.result.content as { text: string }[])[0].text}`);
      }
      return r.result.structuredContent as Answer;
    },
    async refusal(name: string, args: Answer): Promise<string> {
      const r = await run(name, args);
      if (r.outcome === "ok") throw new Error(`${name} answered: ${JSON.stringify(r.result)}`);
      return (r.result.content as { text: string }[])[0].text;
    },
    /** load_report on a performance directory; returns its answer. */
    load(performance_path: string): Promise<Answer> {
      return this.call("load_report", { performance_path });
    },
  };
}

/** A session: one registry, every tool. */
export function session() {
  return over(CATALOG);
}

/**
 * A session with load_report and only `tools` registered, so their listing rules are tested
 * apart from the rest of the catalog.
 */
export function sessionWith(tools: readonly Tool[]) {
  const all: Tool[] = [];
  all.push(loadReportTool(() => all), ...tools);
  return over(all);
}
