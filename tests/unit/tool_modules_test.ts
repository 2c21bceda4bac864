import assert from "node:assert/strict";
import { loadTool, loadTools, TOOL_NAMES, TOOLS } from "../../src/tools/registry.ts";

Deno.test("every tool in the list is defined by its module under the list's name", async () => {
  // Prevents a tool that the server lists but a one-shot call cannot find, or one answering
  // under another name than the module that defines it.
  const tools = await loadTools();
  assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
  for (const entry of TOOLS) {
    const file = entry.module.pathname.slice(entry.module.pathname.lastIndexOf("/") + 1);
    assert.equal(file, `${entry.name}.ts`, `${entry.name} lives in a module named after it`);
  }
});

Deno.test("a tool loaded alone is the same tool the whole list loads", async () => {
  // Prevents a call answering through a different object (or schema) than the server uses.
  const tools = new Map((await loadTools()).map((t) => [t.name, t]));
  for (const name of TOOL_NAMES.filter((n) => n !== "load_report")) {
    assert.equal(await loadTool(name), tools.get(name), name);
  }
  assert.equal(await loadTool("nope"), undefined);
  assert.deepEqual((await loadTools(["top_ops"])).map((t) => t.name), ["load_report", "top_ops"]);
});
