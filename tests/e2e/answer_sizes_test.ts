/**
 * What an agent pays per answer on the shared captures, through the SDK client: each tool's
 * default answer against its size at commit dca4570, before the fixed explanations moved into
 * notes; every fact those answers said still reachable, by value or by the note id named; no
 * note's text said in an answer; and the largest realistic ask (limit 100, every include
 * group) within 25,000 bytes. Skipped when ../shared is absent.
 */
import assert from "node:assert/strict";
import { connect } from "../_support/server.ts";
import { notesRead } from "../_support/notes.ts";
import { captureNamesOrSkip, CAPTURES_DIR } from "../perf_report/_golden.ts";
import { INCLUDE_GROUPS } from "../../src/analysis/include_groups.ts";
import { NOTES } from "../../src/tools/notes.ts";

type Answer = Record<string, unknown>;

/**
 * Each default answer's bytes at dca4570 (the JSON text of its content; diff_reports diffs a
 * capture against itself), measured with bench/answer_sizes.ts run against that checkout.
 */
const BEFORE: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  bh20_oft_integral_image_trace: {
    load_report: 6330,
    top_ops: 5041,
    op_breakdown: 2078,
    diff_reports: 2220,
    lower_bounds: 11433,
  },
  bh_8xp150_deepseek_v3_d_p: {
    load_report: 5522,
    top_ops: 6264,
    op_breakdown: 4097,
    program_cache: 3646,
    diff_reports: 3392,
    lower_bounds: 12498,
  },
  bh_invalid_trace_decode_window: {
    load_report: 5470,
    top_ops: 3755,
    op_breakdown: 3317,
    program_cache: 3877,
    diff_reports: 1312,
    lower_bounds: 8014,
  },
  oft_2025_09_18_11_39_20: {
    load_report: 6467,
    top_ops: 5028,
    op_breakdown: 3558,
    diff_reports: 3437,
    lower_bounds: 12140,
  },
  seg_encoder_2025_02_16_18_11_10: {
    load_report: 5901,
    top_ops: 5365,
    op_breakdown: 3464,
    diff_reports: 3430,
    lower_bounds: 12005,
  },
  wh_clip_encoder_2: {
    load_report: 5727,
    top_ops: 4836,
    op_breakdown: 3185,
    diff_reports: 3275,
    lower_bounds: 11908,
  },
};

/**
 * The most of its dca4570 size each tool's default answer may be. Half where the fixed text
 * was half of it; the rest is what the answer is about and stays:
 * - top_ops: its rows carry upstream's fields (id, op_code, the metric, cores, bound,
 *   bound_analysis, op_category, device, sub_device_id, op_type, operation_id), which the
 *   goldens compare and the seed names: 42–53 % of the dca4570 answer alone, with the
 *   projection, operation_link and the caveat's figures beside them.
 * - op_breakdown: its groups (count, device time and gap with their shares, total_percent, as
 *   the seed lists them) were 35–58 % and the caveats' figures most of the rest.
 * - program_cache: its per-op-code counts were 60–63 %.
 * - diff_reports: its changes and both projections; on a capture without a host-time caveat
 *   it said nothing fixed, so nothing moved (100 %).
 * - lower_bounds: its entries' figures were 41–59 %.
 */
const AT_MOST: Readonly<Record<string, number>> = {
  load_report: 0.5,
  top_ops: 0.8,
  op_breakdown: 0.95,
  program_cache: 0.9,
  diff_reports: 1,
  lower_bounds: 0.7,
};

/**
 * What each tool's answer said at dca4570 that is now a note: reachable from the answer when
 * the condition holds of it.
 */
