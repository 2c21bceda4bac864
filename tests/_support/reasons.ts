/** Test support: load_report's grouped unanswerable_reasons read back per tool. */
import { noteById } from "../../src/tools/notes.ts";

/**
 * Each unanswerable tool's reason, from `answer.unanswerable_reasons` (one entry per distinct
 * reason with the tools it covers), followed by the text of the capture note it names (`note
 * <id>`), so the recipe a reason points to reads as part of it; throws when a tool is covered
 * twice, a reason repeats, or a reason names a note the answer does not.
 */
export function reasonsByTool(answer: Record<string, unknown>): Record<string, string> {
  const groups = answer.unanswerable_reasons as { reason: string; tools: string[] }[];
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { reason, tools } of groups) {
    if (seen.has(reason)) throw new Error(`reason stated twice: ${reason}`);
    seen.add(reason);
    for (const tool of tools) {
      if (tool in out) throw new Error(`${tool} is covered by two reasons`);
      out[tool] = withNotes(reason, (answer.notes as string[] | undefined) ?? []);
    }
  }
  return out;
}

/** `reason` followed by the text of each note it names (`note <id>`), which `named` must hold. */
function withNotes(reason: string, named: readonly string[]): string {
  const ids = [...reason.matchAll(/note ([\w.]+)\)/g)].map((m) => m[1]);
  for (const id of ids) {
    if (!named.includes(id)) throw new Error(`${reason} names ${id}, which notes does not`);
  }
  return [reason, ...ids.map((id) => noteById(id)!.text)].join(" ");
}
