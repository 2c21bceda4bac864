/**
 * Internal: a CSV table seen the way pandas.read_csv hands it to tt-perf-report — de-duplicated
 * column names, a dtype per column (int64, float64, bool or object) and typed cell values.
 * @module
 */

import {
  type CellCodes,
  type CsvColumn,
  type CsvTable,
  EMPTY_CELL,
  NUMBER_CELL,
  ParsedCsv,
} from "./csv_table.ts";
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
 * A column read once: its dtype, and for each of its distinct texts (the table's entries,
 * see `csv_table.ts`) whether it is NA, `pd.to_numeric` of it and its pandas value. A cell is
 * then read through its code: no array of every cell's value is made.
 */
interface ParsedColumn {
  /** Its position in a row. */
  at: number;
  dtype: Dtype;
  codes: CellCodes;
  /** The numbers of its NUMBER_CELL cells. */
  numbers: Int32Array | Float64Array | null;
  entries: readonly string[];
  /** Per entry: 1 when pandas reads it as missing (the empty entry 0 included). */
  entryMissing: Uint8Array;
  /** Per entry: `pd.to_numeric(errors="coerce")` of it (NaN when missing or not a number). */
  entryNumber: Float64Array;
  /** Per entry of an int column: its `str()` form, made on first read. */
  entryStr: (string | undefined)[];
}

/** A read-only pandas-like view of a CSV table. Row positions are 0-based data-row indices. */
export class Frame {
  readonly columns: readonly string[];
  readonly #csv: ParsedCsv;
  readonly #index = new Map<string, number>();
  /** Each column's dtype and entries read, made once on first use: cells are read often. */
  readonly #parsed = new Map<string, ParsedColumn>();
  /** Per column read by `dimensionText`: per entry, 1 digits and brackets only, 2 not. */
  readonly #dimensionEntries = new Map<number, Uint8Array>();

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

  /** The column as the table keeps it (codes and texts), or undefined when absent. */
  stored(column: string): CsvColumn | undefined {
    const i = this.#index.get(column);
    return i === undefined ? undefined : this.#csv.column(i);
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
    const { codes, numbers, entries } = this.#csv.column(i);
    const code = codes[pos];
    if (code === NUMBER_CELL) {
      const n = numbers![pos];
      return n >= 0 ? String(n) : undefined;
    }
    if (code === EMPTY_CELL) return undefined;
    let kinds = this.#dimensionEntries.get(i);
    if (kinds === undefined || kinds.length < entries.length) {
      const more = new Uint8Array(entries.length);
      if (kinds) more.set(kinds);
      this.#dimensionEntries.set(i, kinds = more);
    }
    if (kinds[code] === 0) kinds[code] = digitsAndBrackets(entries[code]) ? 1 : 2;
    return kinds[code] === 1 ? entries[code] : undefined;
  }

  /** The column's dtype as pandas infers it (undefined when the column is absent). */
  dtype(column: string): Dtype | undefined {
    return this.#column(column)?.dtype;
  }

  /** The pandas value of a cell (null = NaN), or undefined when the column is absent. */
  value(pos: number, column: string): CellValue | undefined {
    const parsed = this.#column(column);
    if (parsed === undefined) return undefined;
    const code = parsed.codes[pos];
    if (code === NUMBER_CELL) {
      const n = parsed.numbers![pos];
      return parsed.dtype === "object" ? String(n) : n;
    }
    if (parsed.entryMissing[code]) return null;
    switch (parsed.dtype) {
      case "int":
      case "float":
        return parsed.entryNumber[code];
      case "bool":
        return TRUE_TOKENS.has(parsed.entries[code]);
      default:
        return parsed.entries[code];
    }
  }

