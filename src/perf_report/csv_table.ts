/**
 * Parsing an `ops_perf_results*.csv` text into a table of text cells, kept by column.
 *
 * The table keeps every cell's text; pandas-style typing happens later (see `_frame.ts`).
 * Row `i` of the table is pandas row `i`, so its tt-perf-report ID is `i + 2`.
 *
 * The scanner is our own. The npm parsers cost too much of a cold call: csv-parse took
 * 150–270 ms on the largest real capture (2.7 MB) and papaparse, though it parses in ~20 ms,
 * is CommonJS and pulls in Deno's Node compatibility layer, 30–40 ms of every start
 * (measured 2026-11-29; bench/RESULTS.md). It reads a text given whole (`parseCsvTable`) or
 * in pieces as a file is read (`CsvReader`), so a large file's text is never held whole.
 * @module
 */

/** A CSV as text cells: the header line and the data records (blank lines skipped). */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

/** A column's cell codes, one a row: {@link EMPTY_CELL}, {@link NUMBER_CELL} or an entry. */
export type CellCodes = Uint8Array | Uint16Array | Uint32Array;

/** The code of an empty cell. */
export const EMPTY_CELL = 0;
/**
 * The code of a cell that is a plain integer written the way `String()` writes it (an
 * optional `-`, 1 to 15 digits, no leading zero, not `-0`): its text is its number's
 * `String()`, so the column keeps the number rather than the text.
 */
export const NUMBER_CELL = 1;

/**
 * One column of a parsed CSV. A cell whose code `k` is 2 or more is the text `entries[k]`:
 * every distinct text of a column is held once, so a column of a few long values repeated on
 * every row (ATTRIBUTES, kernel sources) costs a byte or two a row, not its text.
 */
export interface CsvColumn {
  /** One code a row (at least as many as the table has rows). */
  readonly codes: CellCodes;
  /** The numbers of the {@link NUMBER_CELL} cells (null when the column has none). */
  readonly numbers: Int32Array | Float64Array | null;
  /** The distinct texts; `entries[0]` and `entries[1]` stand for the two codes above. */
  readonly entries: readonly string[];
}

/**
 * A CSV as `parseCsvTable` and `CsvReader` read it: every cell's text, held by column as codes
 * into the column's distinct texts or as plain integers (see {@link CsvColumn}). `rows` makes
 * every record's strings, once, for readers that want records.
 */
export class ParsedCsv implements CsvTable {
  readonly header: string[];
  /** Data rows. */
  readonly length: number;
  /** Fields per row (the header's). */
  readonly width: number;
  readonly #columns: readonly CsvColumn[];
  #rows: string[][] | null = null;

  constructor(header: string[], length: number, columns: readonly CsvColumn[]) {
    this.header = header;
    this.width = header.length;
    this.length = length;
    this.#columns = columns;
  }

  /**
   * A table of given records (each padded to the header's width with blank cells).
   *
   * @example
   * ```ts
   * import { ParsedCsv } from "./csv_table.ts";
   * const t = ParsedCsv.of({ header: ["A", "B"], rows: [["1"], ["x", "y"]] });
   * if (t.cell(0, 1) !== "" || t.cell(1, 0) !== "x" || t.length !== 2) throw new Error();
   * ```
   */
  static of(table: CsvTable): ParsedCsv {
    if (table instanceof ParsedCsv) return table;
    const width = table.header.length;
    const store = new ColumnStore(width, table.rows.length);
    table.rows.forEach((record, r) => {
      for (let c = 0; c < width && c < record.length; c++) store.text(c, r, record[c]);
    });
    return new ParsedCsv(table.header, table.rows.length, store.finish(table.rows.length));
  }

  /** Column `c` (`0 <= c < width`). */
  column(c: number): CsvColumn {
    return this.#columns[c];
  }

  /** The text of cell `(r, c)` ("" past the header's width or the last row). */
  cell(r: number, c: number): string {
    if (c >= this.width || c < 0 || r >= this.length || r < 0) return "";
    const col = this.#columns[c];
    const code = col.codes[r];
    return code === NUMBER_CELL ? String(col.numbers![r]) : col.entries[code];
  }

