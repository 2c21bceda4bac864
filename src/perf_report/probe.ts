/**
 * The performance report's `ops_perf_results*.csv`: which one a directory's tools read (the
 * newest), and its text parsed into a table — or, when it cannot be reported on, why
 * (empty, no data rows, missing columns, not UTF-8, unreadable).
 *
 * @module
 */
import { type FileIdentity, fromInfo } from "../kit/file_identity.ts";
import { FileTooLarge, mib, type OpenedFile, openReportFile } from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";
import type { Progress } from "../kit/progress.ts";
import type { ReportFileKind } from "../kit/report_kind.ts";
import { CsvReader, type CsvTable, type ParsedCsv } from "./csv_table.ts";
import { missingReportableColumns } from "./columns.ts";

/** Names the performance CSV may have: `ops_perf_results.csv` or `ops_perf_results_<x>.csv`. */
export const OPS_CSV_PATTERN = /^ops_perf_results(_.*)?\.csv$/;

/** One candidate CSV in a performance directory. */
export interface OpsCsvFile {
  name: string;
  path: string;
  identity: FileIdentity;
}

/**
 * The largest performance CSV read: its parsed table and report take about three times its
 * size, and V8 holds no string past ~512 MiB, so a bigger file is refused with its size named.
 */
export const MAX_PERFORMANCE_CSV_BYTES = 256 << 20;

/**
 * Every candidate in `dir`, newest first (modification time, then name). Only stats are made:
 * a FIFO or device under a CSV's name is a candidate, refused by name when it is read.
 */
