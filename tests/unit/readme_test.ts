/**
 * The README a newcomer reads: short enough to read, its lines short enough for any viewer, and
 * its tool table exactly what the tool list generates.
 */
import assert from "node:assert/strict";
import { loadTools } from "../../src/tools/registry.ts";
import { readmeToolRows, toolTable, withToolTable } from "../../src/cli/tool_list.ts";

const README = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
const ARCHITECTURE = await Deno.readTextFile(new URL("../../ARCHITECTURE.md", import.meta.url));

Deno.test("the README is at most 20,000 bytes with no line over 200 characters", () => {
  // Prevents the README growing back into a reference manual nobody reads to the end.
  assert.ok(new TextEncoder().encode(README).length <= 20_000, "README.md is over 20,000 bytes");
  const long = README.split("\n").filter((l) => [...l].length > 200);
  assert.deepEqual(long, []);
});

Deno.test("the README's tool table is what the tool list generates", async () => {
  // Prevents a tool the server offers missing from the README, or a summary that drifted.
  const tools = await loadTools();
  assert.deepEqual(
    readmeToolRows(README),
    tools.map((t) => ({ name: t.name, summary: t.summary })),
    "run `deno task readme`",
  );
});

Deno.test("every tool's summary is one line of at most 150 characters", async () => {
  // Prevents a summary too long for the README's table line or the command line's list.
  for (const t of await loadTools()) {
    assert.ok(t.summary.length > 0 && t.summary.length <= 150, `${t.name}: ${t.summary}`);
    assert.ok(!t.summary.includes("\n") && !t.summary.includes("|"), `${t.name}'s summary`);
  }
});

Deno.test("the table is regenerated between its markers and nowhere else", () => {
  // Prevents `deno task readme` rewriting prose around the table.
  const before = README;
  const after = withToolTable(before, toolTable([{ name: "x", summary: "y" }]));
  assert.deepEqual(readmeToolRows(after), [{ name: "x", summary: "y" }]);
  const [head] = before.split("<!-- tool table");
  assert.ok(after.startsWith(head));
});

Deno.test("ARCHITECTURE.md is a map: at most 150 lines, naming every folder of src/", async () => {
  // Prevents the architecture page going stale when a layer's folder is added or renamed.
  assert.ok(ARCHITECTURE.split("\n").length <= 150);
  for await (const e of Deno.readDir(new URL("../../src/", import.meta.url))) {
    if (e.isDirectory) assert.ok(ARCHITECTURE.includes(`${e.name}/`), `names src/${e.name}/`);
  }
});

Deno.test("the README and memory_profile's description say what its floor leaves out", async () => {
  // Prevents the seed's warning (circular buffers and intra-op tensors are never in the
  // buffers table; a null bound is no clean bill) slipping out of what a reader sees first.
  const tool = (await loadTools()).find((t) => t.name === "memory_profile")!;
  for (const words of ["floor", "circular buffers", "intra-operation tensors", "l1_peak"]) {
    assert.ok(tool.description.includes(words), `memory_profile's description: ${words}`);
  }
  const prose = README.replace(/\s+/g, " ");
  for (
    const words of [
      "`memory_profile` reports a floor, not the peak",
      "never holds a circular buffer or a tensor allocated and freed inside one operation",
      "a null bound does not mean an operation is fine",
    ]
  ) assert.ok(prose.includes(words), `README: ${words}`);
});
