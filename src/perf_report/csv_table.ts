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
 * is an error, as it is for pandas.
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
 * @throws {CsvFormatError} for an empty text, an unterminated quote or a record wider than the header
 */
export function parseCsvTable(text: string, fileLabel: string): CsvTable {
  let s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // pandas ends a record at \r\n, \n or \r, even when a file mixes them. \r\n is read in
  // place (a copy of the text would cost more than the parse); a lone \r is made a \n first.
  if (hasLoneCr(s)) s = s.replace(/\r\n?/g, "\n");
  const records: string[][] = [];
  const scratch: string[] = [];
  const lines: number[] = [];
  const n = s.length;
  let i = 0;
  let line = 1;
  let comma = s.indexOf(",", 0); // the next comma at or after i (native scans, not a char loop)
  while (i < n) {
    // One record, from i to the newline that ends it (outside quotes).
    // Fields go into one reused scratch array; each record is then copied out at its size, so
    // a row costs one array, not the six a growing one would.
    let fields = 0;
    const startLine = line;
    let lineEnd = nextNewline(s, i);
    let lineNext = afterNewline(s, lineEnd);
    while (true) {
      let cell: string;
      if (s.charCodeAt(i) === QUOTE) {
        const opened = line;
        let value = "";
        let from = i + 1;
        while (true) {
          const close = s.indexOf('"', from);
          if (close === -1) {
            throw new CsvFormatError(
              fileLabel,
              opened,
              "a quoted field is never closed (the file may be truncated)",
            );
          }
          value += s.slice(from, close);
          if (s.charCodeAt(close + 1) === QUOTE) {
            value += '"';
            from = close + 2;
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
        cell = value;
      } else {
        if (comma !== -1 && comma < i) comma = s.indexOf(",", i);
        const end = comma === -1 || comma > lineEnd ? lineEnd : comma;
        cell = s.slice(i, end);
        i = end;
      }
      scratch[fields++] = cell;
      if (i >= n) break;
      if (i === lineEnd) {
        i = lineNext;
        line++;
        break;
      }
      i++; // past the comma; another field follows (possibly empty)
      if (i === lineEnd || i >= n) {
        scratch[fields++] = "";
        if (i < n) {
          i = lineNext;
          line++;
        }
        break;
      }
    }
    if (fields === 1 && scratch[0] === "") continue; // a blank line
    records.push(scratch.slice(0, fields));
    lines.push(startLine);
  }
  if (records.length === 0) {
    throw new CsvFormatError(fileLabel, 1, "the file is empty; a header line is expected");
  }
  const header = records[0];
  const rows = records.slice(1);
  for (let r = 0; r < rows.length; r++) {
    const record = rows[r];
    if (record.length > header.length) {
      throw new CsvFormatError(
        fileLabel,
        lines[r + 1],
        `expected ${header.length} fields (as in the header), saw ${record.length}`,
      );
    }
    while (record.length < header.length) record.push("");
  }
  return { header, rows };
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
