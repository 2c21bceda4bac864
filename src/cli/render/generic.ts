/**
 * The rendering of a tool without one of its own: its key figures (the top-level figures and
 * short texts, and small records of them), then its first list of records as a table, then
 * its long texts and answer-level parts as sentences; the fields it could not show are named.
 * It knows no tool's fields: it reads every answer as its entries (name and value), and the
 * entries of its list as `Entries`, never a field by a name of its own.
 *
 * @module
 */
import { figure, heading, pad, type View, widthOf, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footerOf, isSentenceKey, sentence } from "./beneath.ts";
import type { Rendered } from "./answer.ts";

/** One entry of a list, as the names and values of its fields. */
export type Entries = ReadonlyMap<string, unknown>;

/** A JSON object (not a list, not null). */
function isObject(v: unknown): v is object {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A text longer than this is said as a sentence beneath rather than as a key figure. */
const SHORT_TEXT = 60;

/** The most fields of a record shown on one key-figure line. */
const RECORD_FIELDS = 8;

function isScalar(v: unknown): boolean {
  return v === null || ["number", "string", "boolean"].includes(typeof v);
}

function isShort(v: unknown): boolean {
  return isScalar(v) && (typeof v !== "string" || v.length <= SHORT_TEXT);
}

/** A small record of short figures, shown on one line. */
function isSmallRecord(v: unknown): v is object {
  if (!isObject(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.length <= RECORD_FIELDS && values.every(isShort);
}

/** A list of short figures (names, ids), shown wrapped on its key-figure line. */
function isShortList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.every(isShort);
}

/** A record of figures and texts, some long: each entry said as a sentence. */
function isTextRecord(v: unknown): v is object {
  if (!isObject(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.every(isScalar);
}

/** A list whose entries are records. */
function isRecordList(v: unknown): v is object[] {
  return Array.isArray(v) && v.length > 0 && v.every(isObject);
}

/** The columns of a list of records: every field that is short in each entry having it. */
export function columnsOf(rows: readonly Entries[]): {
  columns: Column<Entries>[];
  left: string[];
} {
  const keys: string[] = [];
  for (const r of rows) for (const k of r.keys()) if (!keys.includes(k)) keys.push(k);
  const shown = keys.filter((k) => rows.every((r) => r.get(k) === undefined || isShort(r.get(k))));
  const texty = (k: string) =>
    rows.some((r) => {
      const v = r.get(k);
      return typeof v === "string" && v.length > 12;
    });
  return {
    columns: shown.map((k, i) => ({
      header: k,
      value: (r: Entries) => r.get(k),
      shrink: texty(k),
      ...(i >= 3 ? { drop: i } : {}),
    })),
    left: keys.filter((k) => !shown.includes(k)),
  };
}

/**
 * Renders `answer` of tool `name`.
 *
 * @example
 * ```ts
 * import { render } from "./generic.ts";
 * const lines = render({ handle: "report-1", zone_count: 2, zones: [{ zone: "A", us: null }] }, {
 *   width: 80,
 *   colour: false,
 * }, "zone_timings");
 * if (!lines.includes("zone_count  2") || !lines.some((l) => /^A\s+\?$/.test(l))) {
 *   throw new Error(lines.join("\n"));
 * }
 * ```
 */
export function render<A extends object>(
  answer: Rendered<A>,
  view: View,
  name = "answer",
): string[] {
  const lines = heading(name, view);
  // The fields shown, by the names the answer gives them: whatever the tool's are.
  const shown = new Set<string>();
  const keyFigures: [string, string][] = [];
  const sentences: string[] = [];
  let list: { name: string; rows: object[] } | null = null;
  for (const [k, v] of Object.entries(answer)) {
    if (v === undefined) continue;
    if (isShort(v)) keyFigures.push([k, figure(v)]);
    else if (isShortList(v)) keyFigures.push([k, v.length === 0 ? "none" : figure(v)]);
    else if (isSmallRecord(v)) {
      keyFigures.push([k, Object.entries(v).map(([f, x]) => `${f} ${figure(x)}`).join(", ")]);
    } else if (isTextRecord(v)) {
      for (const [f, x] of Object.entries(v)) {
        sentences.push(...sentence(`${k}.${f}`, figure(x), view));
      }
    } else if (typeof v === "string") {
      if (!isSentenceKey(k) && k !== "caveat") {
        sentences.push(...sentence(k, v, view));
      }
    } else if (list === null && isRecordList(v)) list = { name: k, rows: v };
    else continue;
    shown.add(k);
  }
  const keyWidth = Math.max(0, ...keyFigures.map(([k]) => widthOf(k)));
  const hang = " ".repeat(keyWidth + 2);
  for (const [k, v] of keyFigures) {
    const wrapped = wrap(v, view.width, hang);
    wrapped[0] = `${pad(k, keyWidth)}  ${wrapped[0].trimStart()}`;
    lines.push(...wrapped);
  }
  const own = [...sentences];
  if (list !== null) {
    const rows: Entries[] = list.rows.map((r) => new Map(Object.entries(r)));
    const { columns, left } = columnsOf(rows);
    const laid = layTable(columns, rows, view);
    lines.push("", ...heading(`${list.name} (${rows.length})`, view), ...laid.lines);
    own.push(...tableNotes(laid, view));
    if (left.length > 0) {
      own.push(
        ...wrap(`${list.name} also carry ${left.join(", ")} (in --json).`, view.width, "", "  "),
      );
    }
  }
  return [...lines, ...footerOf(answer, shown, view, own)];
}
