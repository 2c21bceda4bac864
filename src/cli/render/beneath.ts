/**
 * What goes beneath an answer's tables, in plain sentences: its caveat, what it assumed, the
 * lists it cut and how to get the rest, its notes, the tools to call next (written as the
 * flags a person types), and the fields of the answer the rendering did not show, so nothing
 * is left out silently.
 *
 * @module
 */
import { figure, styleOf, type View, wrap } from "./text.ts";
import type { NextStep } from "../../tools/answer_parts.ts";
import type { FieldsOf, Rendered, SaidBeneath } from "./answer.ts";
import { noteById } from "../../tools/notes.ts";

/** The answer-level fields said beneath every rendering, in the order they are said. */
export const PART_KEYS: FieldsOf<SaidBeneath> = [
  "caveat",
  "assumed",
  "cut",
  "note",
  "notes",
  "next",
];

/** Why a list was cut, in words, and the flag that changes it. */
const CUT_REASONS: Readonly<Record<string, string>> = {
  limit: "the limit, --limit",
  include: "the cap --include sets",
  size: "the answer's size budget",
};

/** A labelled sentence, wrapped with a hanging indent. */
export function sentence(label: string, text: string, view: View): string[] {
  const style = styleOf(view);
  const lines = wrap(`${label}: ${text}`, view.width, "", "  ");
  lines[0] = style.bold(`${label}:`) + lines[0].slice(label.length + 1);
  return lines;
}

