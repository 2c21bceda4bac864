/** Test support: tools called in this process through the same path as a tools/call. */
import { callTool } from "../../src/protocol/tool_call.ts";
import { catalog } from "../../src/tools/catalog.ts";
import { HandleRegistry } from "../../src/report/registry.ts";
import { Roots } from "../../src/report/roots.ts";

/** A session: one registry, every tool. */
export function session() {
  const tools = catalog();
  const ctx = {
    registry: new HandleRegistry(),
    roots: Roots.any(),
    signal: new AbortController().signal,
  };
  return {
    async call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
      const tool = tools.find((t) => t.name === name)!;
      const r = await callTool(tool, args, ctx);
      if (r.outcome !== "ok") {
        throw new Error(`${name}: ${(r.result.content as { text: string }[])[0].text}`);
      }
      return r.result.structuredContent as Record<string, unknown>;
    },
    async refusal(name: string, args: Record<string, unknown>): Promise<string> {
      const tool = tools.find((t) => t.name === name)!;
      const r = await callTool(tool, args, ctx);
      if (r.outcome === "ok") throw new Error(`${name} answered`);
      return (r.result.content as { text: string }[])[0].text;
    },
  };
}
