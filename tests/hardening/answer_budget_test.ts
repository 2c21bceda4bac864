/**
 * The answer budget: no performance answer exceeds its 25,000 bytes of text, whatever the
 * arguments — every include group, limits past their caps — on every real capture; what does
 * not fit is cut and said.
 */
import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { captureNamesOrSkip, CAPTURES_DIR } from "../perf_report/_golden.ts";
import { INCLUDE_GROUPS } from "../../src/analysis/include_groups.ts";
import { ANSWER_BUDGET_BYTES } from "../../src/tools/answer_parts.ts";

const BUDGET = ANSWER_BUDGET_BYTES;
const PERF = CAPTURES_DIR;
const captures = captureNamesOrSkip();

Deno.test({
  name:
    "no performance answer passes its 25,000-byte budget on any capture, at every cap and with every include group",
  ignore: captures.length === 0,
  async fn() {
    // Prevents an answer that a client warns about, refuses or truncates as too large.
    let largest = { bytes: 0, where: "" };
    for (const capture of captures) {
      const s = session();
      const loaded = await s.call("load_report", { performance_path: `${PERF}${capture}` });
      const handle = loaded.handle as string;
      const calls: [string, Record<string, unknown>][] = [
        ["load_report", {}],
        ["top_ops", { handle, limit: 1_000_000, include: [...INCLUDE_GROUPS] }],
        ["top_ops", { handle, limit: 1_000_000 }],
        ["op_breakdown", { handle, limit: 1_000_000 }],
        ["op_breakdown", { handle, limit: 1_000_000, group_by: "op_category" }],
        ["diff_reports", { handle_a: handle, handle_b: handle, limit: 1_000_000 }],
        ["lower_bounds", { handle, limit: 1_000_000, group_by: "op" }],
      ];
      if ((loaded.answerable as string[]).includes("program_cache")) {
        calls.push(["program_cache", { handle, limit: 1_000_000 }]);
      }
      for (const [tool, args] of calls) {
        const answer = tool === "load_report" ? loaded : await s.call(tool, args);
        const bytes = new TextEncoder().encode(JSON.stringify(answer)).length;
        if (bytes > largest.bytes) largest = { bytes, where: `${tool} on ${capture}` };
        assert.ok(bytes <= BUDGET, `${tool} on ${capture}: ${bytes} bytes`);
      }
    }
    console.error(`largest answer: ${largest.bytes} bytes (${largest.where})`);
  },
});
