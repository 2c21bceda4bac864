/**
 * A tool's arguments as command-line flags, read from its input schema at run time (the
 * schema `tools/list` publishes): `--limit 3 --by dram --start-signpost PERF_DECODE --include
 * config,flags --perf-id 12`. A flag is the argument's name in kebab case (the snake-case name
 * is accepted too); a list takes commas or repeats; a whole number must be one. The arguments
 * that name a report (`handle`, `profiler_path`, …) are not flags: a one-shot call loads its
 * report from `--performance DIR` / `--profiler DIR`. The JSON argument form still works, as one
 * word beginning with `{`. Every refusal names the problem and the flags that exist.
 *
 * @module
 */
import { z } from "zod";
import type { Tool } from "../tools/tool.ts";
import { helpOf } from "../tools/args.ts";

/** What one argument of a tool is, as a flag. */
export interface ArgSpec {
  /** The schema's name, e.g. `start_signpost`. */
  name: string;
  /** The flag, e.g. `--start-signpost`. */
  flag: string;
  kind: "string" | "integer" | "number" | "boolean" | "list" | "id";
  /** The allowed values (an enum, or a list's items). */
  values?: string[];
  default?: unknown;
  required: boolean;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  /** The schema's description (what tools/list publishes). */
  description?: string;
  /** What the flag means at a shell, when the schema's description does not say. */
  help?: string;
}

/** The arguments that name a report: a one-shot call fills them from the directory flags. */
export const REPORT_ARGS: readonly string[] = [
  "handle",
  "handle_a",
  "handle_b",
  "profiler_path",
  "performance_path",
];

type Schema = Record<string, unknown>;

/** The kind of flag a JSON Schema property makes. */
function kindOf(p: Schema): ArgSpec["kind"] {
  if (Array.isArray(p.anyOf)) {
    const types = (p.anyOf as Schema[]).map((s) => s.type);
    return types.includes("integer") ? "id" : "string";
  }
  switch (p.type) {
    case "integer":
      return "integer";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return "list";
    default:
      return "string";
  }
}

/** `start_signpost` as `--start-signpost`. */
export function flagOf(name: string): string {
  return `--${name.replaceAll("_", "-")}`;
}

/**
 * The flags of `tool`, in its schema's order; the report arguments are left out.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { argSpecs } from "./tool_flags.ts";
 * const specs = argSpecs({
 *   input: z.strictObject({ handle: z.string(), start_signpost: z.string().optional() }),
 * });
 * if (specs.length !== 1 || specs[0].flag !== "--start-signpost") throw new Error();
 * ```
 */
export function argSpecs(tool: Pick<Tool, "input">): ArgSpec[] {
  const schema = z.toJSONSchema(tool.input, { io: "input" }) as Schema;
  const required = new Set((schema.required ?? []) as string[]);
  const shape = (tool.input as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>)
    .filter(([name]) => !REPORT_ARGS.includes(name))
    .map(([name, p]) => {
      const items = (p.items ?? {}) as Schema;
      const values = (p.enum ?? items.enum) as string[] | undefined;
      return {
        name,
        flag: flagOf(name),
        kind: kindOf(p),
        ...(values ? { values: values.map(String) } : {}),
        ...("default" in p ? { default: p.default } : {}),
        required: required.has(name),
        ...(typeof p.minimum === "number" && p.minimum > Number.MIN_SAFE_INTEGER
          ? { minimum: p.minimum }
          : {}),
        ...(typeof p.exclusiveMinimum === "number" ? { exclusiveMinimum: p.exclusiveMinimum } : {}),
        ...(typeof p.maximum === "number" && p.maximum < Number.MAX_SAFE_INTEGER
          ? { maximum: p.maximum }
          : {}),
        ...(typeof p.description === "string" ? { description: p.description } : {}),
        ...(shape[name] && helpOf(shape[name]) ? { help: helpOf(shape[name]) } : {}),
      };
    });
}

/**
 * The names of the report arguments `tool`'s schema takes: read from an object schema's shape
 * (cheap: a one-shot call asks it every time), else from its JSON Schema.
 */
export function reportArgsOf(tool: Pick<Tool, "input">): string[] {
  const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
  const names = shape !== undefined
    ? Object.keys(shape)
    : Object.keys((z.toJSONSchema(tool.input, { io: "input" }) as Schema).properties ?? {});
  return names.filter((n) => REPORT_ARGS.includes(n));
}

/** Arguments read from the command line, or why they could not be. */
export type ReadArgs =
  | { ok: true; args: Record<string, unknown> }
  | { ok: false; message: string };

/** What a value of `spec` looks like, for a message. */
function expected(spec: ArgSpec): string {
  if (spec.values) {
    return `${spec.kind === "list" ? "a comma-separated list of" : "one of"} ${
      spec.values.join(", ")
    }`;
  }
  return {
    integer: "a whole number",
    number: "a number",
    id: "a row id (a whole number)",
    boolean: "true or false",
    list: "a comma-separated list",
    string: "a value",
  }[spec.kind];
}

