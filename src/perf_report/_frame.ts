/**
 * Internal: a CSV table seen the way pandas.read_csv hands it to tt-perf-report — de-duplicated
 * column names, a dtype per column (int64, float64, bool or object) and typed cell values.
 * @module
 */

import { type CsvTable, ParsedCsv } from "./csv_table.ts";
import type { CellValue } from "./cells.ts";
import {
  isNaToken,
  isPandasInt,
  parsePandasNumber,
  parsePythonInt,
  pyFloatRepr,
} from "./_python.ts";

/** The dtype pandas infers for a column. */
export type Dtype = "int" | "float" | "bool" | "object";

const TRUE_TOKENS = new Set(["True", "TRUE", "true"]);
const FALSE_TOKENS = new Set(["False", "FALSE", "false"]);

/** pandas' `Unnamed: i` naming and `.1`, `.2` de-duplication of header names. */
export function pandasColumnNames(header: readonly string[]): string[] {
  const names = header.map((h, i) => (h === "" ? `Unnamed: ${i}` : h));
  const counts = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    let col = names[i];
    let cur = counts.get(col) ?? 0;
    while (cur > 0) {
      counts.set(col, cur + 1);
      col = `${col}.${cur}`;
      cur = counts.get(col) ?? 0;
    }
    names[i] = col;
    counts.set(col, cur + 1);
  }
  return names;
}

/** The dtype pandas infers for a column of raw cells (with `low_memory=False`). */
export function inferDtype(cells: Iterable<string>): Dtype {
  let any = false;
  let sawNa = false;
  let allInt = true;
  let allFloat = true;
  let allBool = true;
  for (const cell of cells) {
    if (isNaToken(cell)) {
      sawNa = true;
      continue;
    }
    any = true;
    if (allInt && !isPandasInt(cell)) allInt = false;
    if (allFloat && parsePandasNumber(cell) === undefined) allFloat = false;
    if (allBool && !TRUE_TOKENS.has(cell) && !FALSE_TOKENS.has(cell)) allBool = false;
    if (!allInt && !allFloat && !allBool) return "object";
  }
  if (!any) return "float";
  if (allInt) return sawNa ? "float" : "int";
  if (allFloat) return "float";
  if (allBool) return sawNa ? "object" : "bool";
  return "object";
}

/**
 * A column read once: its dtype, `pd.to_numeric` of every cell, which cells are NA, and — for
 * a bool or object column — its pandas values (a number column's are its numbers, NA as null,
 * read from them on demand rather than boxed into an array of every cell).
 */
interface ParsedColumn {
  /** Its position in a row. */
  at: number;
  dtype: Dtype;
  values: readonly CellValue[] | null;
  numbers: Float64Array;
  missing: Uint8Array;
}

/** A read-only pandas-like view of a CSV table. Row positions are 0-based data-row indices. */
export class Frame {
  readonly columns: readonly string[];
  readonly #csv: ParsedCsv;
  readonly #index = new Map<string, number>();
  /** Each column's dtype, values and numbers, made once on first use: cells are read often. */
  readonly #parsed = new Map<string, ParsedColumn>();

  static #byTable = new WeakMap<CsvTable, Frame>();

  /**
   * The frame of `table`, made once per table: a table is never changed after parsing, so
   * every reader of it (signposts, device count, each report) shares one frame's parsed
   * columns instead of inferring and parsing them again.
   */
  static of(table: CsvTable): Frame {
    let frame = Frame.#byTable.get(table);
    if (!frame) {
      frame = new Frame(table);
      Frame.#byTable.set(table, frame);
    }
    return frame;
  }