const SAID: Readonly<Record<string, readonly { when: (a: Answer) => boolean; fact: RegExp }[]>> = {
  load_report: [
    { when: (a) => covers(a, "zone_timings"), fact: /python -m tracy -r -m <command>/ },
    { when: (a) => covers(a, "perf_counters"), fact: /TT_METAL_PROFILE_PERF_COUNTERS/ },
  ],
  top_ops: [
    { when: () => true, fact: /A null bound is not a clean bill of health/ },
    { when: () => true, fact: /DEVICE KERNEL DURATION \(an operation's first kernel start/ },
    { when: hostTime, fact: /dispatch, program compiles on first calls/ },
  ],
  op_breakdown: [
    { when: () => true, fact: /and op-to-op gaps its OP TO OP LATENCY/ },
    { when: hostTime, fact: /dispatch, program compiles on first calls/ },
  ],
  program_cache: [{ when: () => true, fact: /misses the cache by design/ }],
  diff_reports: [{ when: hostTime, fact: /dispatch, program compiles on first calls/ }],
  lower_bounds: [
    { when: () => true, fact: /Σ bytes of the tensors in DRAM/ },
    { when: () => true, fact: /Intermediate traffic \(circular-buffer spills/ },
    {
      when: (a) => (a.entries as Answer[]).some((e) => e.bound_note === "dram_only"),
      fact: /floor from DRAM alone/,
    },
  ],
};

/** Whether load_report's reasons cover `tool`. */
function covers(a: Answer, tool: string): boolean {
  return (a.unanswerable_reasons as { tools: string[] }[]).some((r) => r.tools.includes(tool));
}

/** Whether the answer carries the host-time caveat. */
function hostTime(a: Answer): boolean {
  return /Op-to-op gaps total/.test(String(a.caveat ?? ""));
}

/** The bytes of a call's content text, what an agent pays for it. */
function bytesOf(result: Record<string, unknown>): number {
  return new TextEncoder().encode(textOf(result)).length;
}

/** The JSON text of a call's content. */
function textOf(result: Record<string, unknown>): string {
  return (result.content as { text: string }[])[0].text;
}

const captures = captureNamesOrSkip();

for (const capture of captures.length > 0 ? captures : ["(none)"]) {
  Deno.test({
    name: `${capture}: default answers within their budget of dca4570's size, every fact reachable`,
    ignore: captures.length === 0,
    async fn() {
      // Prevents the same glossary paid for on every call, or a fact dropped to save bytes.
      const before = BEFORE[capture];
      assert.ok(before, `dca4570's sizes of ${capture} are recorded`);
      const { client, close } = await connect();
      try {
        const loaded = await client.callTool({
          name: "load_report",
          arguments: { performance_path: `${CAPTURES_DIR}${capture}` },
        });
        const first = loaded.structuredContent as Answer;
        const handle = first.handle as string;
        const tools = ["load_report", ...first.answerable as string[]];
        assert.deepEqual(tools.toSorted(), Object.keys(before).toSorted(), "the same tools answer");
        const listed = (await client.listTools()).tools;
        const takes = (tool: string, arg: string) =>
          arg in (listed.find((t) => t.name === tool)!.inputSchema.properties ?? {});
        for (const tool of tools) {
          const args = tool === "load_report"
            ? { performance_path: `${CAPTURES_DIR}${capture}` }
            : tool === "diff_reports"
            ? { handle_a: handle, handle_b: handle }
            : { handle };
          const result = tool === "load_report"
            ? loaded
            : await client.callTool({ name: tool, arguments: args });
          const answer = result.structuredContent as Answer;
          const bytes = bytesOf(result);
          assert.ok(
            bytes <= AT_MOST[tool] * before[tool],
            `${tool}: ${bytes} bytes, ${Math.round((100 * bytes) / before[tool])} % of dca4570's`,
          );
          // Each fact moved out is reachable by the notes the answer names, read as a client reads them.
          const notes = await notesRead(client, answer);
          const reachable = [JSON.stringify(answer), ...Object.values(notes)].join("\n");
          for (const { when, fact } of SAID[tool]) {
            if (when(answer)) assert.match(reachable, fact, `${tool} still reaches ${fact}`);
          }
          // And a note's text is said only in the registry, never in an answer.
          const text = textOf(result);
          for (const n of NOTES) {
            assert.ok(!text.includes(n.text.slice(0, 60)), `${tool} says the note ${n.id}`);
          }
          if (tool !== "load_report" && takes(tool, "limit")) {
            const largest = await client.callTool({
              name: tool,
              arguments: {
                ...args,
                limit: 100,
                ...(takes(tool, "include") ? { include: [...INCLUDE_GROUPS] } : {}),
              },
            });
            assert.ok(!largest.isError, `${tool}'s largest ask answers`);
            assert.ok(bytesOf(largest) <= 25_000, `${tool}'s largest ask: ${bytesOf(largest)}`);
          }
        }
      } finally {
        await close();
      }
    },
  });
}
