/**
 * Test support: load_report and perf_counters called in this process through the same path as
 * a tools/call, with only these tools (and zone_timings) registered, so perf_counters' listing
 * rule is tested apart from the rest of the catalog.
 */
import { callTool } from "../../src/protocol/tool_call.ts";
import { loadReportTool } from "../../src/tools/load_report.ts";
import { zoneTimings } from "../../src/tools/zone_timings.ts";
import { perfCounters } from "../../src/tools/perf_counters.ts";
import type { Tool } from "../../src/tools/tool.ts";
import { HandleRegistry } from "../../src/report/registry.ts";
import { Roots } from "../../src/report/roots.ts";

type Answer = Record<string, unknown>;

/** A session holding one registry, load_report, zone_timings and perf_counters. */
export function counterSession() {
  const tools: Tool[] = [];
  tools.push(loadReportTool(() => tools), zoneTimings, perfCounters);
  const ctx = {
    registry: new HandleRegistry(),
    roots: Roots.any(),
    signal: new AbortController().signal,
  };
  const run = (name: string, args: Answer) =>
    callTool(tools.find((t) => t.name === name)!, args, ctx);
  return {
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