  /** Every record as text cells (made on first use, then kept). */
  get rows(): string[][] {
    if (this.#rows === null) {
      const rows: string[][] = new Array(this.length);
      for (let r = 0; r < this.length; r++) {
        const record: string[] = new Array(this.width);
        for (let c = 0; c < this.width; c++) record[c] = this.cell(r, c);
        rows[r] = record;
      }
      this.#rows = rows;
    }
    return this.#rows;
  }
}

/** The text of cell `(r, c)` of any table, without making every record of a parsed one. */
export function cellOf(table: CsvTable, r: number, c: number): string {
  return table instanceof ParsedCsv ? table.cell(r, c) : (table.rows[r]?.[c] ?? "");
}

/** The number of data rows of any table, without making every record of a parsed one. */
export function rowCountOf(table: CsvTable): number {
  return table instanceof ParsedCsv ? table.length : table.rows.length;
}

/**
 * Each row's class over `columns` (indices into the header), numbered from 0 in order of first
 * appearance: the rows of a class hold the same text in every one of them (and rows that do
 * share a class, unless a number is quoted in one and bare in another). What is derived from
 * those cells alone can then be derived once a class and shared by its rows.
 *
 * @example
 * ```ts
 * import { parseCsvTable, rowClasses } from "./csv_table.ts";
 * const t = parseCsvTable("A,B,C\nx,1,p\ny,1,q\nx,1,r\nx,2,p\n", "t.csv");
 * const c = rowClasses(t, [0, 1]);
 * if (c.count !== 3 || [...c.of].join() !== "0,1,0,2") throw new Error();
 * ```
 */
export function rowClasses(
  table: CsvTable,
  columns: readonly number[],
): { of: Int32Array; count: number } {
  const csv = ParsedCsv.of(table);
  const rows = csv.length;
  const cols = columns.filter((c) => c >= 0 && c < csv.width).map((c) => csv.column(c));
  // Each row's hash over the columns, taken a column at a time (one kind of array a loop).
  const hash = new Int32Array(rows);
  for (const col of cols) mixColumn(hash, col);
  const of = new Int32Array(rows);
  // Per class: its first row, against which its other rows are checked.
  const firsts: number[] = [];
  const byHash = new Map<number, number>();
  for (let r = 0; r < rows; r++) {
    let cls = byHash.get(hash[r]);
    if (cls === undefined) {
      byHash.set(hash[r], cls = firsts.length);
      firsts.push(r);
    }
    of[r] = cls;
  }
  // Rows that share a hash almost always share their cells: checked a column at a time, and
  // only where two rows' cells differ are the classes made again, comparing cells.
  for (const col of cols) {
    if (!matchesFirsts(col, of, firsts)) return exactClasses(cols, hash);
  }
  return { of, count: firsts.length };
}

/** Mixes each row's cell of `col` (its code, and a number's value) into `hash`. */
function mixColumn(hash: Int32Array, col: CsvColumn): void {
  const { codes, numbers } = col;
  for (let r = 0; r < hash.length; r++) {
    const code = codes[r];
    let h = (Math.imul(hash[r], 31) + code) | 0;
    if (code === NUMBER_CELL) {
      const n = numbers![r];
      h = (Math.imul(h, 31) + (n | 0)) | 0;
      h = (Math.imul(h, 31) + ((n / 4294967296) | 0)) | 0;
    }
    hash[r] = h;
  }
}

/** Whether every row's cell of `col` is its class's first row's. */
function matchesFirsts(col: CsvColumn, of: Int32Array, firsts: readonly number[]): boolean {
  const { codes, numbers } = col;
  for (let r = 0; r < of.length; r++) {
    const f = firsts[of[r]];
    const code = codes[r];
    if (code !== codes[f] || (code === NUMBER_CELL && numbers![r] !== numbers![f])) return false;
  }
  return true;
}