/** The least edits turning `a` into `b`. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** One flag's value as the schema wants it, or the message saying why it is not one. */
function valueOf(spec: ArgSpec, raw: string, tool: string): unknown | { error: string } {
  const bad = (what = raw, is = `is not ${expected(spec)}`) => ({
    error: `${spec.flag}: '${what}' ${is} (see call ${tool} --help)`,
  });
  const bounded = (n: number) => {
    if (spec.minimum !== undefined && n < spec.minimum) {
      return bad(raw, `is below the least allowed, ${spec.minimum}`);
    }
    if (spec.exclusiveMinimum !== undefined && n <= spec.exclusiveMinimum) {
      return bad(raw, `must be above ${spec.exclusiveMinimum}`);
    }
    return n;
  };
  switch (spec.kind) {
    case "integer":
      return /^\s*-?\d+\s*$/.test(raw) ? bounded(Number(raw)) : bad();
    case "number": {
      const n = Number(raw);
      return raw.trim() !== "" && Number.isFinite(n) ? bounded(n) : bad();
    }
    case "id":
      return /^\s*\d+\s*$/.test(raw) ? bounded(Number(raw)) : bad();
    case "boolean":
      return raw === "true" ? true : raw === "false" ? false : bad();
    case "list": {
      const items = raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
      if (items.length === 0) return bad();
      const wrong = spec.values ? items.filter((s) => !spec.values!.includes(s)) : [];
      return wrong.length > 0
        ? bad(wrong.join(","), `is not among ${spec.values!.join(", ")}`)
        : items;
    }
    default:
      return spec.values && !spec.values.includes(raw) ? bad() : raw;
  }
}

/** The message for a flag `tool` does not take. */
function unknownFlag(flag: string, tool: string, specs: readonly ArgSpec[]): string {
  const name = flag.slice(2);
  if (REPORT_ARGS.includes(name.replaceAll("-", "_"))) {
    return `${flag} is not a flag: a one-shot call loads its report itself; pass --performance ` +
      `DIR or --profiler DIR (see call ${tool} --help)`;
  }
  const near = specs.map((s) => s.flag).filter((f) => distance(f, flag) <= 2);
  const flags = specs.length > 0 ? specs.map((s) => s.flag).join(", ") : "none of its own";
  return `${tool} takes no ${flag}${near.length > 0 ? ` (did you mean ${near[0]}?)` : ""}; ` +
    `its flags: ${flags}; with --performance DIR, --profiler DIR, --json, --root DIR ` +
    `(see call ${tool} --help)`;
}

/**
 * Reads `words` — the command line after `call TOOL`, the global flags already taken out —
 * into the tool's arguments: `--flag value`, `--flag=value`, and at most one JSON object. A
 * flag and the JSON naming the same argument is refused rather than one silently winning.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { argsFromWords } from "./tool_flags.ts";
 * const tool = {
 *   name: "top_ops",
 *   input: z.strictObject({
 *     handle: z.string(),
 *     limit: z.number().int().min(1).default(10),
 *     include: z.array(z.enum(["config", "flags"])).optional(),
 *   }),
 * };
 * const r = argsFromWords(tool, ["--limit", "3", "--include=config,flags"]);
 * if (!r.ok || r.args.limit !== 3 || (r.args.include as string[]).length !== 2) throw new Error();
 * const bad = argsFromWords(tool, ["--limt", "3"]);
 * if (bad.ok || !bad.message.includes("did you mean --limit?")) throw new Error();
 * ```
 */
export function argsFromWords(
  tool: Pick<Tool, "name" | "input">,
  words: readonly string[],
): ReadArgs {
  let specs: ArgSpec[] | null = null;
  const specsNow = () => specs ??= argSpecs(tool);
  const fromFlags: Record<string, unknown> = {};
  let json: Record<string, unknown> | null = null;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word.trimStart().startsWith("{")) {
      if (json !== null) return { ok: false, message: "give the arguments as one JSON object" };
      try {
        json = JSON.parse(word);
      } catch (e) {
        return { ok: false, message: `the arguments are not JSON: ${(e as Error).message}` };
      }
      continue;
    }
    if (!word.startsWith("--")) {
      return {
        ok: false,
        message: `unexpected argument '${word}': give ${tool.name}'s arguments as flags ` +
          `(--limit 3) or as one JSON object (see call ${tool.name} --help)`,
      };
    }
    const eq = word.indexOf("=");
    const flag = eq === -1 ? word : word.slice(0, eq);
    const spec = specsNow().find((s) => s.flag === flag || `--${s.name}` === flag);
    if (!spec) return { ok: false, message: unknownFlag(flag, tool.name, specsNow()) };
    let raw: string | undefined = eq === -1 ? undefined : word.slice(eq + 1);
    if (raw === undefined) {
      const next = words[i + 1];
      if (spec.kind === "boolean" && next !== "true" && next !== "false") raw = "true";
      else if (next === undefined || next.startsWith("--")) {
        return {
          ok: false,
          message: `${spec.flag} needs a value: ${expected(spec)} (see call ${tool.name} --help)`,
        };
      } else raw = words[++i];
    }
    const value = valueOf(spec, raw, tool.name);
    if (typeof value === "object" && value !== null && "error" in value) {
      return { ok: false, message: (value as { error: string }).error };
    }
    fromFlags[spec.name] = spec.kind === "list" && Array.isArray(fromFlags[spec.name])
      ? [...fromFlags[spec.name] as string[], ...value as string[]]
      : value;
  }
  const twice = Object.keys(fromFlags).filter((k) => json !== null && k in json);
  if (twice.length > 0) {
    return {
      ok: false,
      message: `${twice.map(flagOf).join(", ")} given both as a flag and in the JSON; give it once`,
    };
  }
  return { ok: true, args: { ...(json ?? {}), ...fromFlags } };
}