  /**
   * A column on its first use: each distinct text is tested for NA and parsed as a number
   * once (pandas' rules, whatever the text), and the dtype comes from the texts the column's
   * cells hold and whether it holds plain integers or empty cells.
   */
  #column(column: string): ParsedColumn | undefined {
    const cached = this.#parsed.get(column);
    if (cached) return cached;
    const i = this.#index.get(column);
    if (i === undefined) return undefined;
    const n = this.#csv.length;
    const { codes, numbers, entries } = this.#csv.column(i);
    // Which entries the rows hold (a piece of the file read twice may have added one none
    // holds in the end).
    const held = new Uint8Array(entries.length);
    for (let r = 0; r < n; r++) held[codes[r]] = 1;
    const entryMissing = new Uint8Array(entries.length);
    const entryNumber = new Float64Array(entries.length);
    entryMissing[EMPTY_CELL] = 1;
    entryNumber[EMPTY_CELL] = NaN;
    let any = held[NUMBER_CELL] === 1;
    let sawNa = held[EMPTY_CELL] === 1;
    let allInt = true;
    let allFloat = true;
    let allBool = !any;
    for (let e = 2; e < entries.length; e++) {
      const text = entries[e];
      const plain = plainNumber(text);
      if (plain !== NOT_PLAIN) {
        // Digits with an optional sign and fraction: what the general path would conclude.
        entryNumber[e] = plain === PLAIN_INT ? plainInt : Number(text);
        if (!held[e]) continue;
        any = true;
        allBool = false;
        if (plain === PLAIN_FLOAT) allInt = false;
        continue;
      }
      if (isNaToken(text)) {
        entryMissing[e] = 1;
        entryNumber[e] = NaN;
        if (held[e]) sawNa = true;
        continue;
      }
      const x = parsePandasNumber(text);
      entryNumber[e] = x ?? NaN;
      if (!held[e]) continue;
      any = true;
      if (allBool && !TRUE_TOKENS.has(text) && !FALSE_TOKENS.has(text)) allBool = false;
      if (x === undefined) allInt = allFloat = false;
      else if (allInt && !isPandasInt(text)) allInt = false;
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
    const parsed: ParsedColumn = {
      at: i,
      dtype,
      codes,
      numbers,
      entries,
      entryMissing,
      entryNumber,
      entryStr: [],
    };
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
    return isMissing(parsed, pos) ? "nan" : this.#present(pos, parsed);
  }

  /** The cell as text when it is not missing (`str()` form), else null; undefined when absent. */
  textOrNull(pos: number, column: string): string | null | undefined {
    const parsed = this.#column(column);
    if (parsed === undefined) return undefined;
    return isMissing(parsed, pos) ? null : this.#present(pos, parsed);
  }

  /** `str()` of a cell that is not missing. */
  #present(pos: number, parsed: ParsedColumn): string {
    const code = parsed.codes[pos];
    switch (parsed.dtype) {
      case "int": {
        // A plain integer's text is already what Python prints.
        if (code === NUMBER_CELL) return String(parsed.numbers![pos]);
        const made = parsed.entryStr[code];
        if (made !== undefined) return made;
        const raw = parsed.entries[code];
        return parsed.entryStr[code] = (parsePythonInt(raw) ?? BigInt(raw.trim())).toString();
      }
      case "float":
        return pyFloatRepr(
          code === NUMBER_CELL ? parsed.numbers![pos] : parsed.entryNumber[code],
        );
      case "bool":
        return TRUE_TOKENS.has(parsed.entries[code]) ? "True" : "False";
      default:
        // A text column's values are its entries: no new string per read.
        return code === NUMBER_CELL ? String(parsed.numbers![pos]) : parsed.entries[code];
    }
  }

  /** The cell as `pd.to_numeric(errors="coerce")` reads it: a number or NaN. */
  numeric(pos: number, column: string): number {
    const parsed = this.#column(column);
    if (parsed === undefined) return NaN;
    const code = parsed.codes[pos];
    return code === NUMBER_CELL ? parsed.numbers![pos] : parsed.entryNumber[code];
  }
}

/** Whether pandas reads the cell as missing. */
function isMissing(parsed: ParsedColumn, pos: number): boolean {
  const code = parsed.codes[pos];
  return code !== NUMBER_CELL && parsed.entryMissing[code] === 1;
}

/** Whether a non-empty text is made of digits and brackets only. */
function digitsAndBrackets(text: string): boolean {
  if (text.length === 0) return false;
  for (let c = 0; c < text.length; c++) {
    const u = text.charCodeAt(c);
    if ((u < 48 || u > 57) && u !== 91 && u !== 93) return false;
  }
  return true;
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
