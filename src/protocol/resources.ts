/**
 * The server's MCP resources, one general list (uri, name, title, mimeType, text provider): the
 * notes of src/tools/notes.ts as `ttnn://notes/<id>`, the fixed explanations an answer names by
 * id instead of repeating them, and each tool's answer JSON Schema as `ttnn://schemas/<tool>`
 * (generated from its answer type by scripts/answer_schemas.ts; tools/list's 12,000-byte budget
 * has no room for output schemas). The schemas (~290 KB) are imported on the first read only.
 *
 * @module
 */
import { NOTES } from "../tools/notes.ts";
import { TOOL_NAMES } from "../tools/registry.ts";

/** One resource: its listing and the text `resources/read` gives. */
export interface Resource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text(): string | Promise<string>;
}

/** The uri of the note `id`. */
export function noteUri(id: string): string {
  return `ttnn://notes/${id}`;
}

/** The uri of tool `name`'s answer schema. */
export function schemaUri(name: string): string {
  return `ttnn://schemas/${name}`;
}

let schemas: Promise<Record<string, unknown>> | null = null;

/** The generated answer schemas, imported once, on the first read of one. */
function answerSchemas(): Promise<Record<string, unknown>> {
  schemas ??= import("./answer_schemas.json", { with: { type: "json" } }).then(
    (m) => m.default as Record<string, unknown>,
  );
  return schemas;
}

/** Every resource the server lists: the notes, then one answer schema per tool. */
export const RESOURCES: readonly Resource[] = [
  ...NOTES.map((n) => ({
    uri: noteUri(n.id),
    name: n.id,
    title: n.title,
    description: `The note '${n.id}' answers name in their \`notes\`.`,
    mimeType: "text/plain",
    text: () => n.text,
  })),
  ...TOOL_NAMES.map((name) => ({
    uri: schemaUri(name),
    name: `${name}.answer`,
    title: `${name} answer schema`,
    description: `JSON Schema of ${name}'s answer (the JSON of its text content).`,
    mimeType: "application/schema+json",
    text: async () => JSON.stringify((await answerSchemas())[name]),
  })),
];

/** The `resources/list` entry of `r`. */
export function describeResource(r: Resource): Record<string, unknown> {
  return {
    uri: r.uri,
    name: r.name,
    title: r.title,
    description: r.description,
    mimeType: r.mimeType,
  };
}

/**
 * The `resources/read` result for `uri`, or undefined when no resource has it.
 *
 * @example
 * ```ts
 * import { readResource } from "./resources.ts";
 * if (!JSON.stringify(await readResource("ttnn://notes/basis.op_interval")).includes("FW END")) {
 *   throw new Error();
 * }
 * if (!JSON.stringify(await readResource("ttnn://schemas/top_ops")).includes("properties")) {
 *   throw new Error();
 * }
 * if (await readResource("ttnn://notes/nope") !== undefined) throw new Error();
 * ```
 */
export async function readResource(uri: string): Promise<Record<string, unknown> | undefined> {
  const r = RESOURCES.find((x) => x.uri === uri);
  if (!r) return undefined;
  return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: await r.text() }] };
}
