import assert from "node:assert/strict";
import { catalog } from "../../src/tools/catalog.ts";
import { loadTool, TOOL_MODULES } from "../../src/tools/modules.ts";

Deno.test("every tool but load_report is named with its module, in the catalog's order", () => {
  // Prevents a new tool that the server lists but a one-shot call cannot find (or lists in
  // another order in its "unknown tool" message).
  const names = catalog().map((t) => t.name);
  assert.deepEqual(["load_report", ...TOOL_MODULES.keys()], names);
});

Deno.test("a tool loaded from its module is the catalog's own tool", async () => {
  // Prevents a call answering through a different object (or schema) than the server uses.
  const tools = new Map(catalog().map((t) => [t.name, t]));
  for (const name of TOOL_MODULES.keys()) {
    assert.equal(await loadTool(name), tools.get(name), name);
  }
  assert.equal(await loadTool("nope"), undefined);
  assert.equal(await loadTool("load_report"), undefined);
});
