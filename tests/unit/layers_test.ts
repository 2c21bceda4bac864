/**
 * The layers of src/, read from the import statements as text: each module imports only from
 * its own layer or the ones below, and no modules import each other in a circle.
 */
import assert from "node:assert/strict";

/** The layers, bottom first; a module's layer is its folder under src/. */
const LAYERS: readonly (readonly string[])[] = [
  ["kit"],
  ["perf_report", "device_log", "profiler_db"],
  ["session"],
  ["analysis"],
  ["tools"],
  ["protocol"],
  ["cli"],
];

const SRC = new URL("../../src/", import.meta.url);

/** Every module under src/, by its path from src/. */
async function modules(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: URL, prefix: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`);
      else if (e.name.endsWith(".ts")) {
        out.set(`${prefix}${e.name}`, await Deno.readTextFile(new URL(e.name, dir)));
      }
    }
  };
  await walk(SRC, "");
  return out;
}

/**
 * The src/ modules one module names: static imports and re-exports, dynamic imports and
 * modules named by URL (a lazily loaded module or a worker), resolved against its folder.
 * Doc comments are left out, so a runnable example does not count.
 */
function importsOf(path: string, text: string): string[] {
  const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|new URL\(\s*)["'](\.\.?\/[^"']+)["']/g;
  for (const m of code.matchAll(pattern)) {
    const resolved = new URL(m[1], new URL(path, SRC)).pathname;
    if (resolved.startsWith(SRC.pathname)) found.push(resolved.slice(SRC.pathname.length));
  }
  return found;
}

function layerOf(path: string): number {
  const folder = path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
  return LAYERS.findIndex((l) => l.includes(folder));
}

Deno.test("every module of src/ sits in a layer", async () => {
  // Prevents a new folder (or a module at src/'s top) that no layer rule covers.
  for (const path of (await modules()).keys()) {
    assert.ok(layerOf(path) >= 0, `${path} is in no layer`);
  }
});

Deno.test("no module imports from a layer above its own", async () => {
  // Prevents the domain depending on the tool or protocol layer, which makes every change to
  // a tool a change to what the readers mean.
  const upward: string[] = [];
  for (const [path, text] of await modules()) {
    for (const target of importsOf(path, text)) {
      if (layerOf(target) > layerOf(path)) upward.push(`${path} -> ${target}`);
    }
  }
  assert.deepEqual(upward, []);
});

Deno.test("no modules of src/ import each other in a circle", async () => {
  // Prevents an import cycle, which makes load order decide what a module sees.
  const all = await modules();
  const edges = new Map([...all].map(([p, t]) => [p, importsOf(p, t).filter((x) => all.has(x))]));
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (p: string, trail: string[]) => {
    if (state.get(p) === "done") return;
    if (state.get(p) === "open") {
      cycles.push([...trail.slice(trail.indexOf(p)), p].join(" -> "));
      return;
    }
    state.set(p, "open");
    for (const q of edges.get(p) ?? []) visit(q, [...trail, p]);
    state.set(p, "done");
  };
  for (const p of all.keys()) visit(p, []);
  assert.deepEqual(cycles, []);
});

Deno.test("the layer test reads imports the way modules write them", () => {
  // Prevents the scan above passing because it found no imports at all.
  const text = `import { a } from "../kit/x.ts";\nexport { b } from "./y.ts";\n` +
    `const m = await import("../tools/z.ts");\nnew URL("./w.ts", import.meta.url);\n` +
    `/** import { c } from "../cli/main.ts"; */`;
  assert.deepEqual(importsOf("session/s.ts", text), [
    "kit/x.ts",
    "session/y.ts",
    "tools/z.ts",
    "session/w.ts",
  ]);
  assert.equal(layerOf("tools/top_ops.ts"), 4);
  assert.equal(layerOf("mod.ts"), -1);
});
