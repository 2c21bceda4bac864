/**
 * The server's MCP resources, one general list (uri, name, title, mimeType, text provider) so
 * other kinds can join it: today the notes of src/tools/notes.ts as `ttnn://notes/<id>`, the
 * fixed explanations an answer names by id instead of repeating them.
 *
 * @module
 */
import { NOTES } from "../tools/notes.ts";

/** One resource: its listing and the text `resources/read` gives. */
export interface Resource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text(): string;
}

/** The uri of the note `id`. */
export function noteUri(id: string): string {
  return `ttnn://notes/${id}`;
}

/** Every resource the server lists. */
export const RESOURCES: readonly Resource[] = NOTES.map((n) => ({
  uri: noteUri(n.id),
  name: n.id,
  title: n.title,
  description: `The note '${n.id}' answers name in their \`notes\`.`,
  mimeType: "text/plain",
  text: () => n.text,
}));

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
 * if (!JSON.stringify(readResource("ttnn://notes/basis.op_interval")).includes("FW END")) {
 *   throw new Error();
 * }
 * if (readResource("ttnn://notes/nope") !== undefined) throw new Error();
 * ```
 */
export function readResource(uri: string): Record<string, unknown> | undefined {
  const r = RESOURCES.find((x) => x.uri === uri);
  if (!r) return undefined;
  return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: r.text() }] };
}
