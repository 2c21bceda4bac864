/**
 * Parsing an `ops_perf_results*.csv` text into a plain table of strings.
 *
 * The table keeps every cell as text; pandas-style typing happens later (see `_frame.ts`).
 * Row `i` of the table is pandas row `i`, so its tt-perf-report ID is `i + 2`.
 *
 * The scanner is our own. The npm parsers cost too much of a cold call: csv-parse took
 * 150–270 ms on the largest real capture (2.7 MB) and papaparse, though it parses in ~20 ms,
 * is CommonJS and pulls in Deno's Node compatibility layer, 30–40 ms of every start
 * (measured 2026-11-29; bench/RESULTS.md). This one parses the same file in ~20 ms and loads
 * nothing.
 * @module
 */

/** A CSV as text cells: the header line and the data records (blank lines skipped). */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

/**
 * A CSV as `parseCsvTable` reads it: every cell located in the text, and a string made only
 * for a cell that is read. A report reads a few dozen of a hundred columns, and most of those
 * as numbers parsed in place (`_frame.ts`), so the cells of a 2.7 MB file are not all made
 * into strings (and garbage) on every load. `rows` makes them all, once, for readers that
 * want records.
 */
export class ParsedCsv implements CsvTable {
  readonly header: string[];
  /** Data rows. */
  readonly length: number;
  /** Fields per row (the header's). */
  readonly width: number;
  /** The text the cells are in. */
  readonly text: string;
  /**
   * Where cell `(r, c)` starts (`r × width + c`), or, below 0, `-(k + 1)` for a cell whose
   * text is `decoded[k]` (a quoted field: its quotes removed and doubled quotes undone).
   */
  readonly starts: Int32Array;
  /** Where each cell ends (exclusive). */
  readonly ends: Int32Array;
  readonly #decoded: string[];
  #rows: string[][] | null = null;

  constructor(
    header: string[],
    text: string,
    cells: { length: number; starts: Int32Array; ends: Int32Array; decoded: string[] },
  ) {
    this.header = header;
    this.width = header.length;
    this.text = text;
    this.length = cells.length;
    this.starts = cells.starts;
    this.ends = cells.ends;
    this.#decoded = cells.decoded;
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
    const starts = new Int32Array(table.rows.length * width);
    const ends = new Int32Array(table.rows.length * width);
    const decoded: string[] = [];
    table.rows.forEach((record, r) => {
      for (let c = 0; c < width && c < record.length; c++) {
        starts[r * width + c] = -(decoded.push(record[c]));
      }
    });
    return new ParsedCsv(table.header, "", {
      length: table.rows.length,
      starts,
      ends,
      decoded,
    });
  }

