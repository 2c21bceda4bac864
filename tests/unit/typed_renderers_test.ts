/**
 * Answers typed to the screen: every renderer takes its tool's answer type and every list of
 * answer fields a renderer keeps is typed by the fields of an answer, so `deno check` fails
 * wherever a renamed answer field is still read or listed. What the compiler cannot see —
 * a renderer going back to `Record<string, unknown>`, or a field list going back to bare
 * strings — this test reads in their source.
 */
import assert from "node:assert/strict";
import { GENERIC_RENDERER, TOOL_RENDERERS } from "../../src/cli/renderers.ts";

const RENDER_DIR = new URL("../../src/cli/render/", import.meta.url);
const RENDERERS = new URL("../../src/cli/renderers.ts", import.meta.url);

/** `text` without its comments, so a sentence about a type is not read as the type. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
}

/** Every module under src/cli/render/, by file name, its code without comments. */
function renderModules(): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of Deno.readDirSync(RENDER_DIR)) {
    if (e.isFile && e.name.endsWith(".ts")) {
      out.set(e.name, code(Deno.readTextFileSync(new URL(e.name, RENDER_DIR))));
    }
  }
  return out;
}

/**
 * The list literals of `source` whose entries are all string literals, with the type the
 * declaration gives them (or null): `const SHOWN = ["handle", "ops"]`, `names = [...]`.
 */
function stringLists(source: string): { name: string; type: string | null }[] {
  const found: { name: string; type: string | null }[] = [];
  const decl = /\b(?:const|let)\s+(\w+)\s*(?::\s*([^=]+?))?\s*=\s*\(?\s*\[/g;
  for (const m of source.matchAll(decl)) {
    const open = m.index! + m[0].length;
    let depth = 1;
    let i = open;
    while (i < source.length && depth > 0) {
      if (source[i] === "[") depth++;
      else if (source[i] === "]") depth--;
      i++;
    }
    const body = source.slice(open, i - 1);
    const entries = body.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
    if (entries.length > 0 && entries.every((s) => /^"[^"]*"$/.test(s))) {
      found.push({ name: m[1], type: m[2]?.trim() ?? null });
    }
  }
  return found;
}

/** The functions named `render` that `source` exports, with their first parameter's type. */
function renderParameters(source: string): string[] {
  const m = [...source.matchAll(/export function render(?:<[^>]*>)?\(\s*answer:\s*([^,]+),/g)];
  return m.map((x) => x[1].trim());
}

Deno.test("no renderer module takes or reads an answer as Record<string, unknown>", () => {
  // Prevents a renderer from reading its answer by unchecked names again, where renaming an
  // answer field compiles and the field silently renders blank.
  const modules = renderModules();
  assert.ok(modules.size >= 10, [...modules.keys()].join(", "));
  for (const [name, source] of modules) {
    assert.ok(
      !/Record<\s*string\s*,\s*unknown\s*>/.test(source),
      `${name} uses Record<string, unknown>`,
    );
    assert.ok(
      !/\[\s*\w+\s*:\s*string\s*\]\s*:\s*unknown/.test(source),
      `${name} indexes by string`,
    );
  }
  const renderers = code(Deno.readTextFileSync(RENDERERS));
  const signature = renderers.match(/interface RendererModule[^{]*\{([^}]*)\}/);
  assert.ok(signature, "renderers.ts declares RendererModule");
  assert.match(signature[1], /render\(answer: Rendered<A>/);
  assert.match(renderers, /export async function renderAnswer\(\s*tool: string,\s*answer: object,/);
});

Deno.test("each renderer takes its tool's answer type, and the generic one a structural answer", () => {
  // Prevents a renderer typed by another tool's answer, or by a loose object, from passing
  // `deno check` while the answer it is given has other fields.
  const renderers = Deno.readTextFileSync(RENDERERS);
  for (const [tool, url] of Object.entries(TOOL_RENDERERS)) {
    const params = renderParameters(code(Deno.readTextFileSync(url)));
    assert.equal(params.length, 1, `${tool}: one exported render`);
    const answerType = tool.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("") +
      "Answer";
    assert.match(params[0], new RegExp(`^(Rendered<${answerType}>|Answer)$`), `${tool}`);
    if (params[0] === "Answer") {
      assert.match(
        code(Deno.readTextFileSync(url)),
        new RegExp(`type Answer = Rendered<${answerType}>;`),
        tool,
      );
    }
    // The module's type is held to the tool's answer where renderers.ts names them.
    assert.match(renderers, new RegExp(`\\b${tool}: ${answerType};`), tool);
    assert.match(renderers, new RegExp(`\\b${tool}: typeof import\\("\\./render/${tool}\\.ts"\\)`));
  }
  const generic = renderParameters(code(Deno.readTextFileSync(GENERIC_RENDERER)));
  assert.deepEqual(generic, ["Rendered<A>"]);
});

Deno.test("every list of answer fields a renderer keeps is typed by an answer's fields", () => {
  // Prevents a renderer's SHOWN, TABLE_FIELDS or class names from going back to bare strings,
  // where a renamed field leaves the old name listed and the new one said as "Also in --json".
  let lists = 0;
  for (const [name, source] of renderModules()) {
    for (const list of stringLists(source)) {
      lists++;
      assert.ok(
        list.type !== null && /^FieldsOf<\w+>$/.test(list.type),
        `${name}: ${list.name} is typed ${list.type ?? "by inference (string[])"}, not FieldsOf<…>`,
      );
    }
    // The lists handed to the footer, and the fields of a column list, are answer fields too.
    assert.ok(!/\bshown:\s*(readonly\s+)?string\[\]/.test(source), `${name}: shown: string[]`);
    assert.ok(!/\bfield:\s*string\b/.test(source), `${name}: field: string`);
  }
  // SHOWN in six of the seven (diff_reports spreads its totals), TABLE_FIELDS, the part keys
  // and the two lists of core classes.
  assert.ok(lists >= 10, `${lists} field lists found`);
});

Deno.test("the scan finds untyped field lists, typed ones and none in other code", () => {
  // Prevents the scan above from passing because it finds nothing.
  const found = stringLists(
    'const SHOWN = [\n  "handle",\n  "ops",\n];\n' +
      'const TYPED: FieldsOf<TopOpsAnswer> = ["handle"];\n' +
      "const rows = [...groups, rest];\nconst n = [1, 2];\n",
  );
  assert.deepEqual(found, [
    { name: "SHOWN", type: null },
    { name: "TYPED", type: "FieldsOf<TopOpsAnswer>" },
  ]);
});
