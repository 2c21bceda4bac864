/**
 * Generates the JSON Schema of every tool's answer from its TypeScript type (the
 * `<Tool>Answer` its tool file exports, with the answer-level parts every answer may carry)
 * into src/protocol/answer_schemas.json, for an MCP client to read: tools/list has no room
 * for output schemas within its budget. The TypeScript compiler is a dependency of this
 * script only; nothing under src/ imports it.
 *
 *   deno run --allow-read --allow-write --allow-env --allow-run scripts/answer_schemas.ts
 *   deno run --allow-read --allow-env --allow-run scripts/answer_schemas.ts --check
 *
 * `--check` writes nothing and exits 1 when the file is not what the types give.
 *
 * @module
 */
// A dependency of this script alone (never of the server), so pinned here, not in deno.json.
// deno-lint-ignore no-import-prefix
import ts from "npm:typescript@5.9.3";
import { TOOL_NAMES } from "../src/tools/registry.ts";

const ROOT = new URL("../", import.meta.url);
const TOOLS_DIR = new URL("src/tools/", ROOT);
export const SCHEMAS_FILE = new URL("src/protocol/answer_schemas.json", ROOT);

/** A JSON Schema (draft 2020-12) as this script writes it. */
export type JsonSchema = { [keyword: string]: unknown };

/** Each tool's name (from the tool registry) and the answer type its file exports. */
export function toolAnswers(): { tool: string; type: string }[] {
  return TOOL_NAMES.map((tool) => ({
    tool,
    type: tool.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("") + "Answer",
  })).sort((a, b) => a.tool.localeCompare(b.tool));
}

/** The schemas of every tool's answer, keyed by tool, from the types as they stand. */
export function generate(): Record<string, JsonSchema> {
  const tools = toolAnswers();
  const entry = new URL("_answer_schemas_entry.ts", TOOLS_DIR).pathname;
  const lines = [
    `import type { PartFields } from "./answer_parts.ts";`,
    ...tools.map((t) => `import type { ${t.type} } from "./${t.tool}.ts";`),
    ...tools.map((t) => `export type Schema_${t.tool} = ${t.type} & PartFields;`),
  ];
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => name === entry ? lines.join("\n") : read(name);
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === entry || exists(name);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === entry
      ? ts.createSourceFile(name, lines.join("\n"), lang)
      : getSource(name, lang, ...rest);
  const program = ts.createProgram([entry], options, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry)!;
  const out: Record<string, JsonSchema> = {};
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const tool = statement.name.text.slice("Schema_".length);
    const type = checker.getTypeAtLocation(statement.name);
    out[tool] = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: `The answer of ${tool}`,
      ...toSchema(checker, type, []),
    };
  }
  return out;
}

/** `type` as JSON Schema: the shapes a JSON answer can take (no functions, no classes). */
function toSchema(checker: ts.TypeChecker, type: ts.Type, seen: ts.Type[]): JsonSchema {
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (f & ts.TypeFlags.StringLiteral) return { const: (type as ts.StringLiteralType).value };
  if (f & ts.TypeFlags.NumberLiteral) return { const: (type as ts.NumberLiteralType).value };
  if (f & ts.TypeFlags.BooleanLiteral) return { const: checker.typeToString(type) === "true" };
  if (f & ts.TypeFlags.String || f & ts.TypeFlags.TemplateLiteral) return { type: "string" };
  if (f & ts.TypeFlags.Number) return { type: "number" };
  if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
  if (f & ts.TypeFlags.Null) return { type: "null" };
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
    const literals = members.filter((t) => t.isStringLiteral());
    const booleans = members.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = members.filter((t) =>
      !t.isStringLiteral() && !(t.flags & ts.TypeFlags.BooleanLiteral)
    );
    const schemas: JsonSchema[] = [];
    if (literals.length > 0) {
      const values = literals.map((t) => (t as ts.StringLiteralType).value).sort();
      schemas.push(values.length === 1 ? { const: values[0] } : { enum: values });
    }
    if (booleans.length === 2) schemas.push({ type: "boolean" });
    else for (const b of booleans) schemas.push(toSchema(checker, b, seen));
    for (const t of rest) schemas.push(toSchema(checker, t, seen));
    return schemas.length === 1 ? schemas[0] : { anyOf: schemas };
  }
  if (seen.includes(type)) return {};
  const inner = [...seen, type];
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const args = checker.getTypeArguments(type as ts.TypeReference);
    if (checker.isTupleType(type)) {
      return {
        type: "array",
        prefixItems: args.map((t) => toSchema(checker, t, inner)),
        items: false,
      };
    }
    return { type: "array", items: toSchema(checker, args[0], inner) };
  }
  if (f & ts.TypeFlags.Object || type.isIntersection()) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const p of checker.getPropertiesOfType(type)) {
      const declared = p.valueDeclaration ?? p.declarations?.[0];
      const pType = declared
        ? checker.getTypeOfSymbolAtLocation(p, declared)
        : checker.getTypeOfSymbol(p);
      const doc = ts.displayPartsToString(p.getDocumentationComment(checker)).trim();
      properties[p.name] = {
        ...(doc ? { description: doc.replace(/\s+/g, " ") } : {}),
        ...toSchema(checker, pType, inner),
      };
      if (!(p.flags & ts.SymbolFlags.Optional)) required.push(p.name);
    }
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    return {
      type: "object",
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: index ? toSchema(checker, index.type, inner) : false,
    };
  }
  throw new Error(`no JSON Schema for ${checker.typeToString(type)}`);
}

/** The schemas as the file holds them: JSON, formatted as `deno fmt` leaves it. */
export async function schemasText(schemas: Record<string, JsonSchema>): Promise<string> {
  const fmt = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=json", "-"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = fmt.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(schemas, null, 2) + "\n"));
  await writer.close();
  const { stdout, success } = await fmt.output();
  if (!success) throw new Error("deno fmt failed on the schemas");
  return new TextDecoder().decode(stdout);
}

if (import.meta.main) {
  const text = await schemasText(generate());
  if (Deno.args.includes("--check")) {
    let current = "";
    try {
      current = Deno.readTextFileSync(SCHEMAS_FILE);
    } catch { /* absent: not current */ }
    if (current !== text) {
      console.error(`${SCHEMAS_FILE.pathname} is not current: run scripts/answer_schemas.ts`);
      Deno.exit(1);
    }
  } else {
    Deno.writeTextFileSync(SCHEMAS_FILE, text);
    console.log(`wrote ${SCHEMAS_FILE.pathname}`);
  }
}
