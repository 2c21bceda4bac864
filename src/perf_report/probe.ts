/**
 * The performance report's `ops_perf_results*.csv`: which one a directory's tools read (the
 * newest), and its text parsed into a table — or, when it cannot be reported on, why
 * (empty, no data rows, missing columns, not UTF-8, unreadable).
 *
 * @module
 */
import { type FileIdentity, fromInfo } from "../kit/file_identity.ts";
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

/** Every candidate in `dir`, newest first (modification time, then name). */
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
    if (info.isFile) found.push({ name: entry.name, path, identity: fromInfo(path, info) });
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

/** A parsed CSV, or why it cannot be reported on. */
export type OpsCsvRead =
  | { ok: true; table: CsvTable; identity: FileIdentity }
  | { ok: false; problem: string; identity: FileIdentity };

/**
 * Reads and parses `file`. The identity returned is the one of the bytes actually read, so a
 * rewrite between choosing and reading is caught by the next staleness check.
 */
export async function readOpsCsv(file: OpsCsvFile): Promise<OpsCsvRead> {
  let bytes: Uint8Array;
  let identity = file.identity;
  try {
    using handle = await Deno.open(file.path, { read: true });
    identity = fromInfo(file.path, await handle.stat());
    bytes = await readAll(handle, identity.size);
  } catch (e) {
    return { ok: false, identity, problem: `${file.name} cannot be read: ${(e as Error).message}` };
  }
  const problem = (p: string): OpsCsvRead => ({
    ok: false,
    identity,
    problem: `${file.name} ${p}`,
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
    table = parseCsvTable(text, file.name);
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

async function readAll(handle: Deno.FsFile, sizeHint: number): Promise<Uint8Array> {
  // One byte past the size: the read that finds the end then has room, and the buffer is not
  // doubled (and copied) only to learn that nothing more is coming.
  let buf = new Uint8Array(Math.max(sizeHint + 1, 64 * 1024));
  let used = 0;
  while (true) {
    if (used === buf.length) {
      const bigger = new Uint8Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    const n = await handle.read(buf.subarray(used));
    if (n === null) break;
    used += n;
  }
  return buf.subarray(0, used);
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
