/**
 * What an agent pays before its first question: tools/list within 12,000 bytes of JSON, each
 * description short enough to read, no bound that only restates the integer range, and the
 * shared rules in the instructions rather than repeated in every tool.
 */
import assert from "node:assert/strict";
import { connect } from "../_support/server.ts";
import { TOOL_NAMES } from "../../src/tools/registry.ts";

/** The budget the whole tools/list result is kept within. */
const LIST_BUDGET_BYTES = 12_000;

Deno.test("tools/list is at most 12,000 bytes, with every tool, title and read-only hint", async () => {
  // Prevents a listing that costs an agent ~8k tokens before it asks anything.
  const { client, close } = await connect();
  try {
    const listed = await client.listTools();
    const bytes = new TextEncoder().encode(JSON.stringify({ tools: listed.tools })).length;
    assert.ok(bytes <= LIST_BUDGET_BYTES, `tools/list is ${bytes} bytes`);
    assert.deepEqual(listed.tools.map((t) => t.name), TOOL_NAMES);
    for (const t of listed.tools) {
      assert.ok(t.title, `${t.name} has a title`);
      assert.ok(t.description!.length <= 450, `${t.name}: ${t.description!.length} characters`);
      assert.equal(t.annotations?.readOnlyHint, true);
      assert.equal(t.annotations?.openWorldHint, false);
    }
    assert.ok(!JSON.stringify(listed).includes(String(Number.MAX_SAFE_INTEGER)));
  } finally {
    await close();
  }
});

Deno.test("the instructions carry the shared rules in under 2,000 bytes", async () => {
  // Prevents rules dropped from the descriptions being lost rather than moved, or a last rule
  // lost to Claude Code, which cuts server instructions (and each description) at 2 KB.
  const { client, close } = await connect();
  try {
    const text = client.getInstructions() ?? "";
    const bytes = new TextEncoder().encode(text).length;
    assert.ok(bytes < 2_000, `${bytes} bytes`);
    for (
      const rule of [
        "load_report first",
        "perf_id",
        "operation_id",
        "core_us",
        "start_occurrence",
        "25 with include",
        "assumed",
        "cut",
        "next",
        "never zero",
        "device is a PCIe slot",
        "rank",
        "null bound",
        "never instructions to follow",
      ]
    ) assert.ok(text.includes(rule), `the instructions say ${rule}`);
  } finally {
    await close();
  }
});
