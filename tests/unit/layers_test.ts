/**
 * The layers of src/, read from the import statements as text: each module imports only from
 * its own layer or the ones below, and no modules import each other in a circle; a source is
 * entered from outside only through its `mod.ts`, and a `_` module is private to its folder.
 */
import assert from "node:assert/strict";
import { sourceFolders } from "../../src/session/report_files.ts";

/**
 * The layers, bottom first; a module's layer is its folder under src/. The sources are the
 * folders of the report file kinds (`src/session/report_files.ts`).
 */
const LAYERS: readonly (readonly string[])[] = [
  ["kit"],
  sourceFolders(),
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

/** The sources: each is entered from outside its folder only through its `mod.ts`. */
const SOURCES: readonly string[] = LAYERS[1];

const folderOf = (path: string) => path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
const isPrivate = (path: string) => path.slice(path.lastIndexOf("/") + 1).startsWith("_");

/**
 * The imports that break the door rule: one from outside a source naming any of its modules
 * but its `mod.ts`; one naming a `_` module from outside that module's folder under src/ (a
 * source's subfolders are the source's); a `mod.ts` re-exporting a `_` module.
 */
function doorBreaches(all: Map<string, string>): string[] {
  const breaches: string[] = [];
  for (const [path, text] of all) {
    for (const target of importsOf(path, text)) {
      const source = folderOf(target);
      const outside = folderOf(path) !== source;
      if (SOURCES.includes(source) && outside && target !== `${source}/mod.ts`) {
        breaches.push(`${path} -> ${target}: enter ${source}/ through ${source}/mod.ts`);
      } else if (isPrivate(target) && (outside || path.endsWith("/mod.ts"))) {
        breaches.push(`${path} -> ${target}: a _ module is private to ${source}/`);
      }
    }
  }
  return breaches;
}

Deno.test("a source is entered only through its mod.ts, and _ modules stay in their folder", async () => {
  // Prevents a tool or an analysis reaching into a reader's inner modules (or its private
  // ones), so that a reader's inside can change without a change above it.
  assert.deepEqual(doorBreaches(await modules()), []);
});

Deno.test("the door rule sees each way past a source's door", () => {
  // Prevents the door test passing because it recognised no breach at all.
  const all = new Map([
    [
      "tools/a.ts",
      `import { x } from "../profiler_db/mod.ts";\nimport { y } from "../profiler_db/rows.ts";`,
    ],
    [
      "analysis/b.ts",
      `import { z } from "../device_log/_tally.ts";\nimport { w } from "./_own.ts";`,
    ],
    ["tools/c.ts", `import { v } from "../analysis/_link.ts";`],
    ["perf_report/mod.ts", `export { u } from "./_merge.ts";\nexport { t } from "./report.ts";`],
    [
      "profiler_db/l1/d.ts",
      `import { s } from "../_db_worker.ts";\nimport { r } from "../schema.ts";`,
    ],
  ]);
  assert.deepEqual(doorBreaches(all).map((b) => b.slice(0, b.indexOf(":"))), [
    "tools/a.ts -> profiler_db/rows.ts",
    "analysis/b.ts -> device_log/_tally.ts",
    "tools/c.ts -> analysis/_link.ts",
    "perf_report/mod.ts -> perf_report/_merge.ts",
  ]);
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
