/**
 * Text for a person at a terminal: how wide a string shows, how a figure is written (null as
 * "?", never as 0), sentences wrapped to the terminal's width, and the few styles (bold, dim,
 * colours) that turn to plain text when colour is off.
 *
 * @module
 */

/** How an answer is shown: the terminal's width in columns, and whether colour may be used. */
export interface View {
  width: number;
  colour: boolean;
  /** `--explain`: the fixed notes (how to read any such answer) are said too. */
  explain?: boolean;
  /**
   * Include fields the terminal asked for only to fill its columns (not asked by the person):
   * shown as columns when the renderer has one for them, never listed beneath.
   */
  unasked?: readonly string[];
}

/** What a cell whose figure is null (could not be measured) shows. */
export const UNKNOWN = "?";

// The escape character starts every colour code; matching it is the point.
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** `text` without its colour codes. */
export function plain(text: string): string {
  return text.replace(ANSI, "");
}

/** Whether a code point takes two columns (CJK, emoji). */
function wide(cp: number): boolean {
  return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
}

/**
 * The columns `text` takes on a terminal, colour codes aside.
 *
 * @example
 * ```ts
 * import { widthOf } from "./text.ts";
 * if (widthOf("\x1b[1mµs\x1b[0m") !== 2 || widthOf("ok 🤷") !== 5) throw new Error();
 * ```
 */
export function widthOf(text: string): number {
  let n = 0;
  for (const ch of plain(text)) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x300 && cp <= 0x36f) || cp === 0x200d || cp === 0xfe0f) continue;
    n += wide(cp) ? 2 : 1;
  }
  return n;
}

/** `text` cut to `width` columns, its last one an ellipsis when anything was cut. */
export function shorten(text: string, width: number): string {
  if (widthOf(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const ch of plain(text)) {
    const w = widthOf(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + "…";
}

/** `text` padded with spaces to `width` columns, on the right or (for figures) the left. */
export function pad(text: string, width: number, align: "left" | "right" = "left"): string {
  const gap = " ".repeat(Math.max(0, width - widthOf(text)));
  return align === "left" ? text + gap : gap + text;
}

/**
 * A figure as a person reads it: null as "?" (unknown — never 0), an absent one blank, whole
 * numbers of five digits or more grouped by thousands, booleans as yes/no, a list joined.
 *
 * @example
 * ```ts
 * import { figure } from "./text.ts";
 * if (figure(null) !== "?" || figure(35651584) !== "35,651,584" || figure(95.27) !== "95.27") {
 *   throw new Error();
 * }
 * ```
 */
export function figure(value: unknown): string {
  if (value === null) return UNKNOWN;
  if (value === undefined) return "";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return String(value);
    return Number.isInteger(value) && Math.abs(value) >= 10_000
      ? value.toLocaleString("en-US")
      : String(value);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map(figure).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A figure with its unit, or "unknown" when it is null. */
export function withUnit(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined) return "unknown";
  return `${figure(value)} ${unit}`;
}

/**
 * `text` wrapped at spaces to `width` columns; lines after the first are indented by
 * `indent` (or `hang`, when given, for a hanging indent). A word longer than a line is kept
 * whole on its own line.
 *
 * @example
 * ```ts
 * import { wrap } from "./text.ts";
 * const lines = wrap("one two three four", 9, "  ");
 * if (lines.join("|") !== "  one two|  three|  four") throw new Error(lines.join("|"));
 * ```
 */
export function wrap(text: string, width: number, indent = "", hang = indent): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = indent;
    let lead = indent;
    for (const word of paragraph.split(/ +/).filter((w) => w.length > 0)) {
      const candidate = line === lead ? line + word : `${line} ${word}`;
      if (widthOf(candidate) > width && line !== lead) {
        lines.push(line);
        lead = hang;
        line = hang + word;
      } else line = candidate;
    }
    lines.push(line);
    indent = hang;
  }
  return lines;
}

/**
 * `items` laid out in lines of at most `width` columns, `sep` between items on a line; an item
 * is never broken (unlike `wrap`, the spaces inside an item are kept).
 *
 * @example
 * ```ts
 * import { flow } from "./text.ts";
 * const lines = flow(["█ high", "░ low", "? unknown"], 16, "  ");
 * if (lines.join("|") !== "█ high  ░ low|? unknown") throw new Error(lines.join("|"));
 * ```
 */
export function flow(items: readonly string[], width: number, sep = "   "): string[] {
  const lines: string[] = [];
  let line = "";
  for (const item of items) {
    if (line !== "" && widthOf(line + sep + item) > width) {
      lines.push(line);
      line = item;
    } else line = line === "" ? item : line + sep + item;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** `n` and a noun, the noun plural unless `n` is 1. */
export function count(n: unknown, noun: string, plural = `${noun}s`): string {
  return `${figure(n)} ${n === 1 ? noun : plural}`;
}

/** The styles an answer uses; each is the identity when colour is off. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  /** Text on a background: `bg` and `fg` are ANSI colour numbers (30–37, 40–47, 90–107). */
  paint(text: string, bg: number, fg?: number): string;
}

/** The styles of `view`. */
export function styleOf(view: View): Style {
  if (!view.colour) return { bold: (t) => t, dim: (t) => t, paint: (t) => t };
  return {
    bold: (t) => `\x1b[1m${t}\x1b[22m`,
    dim: (t) => `\x1b[2m${t}\x1b[22m`,
    paint: (t, bg, fg) => `\x1b[${bg}${fg === undefined ? "" : `;${fg}`}m${t}\x1b[0m`,
  };
}

/** A heading line, bold where colour is on. */
export function heading(text: string, view: View): string[] {
  return wrap(text, view.width).map((l) => styleOf(view).bold(l));
}

/**
 * A record as one phrase — `key value · key value` — with nested records in brackets and
 * lists of records separated by semicolons, for fields no column has room for.
 */
export function phrase(record: object): string {
  return Object.entries(record).filter(([, v]) => v !== undefined).map(([k, v]) => {
    if (Array.isArray(v) && v.some((x) => typeof x === "object" && x !== null)) {
      return `${k}: ${v.map((x) => phraseOfValue(x)).join("; ")}`;
    }
    return `${k} ${phraseOfValue(v)}`;
  }).join(" · ");
}

function phraseOfValue(v: unknown): string {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) {
    return `(${phrase(v)})`;
  }
  return figure(v);
}
