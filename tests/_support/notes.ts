/**
 * Test support: the fixed notes an answer names in `notes`, read back by id — through the
 * SDK client as the `ttnn://notes/<id>` resources an agent reads, or from the registry for an
 * in-process call — so a test can hold a fact reachable from the answer that no longer says it.
 */
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { noteById } from "../../src/tools/notes.ts";

/** The ids an answer names in its `notes` (none when it names none). */
export function noteIds(answer: Record<string, unknown>): string[] {
  return (answer.notes as string[] | undefined) ?? [];
}

/** Each note `answer` names, by id, with its text from the registry; throws on an unknown id. */
export function noteTexts(answer: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    noteIds(answer).map((id) => {
      const note = noteById(id);
      if (!note) throw new Error(`the answer names an unknown note ${id}`);
      return [id, note.text];
    }),
  );
}

/** Each note `answer` names, by id, with its text as the client reads the resource. */
export async function notesRead(
  client: Client,
  answer: Record<string, unknown>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const id of noteIds(answer)) {
    const read = await client.readResource({ uri: `ttnn://notes/${id}` });
    out[id] = (read.contents[0] as { text: string }).text;
  }
  return out;
}

/** The answer's text with the text of every note it names: all it says, by value or by id. */
export function reachable(answer: Record<string, unknown>): string {
  return [JSON.stringify(answer), ...Object.values(noteTexts(answer))].join("\n");
}
