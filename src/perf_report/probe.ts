/**
 * The performance report's `ops_perf_results*.csv`: which one a directory's tools read (the
 * newest), and its text parsed into a table — or, when it cannot be reported on, why
 * (empty, no data rows, missing columns, not UTF-8, unreadable).
 *
 * @module
 */
import { type FileIdentity, fromInfo } from "../kit/file_identity.ts";
import {
  FileTooLarge,
  mib,
  type OpenedFile,
  openReportFile,
  readCapped,
  readCappedSync,
} from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";
import type { Progress } from "../kit/progress.ts";
import type { ReportFileKind } from "../kit/report_kind.ts";
import { type CsvTable, parseCsvTable, type ParsedCsv } from "./csv_table.ts";
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
 * `progress` hears its bytes as they are read (the parse after them is one synchronous step).
 */
export async function readOpenedCsv(
  opened: OpenedFile,
  name: string,
  progress?: Progress,
): Promise<OpsCsvRead> {
  const identity = opened.identity;
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(
      opened.file,
      MAX_PERFORMANCE_CSV_BYTES,
      name,
      identity.size,
      progress,
    );
  } catch (e) {
    return { ok: false, identity, problem: readProblem(e, name) };
  }
  return parseOpsCsv(bytes, name, identity);
}

/**
 * `readOpenedCsv` without awaiting, for a CSV parsed on a tool's first need: the read is one
 * synchronous step, so it reports no progress.
 */
export function readOpenedCsvSync(opened: OpenedFile, name: string): OpsCsvRead {
  const identity = opened.identity;
  let bytes: Uint8Array;
  try {
    bytes = readCappedSync(opened.file, MAX_PERFORMANCE_CSV_BYTES, name, identity.size);
  } catch (e) {
    return { ok: false, identity, problem: readProblem(e, name) };
  }
  return parseOpsCsv(bytes, name, identity);
}

/** Why the CSV's bytes could not be read. */
function readProblem(e: unknown, name: string): string {
  return e instanceof FileTooLarge
    ? `${e.message} (at most ${mib(MAX_PERFORMANCE_CSV_BYTES)}: split the capture, or ` +
      "report on a range of it with tt-perf-report itself)"
    : `${name} cannot be read: ${(e as Error).message}`;
}

/** The CSV's bytes parsed, or why they cannot be reported on. */
function parseOpsCsv(bytes: Uint8Array, name: string, identity: FileIdentity): OpsCsvRead {
  const problem = (p: string): OpsCsvRead => ({
    ok: false,
    identity,
    problem: `${name} ${p}`,
  });
  if (bytes.length === 0) return problem("is empty");
  const text = decodeUtf8(bytes);
  if (text === null) {
    return problem(
      `is not UTF-8 text (the first invalid byte is on line ${lineOfInvalidByte(bytes)})`,
    );
  }
  if (text.trim().length === 0) return problem("is empty");
  let table: ParsedCsv;
  try {
    table = parseCsvTable(text, name);
  } catch (e) {
    return problem(`cannot be parsed as CSV: ${(e as Error).message}`);
  }
  const missing = missingReportableColumns(table.header);
  if (missing.length > 0) return problem(`is missing columns: ${missing.join(", ")}`);
  if (table.length === 0) return problem("has no data rows (only a header)");
  return { ok: true, table, identity };
}

/**
 * The text of UTF-8 `bytes` (a leading BOM dropped), or null when they are not UTF-8. The
 * replacing decoder is the fast one (a 2.7 MB CSV: ~2 ms against ~7 ms for the fatal one), and
 * only where its text holds U+FFFD — a replaced invalid byte, or a U+FFFD the file spells out —
 * does the fatal one decide.
 *
 * @example
 * ```ts
 * import { decodeUtf8 } from "./probe.ts";
 * if (decodeUtf8(new Uint8Array([0x61, 0xef, 0xbf, 0xbd])) !== "a\uFFFD") throw new Error();
 * if (decodeUtf8(new Uint8Array([0x61, 0xff])) !== null) throw new Error();
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  const text = new TextDecoder().decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

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