/** The classes of `rowClasses` where hashes collide: each row compared with each candidate. */
function exactClasses(
  cols: readonly CsvColumn[],
  hash: Int32Array,
): { of: Int32Array; count: number } {
  const rows = hash.length;
  const of = new Int32Array(rows);
  const firsts: number[] = [];
  const byHash = new Map<number, number[]>();
  const same = (a: number, b: number) => {
    for (const { codes, numbers } of cols) {
      const code = codes[a];
      if (code !== codes[b] || (code === NUMBER_CELL && numbers![a] !== numbers![b])) return false;
    }
    return true;
  };
  for (let r = 0; r < rows; r++) {
    let candidates = byHash.get(hash[r]);
    if (candidates === undefined) byHash.set(hash[r], candidates = []);
    let cls = candidates.find((c) => same(firsts[c], r));
    if (cls === undefined) {
      candidates.push(cls = firsts.length);
      firsts.push(r);
    }
    of[r] = cls;
  }
  return { of, count: firsts.length };
}

/** The CSV text cannot be read as a table; the message names the file label and the line. */
export class CsvFormatError extends Error {
  /** 1-based line of the text where the problem was found. */
  readonly line: number;
  /** The label the caller gave for the file. */
  readonly fileLabel: string;

  constructor(fileLabel: string, line: number, detail: string) {
    super(`${fileLabel}: line ${line}: ${detail}`);
    this.name = "CsvFormatError";
    this.line = line;
    this.fileLabel = fileLabel;
  }
}

const LF = 10;
const CR = 13;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * Parses CSV text the way `pandas.read_csv` reads it for tt-perf-report: comma separated,
 * `"` quoting only at the start of a field (a bare quote inside an unquoted field is kept as
 * text; text after a closing quote is appended, as pandas does), doubled quotes inside quotes,
 * BOM and CRLF tolerated (also mixed in one file), blank lines skipped. A record with fewer
 * fields than the header is padded with empty cells (read as missing); one with more fields
 * is an error, as it is for pandas. Unlike pandas, a last record that is short of fields and
 * has no line break after it is an error too: that is a file cut off, not a row of blanks.
 *
 * @example
 * ```ts
 * import { parseCsvTable } from "./csv_table.ts";
 * const t = parseCsvTable('OP CODE,ATTRIBUTES\r\nMatmul,"{a, b}"\n\nx"y,\n', "x.csv");
 * if (t.rows.length !== 2 || t.rows[0][1] !== "{a, b}" || t.rows[1][0] !== 'x"y') throw new Error();
 * ```
 *
 * @param text the decoded file contents
 * @param fileLabel a name for the file, used in error messages
 * @throws {CsvFormatError} for an empty text, an unterminated quote, a record wider than the
 * header or a short last record with no line break after it
 */
export function parseCsvTable(text: string, fileLabel: string): ParsedCsv {
  const reader = new CsvReader(fileLabel, text.length);
  reader.push(text, true);
  return reader.finish();
}

/**
 * `parseCsvTable` fed in pieces, as a file is read: `push` each piece of the text in order,
 * the last with `last`, then `finish`. Every piece but the last must end just after a line
 * break (a `\n`, or a `\r` not followed by `\n`), so that no `\r\n` is split. A record that a
 * piece ends inside (a quoted field holding line breaks) is read again with the next piece.
 * The table is the same, and so is any error, however the text is cut.
 */
export class CsvReader {
  readonly #label: string;
  readonly #sizeHint: number;
  #header: string[] | null = null;
  #store: ColumnStore | null = null;
  #count = 0;
  #line = 1;
  /** `\n` line breaks read so far (the line a byte is on counts only these). */
  #lf = 0;
  #first = true;
  #carry = "";
  #wide: { line: number; fields: number } | null = null;
  #lastLine = 0;
  #lastFields = 0;
  /** Whether the text read so far ends with a line break. */
  #endsWithBreak = false;
  #done = false;

  /** `sizeHint`: the text's length, about (its size in bytes), to size the columns once. */
  constructor(fileLabel: string, sizeHint = 0) {
    this.#label = fileLabel;
    this.#sizeHint = sizeHint;
  }

  /** How many `\n` the text read so far holds before the piece `push` takes next. */
  get linesBeforeNext(): number {
    let n = this.#lf;
    const c = this.#carry;
    for (let k = c.indexOf("\n"); k !== -1; k = c.indexOf("\n", k + 1)) n++;
    return n;
  }

