/**
 * What a one-shot `call` loads before it knows where it writes: the modules `src/cli/main.ts`
 * reaches by static (value) imports. A pipe — what the benchmark against tt-perf-report uses —
 * must load no renderer, and no tool but load_report before the one it calls; renderers, the
 * help and the other tools are loaded by URL when needed.
 */
import assert from "node:assert/strict";
import { TOOLS } from "../../src/tools/registry.ts";
import { RENDERER_MODULES } from "../../src/cli/renderers.ts";

const ROOT = new URL("../../", import.meta.url);

/** The repository paths `path` imports for its values (type-only imports are erased). */
function valueImports(path: string, text: string): string[] {
  const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const found: string[] = [];
  const pattern = /^\s*(?:import|export)\s+(?!type\b)(?:[^;]*?\bfrom\s*)?["'](\.\.?\/[^"']+)["']/gm;
  for (const m of code.matchAll(pattern)) {
    found.push(new URL(m[1], new URL(path, ROOT)).pathname.slice(ROOT.pathname.length));
  }
  return found;
}

/** Every repository module `entry` reaches by static value imports. */
async function staticClosure(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const text = await Deno.readTextFile(new URL(path, ROOT));
    queue.push(...valueImports(path, text).filter((p) => p.endsWith(".ts")));
  }
  return seen;
}

Deno.test("a one-shot call loads no renderer, help or other tool before it needs one", async () => {
  // Prevents `call top_ops` on a pipe (benchmarked cold against tt-perf-report) from paying
  // for every renderer, the help text or every tool.
  const loaded = await staticClosure("src/cli/main.ts");
  assert.ok(
    loaded.has("src/cli/call.ts") && loaded.has("src/cli/renderers.ts"),
    [...loaded].join(),
  );
  const renderers = RENDERER_MODULES.map((u) => u.pathname.slice(ROOT.pathname.length));
  for (const module of loaded) {
    assert.ok(!module.startsWith("src/cli/render/"), `${module} is loaded on every call`);
    assert.ok(!renderers.includes(module), module);
  }
  for (const module of ["src/cli/tool_help.ts", "src/cli/demo.ts", "src/protocol/stdio.ts"]) {
    assert.ok(!loaded.has(module), `${module} is loaded on every call`);
  }
  for (const tool of TOOLS.filter((t) => t.name !== "load_report")) {
    const module = tool.module.pathname.slice(ROOT.pathname.length);
    assert.ok(!loaded.has(module), `${module} is loaded on every call`);
  }
});