/** A flag's value as a shell reads it back: quoted when it holds a space or a quote. */
function quoted(value: string): string {
  return /^[\w.,:/@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** A next step's arguments as the flags `call` takes (the handle left out: call loads it). */
export function asFlags(args: NextStep["arguments"]): string {
  return Object.entries(args ?? {})
    .filter(([k]) => k !== "handle" && k !== "handle_a" && k !== "handle_b")
    .map(([k, v]) =>
      `--${k.replaceAll("_", "-")} ${quoted(Array.isArray(v) ? v.join(",") : figure(v))}`
    )
    .join(" ");
}

/**
 * The answer-level parts of `answer` as sentences, and any other `*_note` or `*_caveat` field
 * at its top level. The fixed notes it names (`notes`) are said from the registry on
 * `--explain` only, and `said` are those the rendering has already said itself.
 *
 * @example
 * ```ts
 * import { partsBeneath } from "./beneath.ts";
 * const lines = partsBeneath({
 *   caveat: "Two devices overlap.",
 *   next: [{ tool: "operation_detail", why: "see it", arguments: { handle: "h", operation_id: 3 } }],
 * }, { width: 80, colour: false });
 * if (lines.join("\n") !== "Caveat: Two devices overlap.\nNext: operation_detail --operation-id 3 — see it") {
 *   throw new Error(lines.join("\n"));
 * }
 * ```
 */
export function partsBeneath(
  answer: Rendered<object>,
  view: View,
  said: readonly string[] = [],
): string[] {
  const lines: string[] = [];
  if (typeof answer.caveat === "string") lines.push(...sentence("Caveat", answer.caveat, view));
  for (const [subject, { assumed, why, override }] of Object.entries(answer.assumed ?? {})) {
    lines.push(
      ...sentence(
        "Assumed",
        `${subject} = ${figure(assumed)}: ${figure(why)}${override ? ` (${override})` : ""}`,
        view,
      ),
    );
  }
  for (const [field, { total_rows, returned, reason, more }] of Object.entries(answer.cut ?? {})) {
    lines.push(
      ...sentence(
        "Cut",
        `${figure(returned)} of ${figure(total_rows)} ${field} shown (${
          CUT_REASONS[String(reason)] ?? figure(reason)
        }): ${figure(more)}`,
        view,
      ),
    );
  }
  // The notes and caveats of their own kind are found by their names, whatever the tool.
  const texts = new Map(
    Object.entries(answer).filter((e): e is [string, string] =>
      isSentenceKey(e[0]) && typeof e[1] === "string"
    ),
  );
  const sentences = [...texts.keys()];
  // A note says how to read any such answer, the same on every call: said on --explain only.
  const named = (answer.notes ?? []).filter((id) => !said.includes(id));
  const fixed = [...sentences.filter(isFixedNote), ...named];
  const notes = view.explain ? sentences : sentences.filter((k) => !isFixedNote(k));
  for (const k of notes) {
    const label = k === "note" ? "Note" : `${k[0].toUpperCase()}${k.slice(1).replaceAll("_", " ")}`;
    lines.push(...sentence(label, texts.get(k)!, view));
  }
  if (view.explain) {
    for (const id of named) {
      const note = noteById(id);
      lines.push(...sentence(note?.title ?? id, note?.text ?? `(no note ${id})`, view));
    }
  }
  if (!view.explain && fixed.length > 0) {
    lines.push(
      ...wrap(
        `--explain adds how to read this answer (${fixed.join(", ")}).`,
        view.width,
        "",
        "  ",
      ).map((l) => styleOf(view).dim(l)),
    );
  }
  if (Array.isArray(answer.next)) {
    for (const step of answer.next) {
      const flags = asFlags(step.arguments);
      lines.push(
        ...sentence("Next", `${step.tool}${flags ? ` ${flags}` : ""} — ${figure(step.why)}`, view),
      );
    }
  }
  return lines;
}

/** A fixed note of the answer's own (`note`, `detail_note`): how to read it, not what it found. */
export function isFixedNote(k: string): boolean {
  return k === "note" || k.endsWith("_note");
}

/** A note or a caveat of its own kind (`timing_caveat`), said beneath as a sentence. */
export function isSentenceKey(k: string): boolean {
  return k === "note" || k.endsWith("_note") || k.endsWith("_caveat");
}

/** The keys a rendering says in sentences whatever the tool. */
function saidBeneath(answer: object): Set<string> {
  return new Set(
    Object.keys(answer).filter((k) =>
      (PART_KEYS as readonly string[]).includes(k) || isSentenceKey(k)
    ),
  );
}

/**
 * The sentence naming the top-level fields of `answer` a rendering did not show (`shown` and
 * the answer-level parts aside), or none when it showed them all.
 */
export function notShown<A extends object>(
  answer: A,
  shown: FieldsOf<A>,
  view: View,
): string[] {
  return unshown(answer, new Set(shown), view);
}

/** `notShown`, the fields shown named as the answer names them (the generic rendering's). */
function unshown(answer: object, shown: ReadonlySet<string>, view: View): string[] {
  const said = saidBeneath(answer);
  // A one-shot call's handle names nothing once the process has exited.
  const rest = Object.keys(answer).filter((k) => k !== "handle" && !shown.has(k) && !said.has(k));
  if (rest.length === 0) return [];
  return wrap(`Also in --json: ${rest.join(", ")}.`, view.width, "", "  ")
    .map((l) => styleOf(view).dim(l));
}

/** The sentences beneath a rendering: its own, the answer-level parts, what was not shown. */
export function footer<A extends object>(
  answer: Rendered<A>,
  shown: FieldsOf<A>,
  view: View,
  own: readonly string[] = [],
  said: readonly string[] = [],
): string[] {
  return footerOf(answer, new Set(shown), view, own, said);
}

/**
 * `footer` for a rendering that knows no tool's fields (the generic one): the fields it
 * showed, as the answer itself names them.
 */
export function footerOf(
  answer: Rendered<object>,
  shown: ReadonlySet<string>,
  view: View,
  own: readonly string[] = [],
  said: readonly string[] = [],
): string[] {
  const body = [...own, ...partsBeneath(answer, view, said)];
  const rest = unshown(answer, shown, view);
  return [...(body.length > 0 ? ["", ...body] : []), ...(rest.length > 0 ? ["", ...rest] : [])];
}
