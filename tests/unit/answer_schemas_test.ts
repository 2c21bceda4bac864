/**
 * The JSON Schema of every tool's answer, generated from its TypeScript type
 * (scripts/answer_schemas.ts): current with the types, and what real answers are.
 */
import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { DEMO } from "../_support/dirs.ts";
import { TOOL_NAMES } from "../../src/tools/registry.ts";

const SCHEMAS = JSON.parse(
  Deno.readTextFileSync(new URL("../../src/protocol/answer_schemas.json", import.meta.url)),
) as Record<string, Schema>;

type Schema = { [keyword: string]: unknown };

/**
 * Where `value` breaks `schema`, for the keywords the generator writes (type, const, enum,
 * anyOf, properties, required, additionalProperties, items, prefixItems); none when it holds.
 */
function violations(schema: Schema | boolean, value: unknown, at = "$"): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at}: not allowed`];
  const out: string[] = [];
  if ("const" in schema && value !== schema.const) out.push(`${at}: not ${schema.const}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    out.push(`${at}: ${JSON.stringify(value)} not in ${schema.enum.join("|")}`);
  }
  if (Array.isArray(schema.anyOf)) {
    const each = schema.anyOf.map((s) => violations(s as Schema, value, at));
    if (each.every((v) => v.length > 0)) out.push(`${at}: no branch of anyOf (${each.flat()[0]})`);
  }
  const type = schema.type;
  if (typeof type === "string") {
    const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
    if (actual !== type) return [...out, `${at}: ${actual}, not ${type}`];
  }
  if (Array.isArray(value)) {
    const prefix = (schema.prefixItems ?? []) as Schema[];
    value.forEach((v, i) => {
      const s = i < prefix.length ? prefix[i] : schema.items as Schema | boolean | undefined;
      if (s !== undefined) out.push(...violations(s, v, `${at}[${i}]`));
    });
  } else if (typeof value === "object" && value !== null && schema.type === "object") {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) {
      if (!(r in value)) out.push(`${at}.${r}: missing`);
    }
    for (const [k, v] of Object.entries(value)) {
      const s = Object.hasOwn(properties, k)
        ? properties[k]
        : schema.additionalProperties as Schema | boolean | undefined;
      if (s !== undefined) out.push(...violations(s, v, `${at}.${k}`));
    }
  }
  return out;
}

Deno.test("the answer schemas are what the answer types give", async () => {
  // Prevents a schema file that no longer says what a tool answers after its type changed.
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-run",
      new URL("../../scripts/answer_schemas.ts", import.meta.url).pathname,
      "--check",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(run.success, new TextDecoder().decode(run.stderr));
});

Deno.test("every tool has the schema of its answer", () => {
  // Prevents a tool whose answer a client cannot read the shape of.
  assert.deepEqual(Object.keys(SCHEMAS).sort(), [...TOOL_NAMES].sort());
  for (const [tool, s] of Object.entries(SCHEMAS)) {
    assert.equal(s.type, "object", tool);
    assert.equal(s.additionalProperties, false, tool);
  }
});

Deno.test("the tools' real answers on the demo capture hold to their schemas", async () => {
  // Prevents a schema that says one thing while the tool answers another (a field the type
  // does not declare, a null the type says cannot be).
  const s = session();
  const { handle } = await s.call("load_report", {
    performance_path: `${DEMO}performance`,
    profiler_path: `${DEMO}profiler`,
  });
  const args: Record<string, Record<string, unknown>> = {
    diff_reports: { handle_a: handle, handle_b: handle, limit: 5 },
    operation_detail: { handle, operation_id: 10 },
    operation_provenance: { handle, operation_id: 10 },
    core_states: { handle, perf_id: 24 },
    device_timeline: { handle, wall_time_us: 1000 },
    load_report: { performance_path: `${DEMO}performance`, profiler_path: `${DEMO}profiler` },
  };
  const checked: string[] = [];
  const refused: string[] = [];
  for (const tool of TOOL_NAMES) {
    let answer: unknown;
    try {
      answer = await s.call(tool, args[tool] ?? { handle });
    } catch {
      refused.push(tool);
      continue;
    }
    assert.deepEqual(violations(SCHEMAS[tool], answer), [], tool);
    checked.push(tool);
  }
  // The demo capture answers all but tensor_flow (it names no tensor) and perf_counters (it
  // has no counters); those are named when too many refuse.
  assert.ok(checked.length >= 18, `checked ${checked.join(", ")}; refused ${refused.join(", ")}`);
});

Deno.test("the TypeScript compiler is the schema script's alone: src/ never imports it", () => {
  // Prevents the server from loading a compiler (megabytes) it never needs to answer.
  const walk = (dir: URL): string[] =>
    [...Deno.readDirSync(dir)].flatMap((e) =>
      e.isDirectory
        ? walk(new URL(`${e.name}/`, dir))
        : e.name.endsWith(".ts")
        ? [Deno.readTextFileSync(new URL(e.name, dir))]
        : []
    );
  const sources = walk(new URL("../../src/", import.meta.url));
  assert.ok(sources.length > 50);
  for (const text of sources) assert.ok(!/from\s+["'](npm:)?typescript(@[^"']*)?["']/.test(text));
});

Deno.test("the schema check finds a field the type does not declare and a wrong type", () => {
  // Prevents the check above from passing because it checks nothing.
  const schema = SCHEMAS.op_breakdown;
  assert.ok(violations(schema, { surprise: 1 }).some((v) => v === "$.surprise: not allowed"));
  assert.ok(violations(schema, { op_count: "3" }).some((v) => v.startsWith("$.op_count:")));
  assert.ok(violations(schema, { handle: "h" }).some((v) => v === "$.groups: missing"));
  const nested = violations(schema, { groups: [{ group: "Matmul", count: "3" }] });
  assert.ok(nested.includes("$.groups[0].count: string, not number"), nested.join("\n"));
});