  constructor(table: CsvTable) {
    this.columns = pandasColumnNames(table.header);
    this.#csv = ParsedCsv.of(table);
    this.columns.forEach((c, i) => this.#index.set(c, i));
  }

  /** Number of data rows. */
  get length(): number {
    return this.#csv.length;
  }

  /** True when the column exists. */
  has(column: string): boolean {
    return this.#index.has(column);
  }

  /** The raw text of a cell, or undefined when the column is absent. */
  raw(pos: number, column: string): string | undefined {
    const i = this.#index.get(column);
    return i === undefined ? undefined : this.#csv.cell(pos, i);
  }

  /**
   * The text of a cell made only of digits and brackets (`32`, `32[1]`), or undefined for any
   * other cell or an absent column. Such a cell reads the same whatever its column's dtype: as
   * text in a text column, as the number its digits spell in a number column. So a reader that
   * only needs its number (a tensor dimension) can skip typing a column whose cells are all
   * like this.
   */
  dimensionText(pos: number, column: string): string | undefined {
    const i = this.#index.get(column);
    if (i === undefined || pos < 0 || pos >= this.#csv.length) return undefined;
    const { text, starts, ends, width } = this.#csv;
    const k = pos * width + i;
    const from = starts[k];
    if (from < 0) return undefined; // a quoted cell: read the long way
    const to = ends[k];
    if (from === to) return undefined;
    for (let c = from; c < to; c++) {
      const u = text.charCodeAt(c);
      if ((u < 48 || u > 57) && u !== 91 && u !== 93) return undefined;
    }
    return text.slice(from, to);
  }

  /** The column's dtype as pandas infers it (undefined when the column is absent). */
  dtype(column: string): Dtype | undefined {
    return this.#column(column)?.dtype;
  }

  /** The pandas value of a cell (null = NaN), or undefined when the column is absent. */
  value(pos: number, column: string): CellValue | undefined {
    const parsed = this.#column(column);
    if (parsed === undefined) return undefined;
    if (parsed.values !== null) return parsed.values[pos];
    return parsed.missing[pos] ? null : parsed.numbers[pos];
  }

  /**
   * One pass over a column on its first use: each cell is tested for NA and parsed as a number
   * once, and the dtype, the pandas values and the coerced numbers all come from that pass.
   */
  #column(column: string): ParsedColumn | undefined {
    const cached = this.#parsed.get(column);
    if (cached) return cached;
    const i = this.#index.get(column);
    if (i === undefined) return undefined;
    const csv = this.#csv;
    const { text, starts, ends, width } = csv;
    const n = csv.length;
    const numbers = new Float64Array(n);
    const missing = new Uint8Array(n);
    let any = false;
    let sawNa = false;
    let allInt = true;
    let allFloat = true;
    let allBool = true;
    // Each non-plain cell's string, kept for the values of a text column (made on first need).
    let texts: string[] | null = null;
    for (let r = 0; r < n; r++) {
      // An unquoted cell is tested in the text itself: a plain number needs no string (a
      // fraction one only the short-lived one Number reads). Anything else is made into its
      // string and read the long way.
      const k = r * width + i;
      const from = starts[k];
      const inText = from >= 0;
      const cell = inText ? "" : csv.cell(r, i);
      // Only a digit or a minus sign can begin a plain number: other cells skip the scan.
      const c0 = inText ? text.charCodeAt(from) : cell.charCodeAt(0);
      const plain = !((c0 >= 48 && c0 <= 57) || c0 === 45)
        ? NOT_PLAIN
        : inText
        ? plainNumberIn(text, from, ends[k])
        : plainNumber(cell);
      if (plain !== NOT_PLAIN) {
        // Digits with an optional sign and fraction: what every path below would conclude.
        any = true;
        if (plain === PLAIN_FLOAT) {
          numbers[r] = Number(inText ? text.slice(from, ends[k]) : cell);
          allInt = false;
        } else numbers[r] = plainInt;
        allBool = false;
        continue;
      }
      const other = inText ? text.slice(from, ends[k]) : cell;
      if (isNaToken(other)) {
        missing[r] = 1;
        numbers[r] = NaN;
        sawNa = true;
        continue;
      }
      any = true;
      (texts ??= new Array(n))[r] = other;
      if (allBool && !TRUE_TOKENS.has(other) && !FALSE_TOKENS.has(other)) allBool = false;
      if (!maybeNumeric(c0, other)) {
        // pandas reads no number, and so no int, from it.
        numbers[r] = NaN;
        allInt = allFloat = false;
        continue;
      }
      const x = parsePandasNumber(other);
      numbers[r] = x ?? NaN;
      if (x === undefined) allFloat = false;
      if (allInt && (x === undefined || !isPandasInt(other))) allInt = false;
    }
    const dtype: Dtype = !any
      ? "float"
      : allInt
      ? (sawNa ? "float" : "int")
      : allFloat
      ? "float"
      : allBool
      ? (sawNa ? "object" : "bool")
      : "object";
    let values: CellValue[] | null = null;
    if (dtype === "bool" || dtype === "object") {
      values = new Array(n);
      for (let r = 0; r < n; r++) {
        const cell = missing[r] ? null : (texts?.[r] ?? csv.cell(r, i));
        values[r] = cell === null ? null : dtype === "bool" ? TRUE_TOKENS.has(cell) : cell;
      }
    }
    const parsed = { at: i, dtype, values, numbers, missing };
    this.#parsed.set(column, parsed);
    return parsed;
  }

  /**
   * Python's `str()` of the cell's pandas value (what an f-string prints): `nan` for a missing
   * value, the float repr for a float column, the raw text for text. Undefined when absent.
   */
  text(pos: number, column: string): string | undefined {
    const parsed = this.#column(column);
    if (parsed === undefined) return undefined;
    return parsed.missing[pos] ? "nan" : this.#present(pos, parsed);
  }

  /** The cell as text when it is not missing (`str()` form), else null; undefined when absent. */
  textOrNull(pos: number, column: string): string | null | undefined {
    const parsed = this.#column(column);
    if (parsed === undefined) return undefined;
    return parsed.missing[pos] ? null : this.#present(pos, parsed);
  }

  /** `str()` of a cell that is not missing (its column's numbers hold what pandas read). */
  #present(pos: number, parsed: ParsedColumn): string {
    switch (parsed.dtype) {
      case "int": {
        const raw = this.#csv.cell(pos, parsed.at);
        return (parsePythonInt(raw) ?? BigInt(raw.trim())).toString();
      }
      case "float":
        return pyFloatRepr(parsed.numbers[pos]);
      case "bool":
        return parsed.values![pos] ? "True" : "False";
      default:
        // A text column's values are its cells' strings: no new one per read.
        return parsed.values![pos] as string;
    }
  }