export async function listOpsCsvs(dir: string): Promise<OpsCsvFile[]> {
  const found: OpsCsvFile[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!OPS_CSV_PATTERN.test(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch {
      continue; // a dangling symlink is no candidate
    }
    if (!info.isDirectory) found.push({ name: entry.name, path, identity: fromInfo(path, info) });
  }
  return found.sort((a, b) =>
    (b.identity.mtimeMs ?? 0) - (a.identity.mtimeMs ?? 0) ||
    (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)
  );
}

/** The CSV the performance tools read from `dir`, or `null` when it has none. */
export async function chooseOpsCsv(dir: string): Promise<OpsCsvFile | null> {
  return (await listOpsCsvs(dir))[0] ?? null;
}

/**
 * The performance CSV as a kind of report file: the newest of a performance directory's, read
 * whole and parsed; the inventory keeps the identity of the bytes read (`csvIdentity`) beside
 * the parse, which a load may leave until a tool asks (`session/load.ts`).
 */
export const OPS_CSV_FILE = {
  key: "performance_csv",
  readBy: "tools",
  source: "perf_report",
  side: "performance",
  name: "ops_perf_results*.csv",
  cliName: "ops_perf_results_*.csv",
  title: "the performance CSV",
  called: null,
  what: "tt-perf-report's input: one row per device operation, with its device times, host " +
    "start and signposts, written by tt-metal's ops report.",
  capture: "run the workload under tt-metal's tracy wrapper with its ops report " +
    "(`python -m tracy -r -m <command>`), which writes it to generated/profiler/reports/<date>/",
  beside: [],
  field: "csvIdentity",
  newestWins: true,
  choose: chooseOpsCsv,
  probe: (opened, how) => readOpenedCsv(opened, how.name, how.progress),
  unusable: (identity, problem) => ({ ok: false, identity, problem }),
  identity: (kept) => kept,
} as const satisfies ReportFileKind<OpsCsvRead, FileIdentity>;

/** A parsed CSV, or why it cannot be reported on. */
export type OpsCsvRead =
  | { ok: true; table: CsvTable; identity: FileIdentity }
  | { ok: false; problem: string; identity: FileIdentity };

/**
 * Opens, reads and parses `file` (outside `roots`, refused). The identity returned is the one
 * of the bytes actually read, so a rewrite between choosing and reading is caught by the next
 * staleness check.
 */
export async function readOpsCsv(file: OpsCsvFile, roots = Roots.any()): Promise<OpsCsvRead> {
  const outcome = await openReportFile(
    file.path,
    file.name,
    roots,
    `performance_path's ${file.name}`,
  );
  if (outcome.kind === "missing") {
    return { ok: false, identity: file.identity, problem: `${file.name} no longer exists` };
  }
  if (outcome.kind === "unusable") {
    return { ok: false, identity: outcome.identity ?? file.identity, problem: outcome.problem };
  }
  try {
    return await readOpenedCsv(outcome.opened, file.name);
  } finally {
    outcome.opened.file.close();
  }
}

/**
 * A parse of the CSV open in `opened` (which stays open), or why it cannot be reported on;
 * `progress` hears its bytes as they are read. The file is read, decoded and parsed a piece
 * at a time (see {@link CsvPieces}), so its text is never held whole.
 */
export async function readOpenedCsv(
  opened: OpenedFile,
  name: string,
  progress?: Progress,
): Promise<OpsCsvRead> {
  const identity = opened.identity;
  const pieces = new CsvPieces(name, identity.size);
  try {
    pieces.start();
    while (true) {
      const n = await opened.file.read(pieces.room());
      if (n === null) break;
      pieces.took(n);
      progress?.report(
        pieces.total,
        identity.size > 0 ? identity.size : null,
        `bytes of ${name} read`,
      );
    }
  } catch (e) {
    return { ok: false, identity, problem: readProblem(e, name) };
  }
  return pieces.end(identity);
}

/**
 * `readOpenedCsv` without awaiting, for a CSV parsed on a tool's first need: the read is one
 * synchronous step, so it reports no progress.
 */
export function readOpenedCsvSync(opened: OpenedFile, name: string): OpsCsvRead {
  const identity = opened.identity;
  const pieces = new CsvPieces(name, identity.size);
  try {
    pieces.start();
    while (true) {
      const n = opened.file.readSync(pieces.room());
      if (n === null) break;
      pieces.took(n);
    }
  } catch (e) {
    return { ok: false, identity, problem: readProblem(e, name) };
  }
  return pieces.end(identity);
}

/** Why the CSV's bytes could not be read. */
function readProblem(e: unknown, name: string): string {
  return e instanceof FileTooLarge
    ? `${e.message} (at most ${mib(MAX_PERFORMANCE_CSV_BYTES)}: split the capture, or ` +
      "report on a range of it with tt-perf-report itself)"
    : `${name} cannot be read: ${(e as Error).message}`;
}

/** Bytes decoded and parsed at a time. */
export const CSV_PIECE_BYTES = 1 << 20;

/**
 * The performance CSV's bytes as they are read: cut after the last line break read, each
 * piece decoded (UTF-8, checked) and handed to the parser, so that only a piece of the bytes
 * and of the text is held at a time. What is refused, and in which order, is what reading the
 * whole file first would refuse: more than the cap, not UTF-8, empty, not CSV.
 */
export class CsvPieces {
  readonly #name: string;
  readonly #size: number;
  readonly #pieceBytes: number;
  #buf: Uint8Array;
  #used = 0;
  /** Bytes read so far. */
  total = 0;
  readonly #parser: CsvReader;
  #first = true;
  /** Whether a character other than whitespace has been read (`text.trim()` is not empty). */
  #anyText = false;
  /** The first piece that is not UTF-8: the line of its first invalid byte. */
  #invalidLine: number | null = null;
  #parseError: Error | null = null;
  /** `\n` read so far, once the parser has stopped at an error. */
  #newlines = 0;

  /** `size`: the file's size as stat saw it (it sizes the buffers; the cap is checked). */
  constructor(name: string, size: number, pieceBytes = CSV_PIECE_BYTES) {
    this.#name = name;
    this.#size = size;
    this.#pieceBytes = pieceBytes;
    this.#buf = new Uint8Array(Math.max(1, Math.min(pieceBytes, size + 1)));
    this.#parser = new CsvReader(name, size);
  }

  /** Refuses a file whose size is past the cap before anything is read. */
  start(): void {
    if (this.#size > MAX_PERFORMANCE_CSV_BYTES) {
      throw tooLarge(this.#name, this.#size);
    }
  }

  /** Where the next read goes (the buffer grown when a line is longer than it). */
  room(): Uint8Array {
    if (this.#used === this.#buf.length) {
      const bigger = new Uint8Array(this.#buf.length * 2);
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    return this.#buf.subarray(this.#used);
  }

  /** `n` more bytes were read into `room()`; a piece is read once enough have come. */
  took(n: number): void {
    this.#used += n;
    this.total += n;
    if (this.total > MAX_PERFORMANCE_CSV_BYTES) throw tooLarge(this.#name, null);
    // A record still open from the last piece is read again with the next: take at least as
    // many bytes as it holds, so a long record is read a bounded number of times.
    const want = Math.max(this.#pieceBytes, this.#parser.pending);
    if (this.#used >= want) this.#piece(false);
  }

  /** The parse, or why the file cannot be reported on, once it has ended. */
  end(identity: FileIdentity): OpsCsvRead {
    this.#piece(true);
    const name = this.#name;
    const problem = (p: string): OpsCsvRead => ({ ok: false, identity, problem: `${name} ${p}` });
    if (this.total === 0) return problem("is empty");
    if (this.#invalidLine !== null) {
      return problem(`is not UTF-8 text (the first invalid byte is on line ${this.#invalidLine})`);
    }
    if (!this.#anyText) return problem("is empty");
    let table: ParsedCsv;
    try {
      if (this.#parseError !== null) throw this.#parseError;
      table = this.#parser.finish();
    } catch (e) {
      return problem(`cannot be parsed as CSV: ${(e as Error).message}`);
    }
    const missing = missingReportableColumns(table.header);
    if (missing.length > 0) return problem(`is missing columns: ${missing.join(", ")}`);
    if (table.length === 0) return problem("has no data rows (only a header)");
    return { ok: true, table, identity };
  }

  /** Decodes and parses the bytes up to the last line break (all of them when `last`). */
  #piece(last: boolean): void {
    if (this.#invalidLine !== null) {
      this.#used = 0; // past an invalid byte only the cap is still checked
      return;
    }
    const cut = last ? this.#used : afterLastBreak(this.#buf, this.#used);
    if (cut === 0 && !last) return; // no line break yet: read on
    const bytes = this.#buf.subarray(0, cut);
    const first = this.#first;
    this.#first = false;
    const text = decodeUtf8(bytes, !first);
    const before = this.#parseError === null ? this.#parser.linesBeforeNext : this.#newlines;
    if (text === null) {
      this.#invalidLine = before + lineOfInvalidByte(bytes);
      this.#used = 0;
      return;
    }
    if (!this.#anyText && /\S/.test(text)) this.#anyText = true;
    if (this.#parseError === null) {
      try {
        this.#parser.push(text, last);
      } catch (e) {
        this.#parseError = e as Error;
        this.#newlines = before + newlinesIn(text);
      }
    } else this.#newlines += newlinesIn(text);
    this.#buf.copyWithin(0, cut, this.#used);
    this.#used -= cut;
  }
}

/**
 * How many bytes of `buf[0, used)` end just after a line break: after the last `\n`, or, in a
 * piece without one, after the last `\r` before the final byte (a lone `\r`, since no `\n`
 * follows it); 0 when there is none. A piece so cut never splits a UTF-8 sequence or a `\r\n`.
 */
function afterLastBreak(buf: Uint8Array, used: number): number {
  if (used === 0) return 0;
  const lf = buf.lastIndexOf(0x0a, used - 1);
  if (lf !== -1) return lf + 1;
  const cr = used < 2 ? -1 : buf.lastIndexOf(0x0d, used - 2);
  return cr === -1 ? 0 : cr + 1;
}

/** The number of `\n` in `s`. */
function newlinesIn(s: string): number {
  let n = 0;
  for (let k = s.indexOf("\n"); k !== -1; k = s.indexOf("\n", k + 1)) n++;
  return n;
}

/** The refusal of a file past the cap, as `readCapped` words it. */
function tooLarge(name: string, size: number | null): FileTooLarge {
  const cap = MAX_PERFORMANCE_CSV_BYTES;
  return new FileTooLarge(
    `${name} is ${size === null ? "more than" : `${mib(size)} (${size} bytes),`} ${
      size === null ? mib(cap) : `more than the ${mib(cap)}`
    } this server reads of it; nothing of it was used`,
  );
}

/**
 * The text of UTF-8 `bytes` (a leading BOM dropped unless `keepBom`), or null when they are
 * not UTF-8. The replacing decoder is the fast one (a 2.7 MB CSV: ~2 ms against ~7 ms for the
 * fatal one), and only where its text holds U+FFFD — a replaced invalid byte, or a U+FFFD the
 * file spells out — does the fatal one decide.
 *
 * @example
 * ```ts
 * import { decodeUtf8 } from "./probe.ts";
 * if (decodeUtf8(new Uint8Array([0x61, 0xef, 0xbf, 0xbd])) !== "a\uFFFD") throw new Error();
 * if (decodeUtf8(new Uint8Array([0x61, 0xff])) !== null) throw new Error();
 * ```
 */
export function decodeUtf8(bytes: Uint8Array, keepBom = false): string | null {
  const text = (keepBom ? KEEP_BOM : DROP_BOM).decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: keepBom }).decode(bytes);
  } catch {
    return null;
  }
}

const DROP_BOM = new TextDecoder();
const KEEP_BOM = new TextDecoder("utf-8", { ignoreBOM: true });

/** The 1-based line holding the first byte that is not valid UTF-8. */
export function lineOfInvalidByte(bytes: Uint8Array): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let line = 1;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    try {
      decoder.decode(bytes.subarray(start, end));
    } catch {
      return line;
    }
    line++;
    start = end + 1;
  }
  return line;
}
