/**
 * The rendering of a tool without one of its own: its key figures (the top-level figures and
 * short texts, and small records of them), then its first list of records as a table, then
 * its long texts and answer-level parts as sentences; the fields it could not show are named.
 *
 * @module
 */
import { figure, heading, listOf, pad, type View, widthOf, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer, isSentenceKey, sentence } from "./beneath.ts";

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
function isSmallRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.length <= RECORD_FIELDS && values.every(isShort);
}

/** A list of short figures (names, ids), shown wrapped on its key-figure line. */
function isShortList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.every(isShort);
}

/** A record of figures and texts, some long: each entry said as a sentence. */
function isTextRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const values = Object.values(v);
  return values.length > 0 && values.every(isScalar);
}

/** A list whose entries are records. */
function isRecordList(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.length > 0 &&
    v.every((x) => typeof x === "object" && x !== null && !Array.isArray(x));
}

/** The columns of a list of records: every field that is short in each entry having it. */
export function columnsOf(rows: readonly Record<string, unknown>[]): {
  columns: Column<Record<string, unknown>>[];
  left: string[];
} {
  const keys: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
  const shown = keys.filter((k) => rows.every((r) => r[k] === undefined || isShort(r[k])));
  const texty = (k: string) => rows.some((r) => typeof r[k] === "string" && r[k].length > 12);
  return {
    columns: shown.map((k, i) => ({
      header: k,
      value: (r: Record<string, unknown>) => r[k],
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
export function render(answer: Record<string, unknown>, view: View, name = "answer"): string[] {
  const lines = heading(name, view);
  const shown: string[] = [];
  const keyFigures: [string, string][] = [];
  const sentences: string[] = [];
  let list: string | null = null;
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
    } else if (list === null && isRecordList(v)) list = k;
    else continue;
    shown.push(k);
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
    const rows = listOf(answer[list]);
    const { columns, left } = columnsOf(rows);
    const laid = layTable(columns, rows, view);
    lines.push("", ...heading(`${list} (${rows.length})`, view), ...laid.lines);
    own.push(...tableNotes(laid, view));
    if (left.length > 0) {
      own.push(...wrap(`${list} also carry ${left.join(", ")} (in --json).`, view.width, "", "  "));
    }
  }
  return [...lines, ...footer(answer, shown, view, own)];
}