  /** The text of cell `(r, c)` ("" past the header's width or the last row). */
  cell(r: number, c: number): string {
    if (c >= this.width || c < 0 || r >= this.length || r < 0) return "";
    const k = r * this.width + c;
    const from = this.starts[k];
    return from < 0 ? this.#decoded[-from - 1] : this.text.slice(from, this.ends[k]);
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

const CR = 13;
const QUOTE = 0x22;

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
  let s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // pandas ends a record at \r\n, \n or \r, even when a file mixes them. \r\n is read in
  // place (a copy of the text would cost more than the parse); a lone \r is made a \n first.
  if (hasLoneCr(s)) s = s.replace(/\r\n?/g, "\n");
  const n = s.length;
  // The header is read as strings; then each record's cells go into its slot of the offset
  // arrays, which a blank line leaves to the next record.
  let header: string[] | null = null;
  let width = 0;
  let starts = new Int32Array(0);
  let ends = new Int32Array(0);
  const decoded: string[] = [];
  let count = 0;
  let wide: { line: number; fields: number } | null = null;
  // The last record's first line and field count (no object per record: this loop is hot).
  let lastLine = 0;
  let lastFields = 0;
  const headerCells: string[] = [];
  let i = 0;
  let line = 1;
  let comma = s.indexOf(",", 0); // the next comma at or after i (native scans, not a char loop)
  while (i < n) {
    // One record, from i to the newline that ends it (outside quotes).
    let fields = 0;
    let firstEmpty = false;
    const startLine = line;
    const slot = count * width;
    let lineEnd = nextNewline(s, i);
    let lineNext = afterNewline(s, lineEnd);
    while (true) {
      let from = i;
      let to: number;
      let value: string | null = null;
      if (s.charCodeAt(i) === QUOTE) {
        const opened = line;
        value = "";
        let at = i + 1;
        while (true) {
          const close = s.indexOf('"', at);
          if (close === -1) {
            throw new CsvFormatError(
              fileLabel,
              opened,
              "a quoted field is never closed (the file may be truncated)",
            );
          }
          value += s.slice(at, close);
          if (s.charCodeAt(close + 1) === QUOTE) {
            value += '"';
            at = close + 2;
            continue;
          }
          i = close + 1;
          break;
        }
        if (value.includes("\r")) value = value.replace(/\r\n/g, "\n");
        for (let k = value.indexOf("\n"); k !== -1; k = value.indexOf("\n", k + 1)) line++;
        if (i > lineEnd) {
          lineEnd = nextNewline(s, i);
          lineNext = afterNewline(s, lineEnd);
        }
        if (comma !== -1 && comma < i) comma = s.indexOf(",", i);
        // Text after the closing quote, up to the next delimiter, joins the field.
        const end = comma === -1 || comma > lineEnd ? lineEnd : comma;
        if (end > i) value += s.slice(i, end);
        i = end;
        from = to = 0;
      } else {
        if (comma !== -1 && comma < i) comma = s.indexOf(",", i);
        to = comma === -1 || comma > lineEnd ? lineEnd : comma;
        i = to;
      }
      if (header === null) headerCells.push(value ?? s.slice(from, to));
      else if (fields < width) {
        if (value !== null) starts[slot + fields] = -(decoded.push(value));
        else {
          starts[slot + fields] = from;
          ends[slot + fields] = to;
        }
      }
      if (fields++ === 0) firstEmpty = value === null ? from === to : value === "";
      if (i >= n) break;
      if (i === lineEnd) {
        i = lineNext;
        line++;
        break;
      }
      i++; // past the comma; another field follows (possibly empty)
      if (i === lineEnd || i >= n) {
        if (header === null) headerCells.push("");
        else if (fields < width) starts[slot + fields] = ends[slot + fields] = 0;
        fields++;
        if (i < n) {
          i = lineNext;
          line++;
        }
        break;
      }
    }
    if (fields === 1 && firstEmpty) continue; // a blank line
    if (header === null) {
      header = headerCells;
      width = header.length;
      // Every record ends at a line break or at the end of the text, so there are at most as
      // many rows as line breaks left plus one: the offsets are made once, at that size.
      let lines = 1;
      for (let k = s.indexOf("\n", i); k !== -1; k = s.indexOf("\n", k + 1)) lines++;
      starts = new Int32Array(lines * width);
      ends = new Int32Array(lines * width);
      continue;
    }
    if (fields > width && wide === null) wide = { line: startLine, fields };
    for (let f = fields; f < width; f++) starts[slot + f] = ends[slot + f] = 0;
    count++;
    lastLine = startLine;
    lastFields = fields;
  }
  if (header === null) {
    throw new CsvFormatError(fileLabel, 1, "the file is empty; a header line is expected");
  }
  if (wide !== null) {
    throw new CsvFormatError(
      fileLabel,
      wide.line,
      `expected ${width} fields (as in the header), saw ${wide.fields}`,
    );
  }
  // A writer ends every record with a line break. A last record cut short of the header's
  // width with none after it is where a copy stopped, not a row with blank cells: pandas would
  // pad it, and the report would count a row whose times and shapes are missing.
  if (count > 0 && lastFields < width && s.charCodeAt(n - 1) !== 10) {
    throw new CsvFormatError(
      fileLabel,
      lastLine,
      `the file ends inside this line, after ${lastFields} of the header's ${width} fields ` +
        "and with no line break (the file may be truncated)",
    );
  }
  return new ParsedCsv(header, s, { length: count, starts, ends, decoded });
}

/** Where the line break at or after `from` starts (its \r when \r\n), or the text's length. */
function nextNewline(s: string, from: number): number {
  const k = s.indexOf("\n", from);
  if (k === -1) return s.length;
  return k > from && s.charCodeAt(k - 1) === CR ? k - 1 : k;
}

/** Just past the line break that starts at `at`. */
function afterNewline(s: string, at: number): number {
  return s.charCodeAt(at) === CR ? at + 2 : at + 1;
}

/** Whether a \r stands anywhere but just before a \n. */
function hasLoneCr(s: string): boolean {
  for (let k = s.indexOf("\r"); k !== -1; k = s.indexOf("\r", k + 1)) {
    if (s.charCodeAt(k + 1) !== 10) return true;
  }
  return false;
}
