/**
 * The performance CSV's text as a table of strings: a header and rows, cells exactly as
 * written (quotes removed). Real tt-metal cells carry bare `"` inside unquoted fields, so the
 * parser is told to let them through.
 *
 * @module
 */
import { parse } from "csv-parse/sync";

/** A CSV as its header and rows of cells. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

/** A CSV that cannot be parsed; the message names the file and the line. */
export class CsvFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CsvFormatError";
  }
}

/**
 * Parses CSV text. A leading BOM and CRLF line ends are accepted; rows shorter or longer than
 * the header are kept as they are.
 *
 * @example
 * ```ts
 * import { parseCsvTable } from "./csv_table.ts";
 * const t = parseCsvTable('OP CODE,ATTRIBUTES\r\nMatmul,{"a": 1}\n', "x.csv");
 * if (t.rows[0][1] !== '{"a": 1}' || t.header[0] !== "OP CODE") throw new Error();
 * ```
 */
export function parseCsvTable(text: string, fileLabel: string): CsvTable {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch (e) {
    const err = e as Error & { lines?: number };
    const where = err.lines !== undefined ? ` (line ${err.lines})` : "";
    throw new CsvFormatError(`${fileLabel}${where}: ${err.message}`);
  }
  if (records.length === 0) return { header: [], rows: [] };
  const [header, ...rows] = records;
  return { header: header.map((h) => h.trim()), rows };
}