  /** Characters held back from the last piece (a record it ended inside). */
  get pending(): number {
    return this.#carry.length;
  }

  /** Reads the next piece of the text. */
  push(piece: string, last = false): void {
    if (this.#done) throw new Error("CsvReader: push after the last piece");
    let s = this.#carry === "" ? piece : this.#carry + piece;
    this.#carry = "";
    if (this.#first) {
      this.#first = false;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    if (s.length > 0) {
      const c = s.charCodeAt(s.length - 1);
      this.#endsWithBreak = c === LF || c === CR;
    }
    this.#read(s, last, hasLoneCr(s));
    if (last) this.#done = true;
  }

  /** The table read, once the last piece is in. */
  finish(): ParsedCsv {
    if (!this.#done) this.push("", true);
    const label = this.#label;
    if (this.#header === null) {
      throw new CsvFormatError(label, 1, "the file is empty; a header line is expected");
    }
    const width = this.#header.length;
    if (this.#wide !== null) {
      throw new CsvFormatError(
        label,
        this.#wide.line,
        `expected ${width} fields (as in the header), saw ${this.#wide.fields}`,
      );
    }
    // A writer ends every record with a line break. A last record cut short of the header's
    // width with none after it is where a copy stopped, not a row with blank cells: pandas would
    // pad it, and the report would count a row whose times and shapes are missing.
    if (this.#count > 0 && this.#lastFields < width && !this.#endsWithBreak) {
      throw new CsvFormatError(
        label,
        this.#lastLine,
        `the file ends inside this line, after ${this.#lastFields} of the header's ${width} ` +
          "fields and with no line break (the file may be truncated)",
      );
    }
    return new ParsedCsv(this.#header, this.#count, this.#store!.finish(this.#count));
  }

  /**
   * Reads the records of `s` into the columns; a record `s` ends inside (only a quoted field
   * can, since a piece ends at a line break) is kept for the next piece unless `last`.
   * `loneCr`: `s` holds a `\r` that is not part of a `\r\n`, so a lone `\r` ends a line too.
   */
  #read(s: string, last: boolean, loneCr: boolean): void {
    const n = s.length;
    const label = this.#label;
    const nextBreak = loneCr ? nextLineBreak : nextNewline;
    let header = this.#header;
    let store = this.#store;
    // The store's arrays of columns, read in the loop (their elements change, they do not).
    let codes = store?.codes ?? [];
    let entries = store?.entries ?? [];
    let lastCodes = store?.last ?? new Int32Array(0);
    let width = header === null ? 0 : header.length;
    let count = this.#count;
    let line = this.#line;
    let lf = this.#lf;
    const headerCells: string[] = [];
    let i = 0;
    let comma = s.indexOf(",", 0); // the next comma at or after i (native scans, not a char loop)
    while (i < n) {
      // One record, from i to the line break that ends it (outside quotes).
      const recordStart = i;
      const startLine = line;
      const startLf = lf;
      let fields = 0;
      let firstEmpty = false;
      if (store !== null && count === store.capacity) store.grow(count + 1);
      let lineEnd = nextBreak(s, i);
      let lineNext = afterBreak(s, lineEnd);
      while (true) {
        const c0 = s.charCodeAt(i);
        let empty: boolean;
        if (c0 === QUOTE) {
          const opened = line;
          let value = "";
          let at = i + 1;
          let close: number;
          while (true) {
            close = s.indexOf('"', at);
            if (close === -1) break;
            value += s.slice(at, close);
            if (s.charCodeAt(close + 1) === QUOTE) {
              value += '"';
              at = close + 2;
              continue;
            }
            break;
          }
          if (close === -1) {
            if (!last) {
              // The rest of the record is in the next piece: read it again from its start.
              this.#carry = s.slice(recordStart);
              this.#line = startLine;
              this.#lf = startLf;
              this.#count = count;
              return;
            }
            throw new CsvFormatError(
              label,
              opened,
              "a quoted field is never closed (the file may be truncated)",
            );
          }
          i = close + 1;
          if (value.includes("\r")) {
            for (let k = value.indexOf("\n"); k !== -1; k = value.indexOf("\n", k + 1)) lf++;
            value = value.replace(loneCr ? /\r\n?/g : /\r\n/g, "\n");
            for (let k = value.indexOf("\n"); k !== -1; k = value.indexOf("\n", k + 1)) line++;
          } else {
            for (let k = value.indexOf("\n"); k !== -1; k = value.indexOf("\n", k + 1)) {
              line++;
              lf++;
            }
          }
          if (i > lineEnd) {
            lineEnd = nextBreak(s, i);
            lineNext = afterBreak(s, lineEnd);
          }
          if (comma !== -1 && comma < i) comma = s.indexOf(",", i);
          // Text after the closing quote, up to the next delimiter, joins the field.
          const end = comma === -1 || comma > lineEnd ? lineEnd : comma;
          if (end > i) value += s.slice(i, end);
          i = end;
          if (header === null) headerCells.push(value);
          else if (fields < width) store!.text(fields, count, value);
          empty = value === "";
        } else if (c0 === COMMA || i === lineEnd) {
          if (header === null) headerCells.push("");
          empty = true; // an empty cell: its code is already EMPTY_CELL
        } else {
          let to = -1;
          if (header !== null && fields < width) {
            if ((c0 >= ZERO && c0 <= NINE) || c0 === MINUS) {
              // A plain integer (see NUMBER_CELL) is read as it is scanned, and so is its end.
              const negative = c0 === MINUS;
              const digitsFrom = negative ? i + 1 : i;
              let j = digitsFrom;
              let v = 0;
              while (j < lineEnd) {
                const d = s.charCodeAt(j) - ZERO;
                if (d < 0 || d > 9) break;
                v = v * 10 + d;
                j++;
              }
              const digits = j - digitsFrom;
              if (
                digits > 0 && digits <= 15 && (j === lineEnd || s.charCodeAt(j) === COMMA) &&
                // A leading zero only as "0" itself: "007" and "-0" are not what String() writes.
                (s.charCodeAt(digitsFrom) !== ZERO || (digits === 1 && !negative))
              ) {
                store!.number(fields, count, negative ? -v : v);
                to = j;
              }
            }
            if (to < 0) {
              // The column's last text again, compared in place: no search and no lookup.
              const code = lastCodes[fields];
              if (code !== 0) {
                const text = entries[fields][code];
                const e = i + text.length;
                if (
                  e <= lineEnd && (e === lineEnd || s.charCodeAt(e) === COMMA) &&
                  s.slice(i, e) === text
                ) {
                  codes[fields]![count] = code;
                  to = e;
                }
              }
            }
          }
          if (to < 0) {
            if (comma !== -1 && comma < i) comma = s.indexOf(",", i);
            to = comma === -1 || comma > lineEnd ? lineEnd : comma;
            if (header === null) headerCells.push(s.slice(i, to));
            else if (fields < width) store!.slice(fields, count, s, i, to);
          }
          i = to;
          empty = false;
        }
        if (fields++ === 0) firstEmpty = empty;
        if (i >= n) break;
        if (i === lineEnd) {
          if (s.charCodeAt(lineEnd) !== CR || s.charCodeAt(lineEnd + 1) === LF) lf++;
          i = lineNext;
          line++;
          break;
        }
        i++; // past the comma; another field follows (possibly empty)
        if (i === lineEnd || i >= n) {
          if (header === null) headerCells.push("");
          fields++;
          if (i < n) {
            if (s.charCodeAt(lineEnd) !== CR || s.charCodeAt(lineEnd + 1) === LF) lf++;
            i = lineNext;
            line++;
          }
          break;
        }
      }
      if (fields === 1 && firstEmpty) {
        headerCells.length = 0; // a blank line, skipped (before the header too, as pandas does)
        continue;
      }
      if (header === null) {
        header = this.#header = headerCells.map(ownCopy);
        width = header.length;
        store = this.#store = new ColumnStore(width, this.#rowsExpected(s, i, last));
        codes = store.codes;
        entries = store.entries;
        lastCodes = store.last;
        continue;
      }
      if (fields > width && this.#wide === null) this.#wide = { line: startLine, fields };
      count++;
      this.#lastLine = startLine;
      this.#lastFields = fields;
    }
    this.#count = count;
    this.#line = line;
    this.#lf = lf;
  }

  /**
   * How many rows to make room for, from the records after the header in this piece and the
   * size of the whole text: every record ends at a line break or at the end of the text, so a
   * text given whole has at most as many rows as line breaks left plus one.
   */
  #rowsExpected(s: string, from: number, last: boolean): number {
    let lines = 1;
    for (let k = s.indexOf("\n", from); k !== -1; k = s.indexOf("\n", k + 1)) lines++;
    const rest = s.length - from;
    if (last || this.#sizeHint <= s.length || rest <= 0) return lines;
    // A piece of a larger text: scale by the size, with some room to spare.
    return Math.ceil(lines * (this.#sizeHint / rest) * 1.05) + 16;
  }
}

/** The columns of a table as they are read: codes, numbers and each column's distinct texts. */
class ColumnStore {
  readonly width: number;
  capacity: number;
  /** Per column: its codes (null while every cell read is empty). */
  readonly codes: (CellCodes | null)[];
  /** Per column: the numbers of its NUMBER_CELL cells (null while it has none). */
  readonly numbers: (Int32Array | Float64Array | null)[];
  /** Per column: its distinct texts (`entries[c][code]`). */
  readonly entries: string[][];
  /** Per column: the code of its last text cell read in place (0 for none). */
  readonly last: Int32Array;
  /**
   * Per column: its texts by a cheap hash of a few of their characters (see `sampledHash`):
   * a code, or the codes sharing that hash. A lookup then hashes a few characters and compares
   * one slice, rather than hashing every character of a long cell.
   */
  #byHash: Map<number, number | number[]>[];

  constructor(width: number, capacity: number) {
    this.width = width;
    this.capacity = Math.max(capacity, 1);
    this.codes = new Array(width).fill(null);
    this.numbers = new Array(width).fill(null);
    this.entries = Array.from({ length: width }, () => ["", ""]);
    this.#byHash = Array.from({ length: width }, () => new Map());
    this.last = new Int32Array(width);
  }

  /** Room for at least `rows` rows. */
  grow(rows: number): void {
    const capacity = Math.max(rows, Math.ceil(this.capacity * 1.5));
    for (let c = 0; c < this.width; c++) {
      const codes = this.codes[c];
      if (codes !== null) this.codes[c] = resized(codes, capacity);
      const numbers = this.numbers[c];
      if (numbers !== null) this.numbers[c] = resized(numbers, capacity);
    }
    this.capacity = capacity;
  }

  /** Cell `(r, c)` is `text` (made for this cell, not a slice of a piece of the file). */
  text(c: number, r: number, text: string): void {
    if (text === "") return;
    this.#codesOf(c)[r] = this.#code(c, text, 0, text.length);
  }

  /** Cell `(r, c)` is `s[from, to)` (not empty). */
  slice(c: number, r: number, s: string, from: number, to: number): void {
    const code = this.#code(c, s, from, to);
    this.last[c] = code;
    this.#codesOf(c)[r] = code;
  }

  /** Cell `(r, c)` is the plain integer `v` (see {@link NUMBER_CELL}). */
  number(c: number, r: number, v: number): void {
    let numbers = this.numbers[c];
    if (numbers === null) {
      numbers = this.numbers[c] = (v | 0) === v
        ? new Int32Array(this.capacity)
        : new Float64Array(this.capacity);
    } else if ((v | 0) !== v && numbers instanceof Int32Array) {
      numbers = this.numbers[c] = Float64Array.from(numbers); // past int32: widened once
    }
    numbers[r] = v;
    this.#codesOf(c)[r] = NUMBER_CELL;
  }

  /** The columns, `rows` rows long; the index of texts is dropped. */
  finish(rows: number): CsvColumn[] {
    this.#byHash = [];
    let blank: Uint8Array | null = null;
    const columns: CsvColumn[] = [];
    for (let c = 0; c < this.width; c++) {
      const codes = this.codes[c] ?? (blank ??= new Uint8Array(Math.max(rows, 1)));
      columns.push({ codes, numbers: this.numbers[c], entries: this.entries[c] });
    }
    return columns;
  }

  #codesOf(c: number): CellCodes {
    return this.codes[c] ??= new Uint8Array(this.capacity);
  }

  /** The code of the text `s[from, to)` in column `c`, added if it is new. */
  #code(c: number, s: string, from: number, to: number): number {
    const entries = this.entries[c];
    const byHash = this.#byHash[c];
    const hash = sampledHash(s, from, to);
    const found = byHash.get(hash);
    let text: string | null = null;
    if (found !== undefined) {
      text = s.slice(from, to);
      if (typeof found === "number") {
        if (entries[found] === text) return found;
      } else {
        for (const code of found) if (entries[code] === text) return code;
      }
    }
    const code = entries.length;
    entries.push(ownCopy(text ?? s.slice(from, to)));
    if (found === undefined) byHash.set(hash, code);
    else if (typeof found === "number") byHash.set(hash, [found, code]);
    else found.push(code);
    const codes = this.#codesOf(c);
    if (code === 256 && codes instanceof Uint8Array) this.codes[c] = Uint16Array.from(codes);
    else if (code === 65536 && codes instanceof Uint16Array) {
      this.codes[c] = Uint32Array.from(codes);
    }
    return code;
  }
}

/**
 * A hash of `s[from, to)` from its length and at most 16 of its characters (its first and
 * last four, and eight spread between): texts that differ only between the samples share a
 * hash, and are told apart by comparing them whole.
 */
function sampledHash(s: string, from: number, to: number): number {
  const len = to - from;
  let h = len;
  if (len <= 16) {
    for (let k = from; k < to; k++) h = (Math.imul(h, 31) + s.charCodeAt(k)) | 0;
    return h;
  }
  for (let k = 0; k < 4; k++) {
    h = (Math.imul(h, 31) + s.charCodeAt(from + k)) | 0;
    h = (Math.imul(h, 31) + s.charCodeAt(to - 1 - k)) | 0;
  }
  const stride = len >> 3;
  for (let k = from + 4 + (stride >> 1), e = to - 4; k < e; k += stride) {
    h = (Math.imul(h, 31) + s.charCodeAt(k)) | 0;
  }
  return h;
}

/** `a` copied into a new array of the same kind, `length` long. */
function resized<T extends CellCodes | Int32Array | Float64Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a.subarray(0, Math.min(a.length, length)) as never);
  return b;
}

/**
 * A copy of `s` that holds no reference to a longer string: V8 makes a slice of 13 or more
 * characters a view into its parent, which would keep a whole piece of the file alive for as
 * long as the table holds one cell's text. Joining forces a new flat string to be made.
 */
function ownCopy(s: string): string {
  return s.length < 13 ? s : (" " + s).slice(1);
}

/** Where the line break at or after `from` starts (its \r when \r\n), or the text's length. */
function nextNewline(s: string, from: number): number {
  const k = s.indexOf("\n", from);
  if (k === -1) return s.length;
  return k > from && s.charCodeAt(k - 1) === CR ? k - 1 : k;
}

/** `nextNewline` in a text where a lone \r also ends a line. */
function nextLineBreak(s: string, from: number): number {
  const k = s.indexOf("\n", from);
  const r = s.indexOf("\r", from);
  if (r !== -1 && (k === -1 || r < k)) return r;
  return k === -1 ? s.length : k;
}

/** Just past the line break that starts at `at` (\r\n, \n or a lone \r). */
function afterBreak(s: string, at: number): number {
  return s.charCodeAt(at) === CR && s.charCodeAt(at + 1) === LF ? at + 2 : at + 1;
}

/** Whether a \r stands anywhere but just before a \n. */
function hasLoneCr(s: string): boolean {
  for (let k = s.indexOf("\r"); k !== -1; k = s.indexOf("\r", k + 1)) {
    if (s.charCodeAt(k + 1) !== 10) return true;
  }
  return false;
}