  /** The cell as `pd.to_numeric(errors="coerce")` reads it: a number or NaN. */
  numeric(pos: number, column: string): number {
    const parsed = this.#column(column);
    return parsed === undefined ? NaN : parsed.numbers[pos];
  }
}

/**
 * Whether a non-blank cell whose first unit is `c0` may still be a number to pandas. A cell
 * that begins with printable ASCII (never whitespace, so `trim` keeps it first) other than a
 * digit, a sign, a point or the `i` of `inf` matches neither number pattern, and nor does one
 * holding a `[` (the `32[1]` of a padded tensor dimension), which neither pattern admits.
 */
function maybeNumeric(c0: number, cell: string): boolean {
  // The first unit first: a long text cell (ATTRIBUTES) is then never searched.
  if (c0 > 32 && c0 < 127) {
    const start = (c0 >= 48 && c0 <= 57) || c0 === 43 || c0 === 45 || c0 === 46 || c0 === 105 ||
      c0 === 73;
    if (!start) return false;
  }
  return !cell.includes("[");
}

const NOT_PLAIN = 0;
/** The value of the last cell plainNumber found a plain integer. */
let plainInt = 0;
const PLAIN_INT = 1;
const PLAIN_FLOAT = 2;

/**
 * Whether a cell is a plain decimal number — an optional `-`, 1 to 15 digits, optionally a
 * `.` and more digits, nothing else — and if so whether it has a fraction. Such a cell is no
 * NA token and no bool token, pandas reads it as `Number` reads it, and a plain integer of up
 * to 15 digits fits int64: the common case, decided without a regular expression.
 *
 * @example
 * ```ts
 * import { plainNumber } from "./_frame.ts";
 * if (plainNumber("1024") !== 1 || plainNumber("-2.50") !== 2 || plainNumber("1e3") !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function plainNumber(cell: string): number {
  return plainNumberIn(cell, 0, cell.length);
}

/** `plainNumber` of the text `s[from, to)`, read in place. */
function plainNumberIn(s: string, from: number, to: number): number {
  const negative = from < to && s.charCodeAt(from) === 45;
  let i = negative ? from + 1 : from;
  const digitsFrom = i;
  let v = 0;
  while (i < to) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    i++;
  }
  const intDigits = i - digitsFrom;
  if (intDigits === 0 || intDigits > 15) return NOT_PLAIN;
  if (i === to) {
    // Up to 15 digits: exact as a double (as Number(cell) reads it, -0 included).
    plainInt = negative ? -v : v;
    return PLAIN_INT;
  }
  if (s.charCodeAt(i) !== 46) return NOT_PLAIN;
  for (i++; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return NOT_PLAIN;
  }
  return PLAIN_FLOAT;
}
