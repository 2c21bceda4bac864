/**
 * An aligned table that fits the terminal: figures right-aligned, text left-aligned. When the
 * table is wider than the terminal, the columns marked optional are left out first (highest
 * `drop` first), then the columns marked `shrink` are narrowed, their cells ending in "…". What
 * was left out or shortened is said beneath the table — never cut silently.
 *
 * @module
 */
import { figure, pad, shorten, styleOf, type View, widthOf, wrap } from "./text.ts";

/** One column of a table. */
export interface Column<R> {
  header: string;
  /** The cell's value: a figure (written by `figure`, null as "?") or text. */
  value(row: R): unknown;
  /** Right-aligned unless said; numbers are right-aligned by default. */
  align?: "left" | "right";
  /** May be narrowed to fit, its cells shortened with an ellipsis (op codes, shapes). */
  shrink?: boolean;
  /** The width a shrinkable column keeps before any column is left out (default 20). */
  floor?: number;
  /** May be left out to fit; a higher number is left out first. */
  drop?: number;
}

/** A table as lines, and what was left out or shortened to fit. */
export interface Laid {
  lines: string[];
  /** Headers of the columns left out. */
  dropped: string[];
  /** How many cells were shortened. */
  shortened: number;
  /** Whether any cell shows an unknown figure ("?"). */
  unknown: boolean;
}

const GAP = "  ";

/**
 * Lays `rows` out under `columns` within `view.width` columns (plus an optional last row,
 * `total`, set apart by a rule).
 *
 * @example
 * ```ts
 * import { layTable } from "./table.ts";
 * const t = layTable(
 *   [{ header: "op", value: (r: { op: string }) => r.op }, { header: "µs", value: () => null }],
 *   [{ op: "Matmul" }],
 *   { width: 80, colour: false },
 * );
 * if (t.lines[2] !== "Matmul   ?" || !t.unknown) throw new Error(JSON.stringify(t.lines));
 * ```
 */
export function layTable<R>(
  columns: readonly Column<R>[],
  rows: readonly R[],
  view: View,
  total?: R,
): Laid {
  const all = total === undefined ? rows : [...rows, total];
  const cells = columns.map((c) => alignPoints(all.map((r) => c.value(r))));
  const aligns = columns.map((c, i) =>
    c.align ?? (all.some((r) => typeof c.value(r) === "number") ||
        cells[i].every((s) => s === "" || s === "?")
      ? "right"
      : "left")
  );
  const natural = columns.map((c, i) => Math.max(widthOf(c.header), ...cells[i].map(widthOf)));
  let kept = columns.map((_, i) => i);
  const span = (widths: number[]) =>
    kept.reduce((s, i) => s + widths[i], 0) + GAP.length * (kept.length - 1);
  const widths = [...natural];
  const droppable = kept.filter((i) => columns[i].drop !== undefined)
    .sort((a, b) => columns[b].drop! - columns[a].drop! || b - a);
  const dropped: string[] = [];
  // Narrow the shrinkable columns to a floor first; leave columns out only when that is not
  // enough, then narrow further.
  const floor = (i: number) =>
    Math.min(natural[i], Math.max(widthOf(columns[i].header), columns[i].floor ?? 20));
  const narrow = (to: (i: number) => number) => {
    // The rightmost shrinkable column gives way first: the leftmost names the row.
    for (const i of kept.filter((k) => columns[k].shrink).reverse()) {
      const over = span(widths) - view.width;
      if (over <= 0) return;
      widths[i] = Math.max(to(i), widths[i] - over);
    }
  };
  narrow(floor);
  while (span(widths) > view.width && droppable.length > 0) {
    const i = droppable.shift()!;
    kept = kept.filter((k) => k !== i);
    dropped.push(columns[i].header);
    for (const k of kept.filter((k) => columns[k].shrink)) widths[k] = natural[k];
    narrow(floor);
  }
  narrow((i) => Math.min(natural[i], widthOf(columns[i].header), 6));
  let shortened = 0;
  const line = (texts: (i: number) => string) =>
    kept.map((i) => {
      const text = texts(i);
      const fitted = widthOf(text) > widths[i] ? (shortened++, shorten(text, widths[i])) : text;
      return pad(fitted, widths[i], aligns[i]);
    }).join(GAP).trimEnd();
  const style = styleOf(view);
  const lines = [
    style.bold(line((i) => columns[i].header)),
    kept.map((i) => "─".repeat(widths[i])).join(GAP),
  ];
  rows.forEach((_, r) => lines.push(line((i) => cells[i][r])));
  if (total !== undefined) {
    lines.push(kept.map((i) => "─".repeat(widths[i])).join(GAP));
    lines.push(line((i) => cells[i][rows.length]));
  }
  const unknown = kept.some((i) => cells[i].includes("?"));
  return { lines, dropped, shortened, unknown };
}

/**
 * A column's cells, figures padded on the right so that their decimal points line up
 * (`95.27` under `105.018` reads as `95.27 `).
 */
function alignPoints(values: readonly unknown[]): string[] {
  const texts = values.map(figure);
  const decimals = values.map((v, i) =>
    typeof v === "number" && Number.isFinite(v) && /^-?[\d,]+(\.\d+)?$/.test(texts[i])
      ? (texts[i].split(".")[1]?.length ?? 0)
      : null
  );
  const most = Math.max(0, ...decimals.map((d) => d ?? 0));
  if (most === 0) return texts;
  return texts.map((t, i) => {
    const d = decimals[i];
    return d === null ? t : t + " ".repeat(d === 0 ? most + 1 : most - d);
  });
}

/**
 * The lines, wrapped to the view, that say what a laid table left out, shortened or showed as
 * unknown.
 */
export function tableNotes(laid: Laid, view: View): string[] {
  const notes: string[] = [];
  if (laid.unknown) notes.push("? marks a figure that could not be measured (null), not a zero.");
  if (laid.dropped.length > 0) {
    notes.push(
      `Left out to fit ${view.width} columns: ${laid.dropped.join(", ")} ` +
        "(a wider terminal or --json shows them).",
    );
  }
  if (laid.shortened > 0) {
    notes.push("Cells ending in … are shortened to fit; --json has them whole.");
  }
  return notes.flatMap((t) => wrap(t, view.width, "", "  "));
}
