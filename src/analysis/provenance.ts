/**
 * What one operation was called with and where it came from: its recorded arguments (each
 * value capped, since tensor reprs and configs run to many thousands of characters) and the
 * first stack trace recorded for it, told apart as recorded, absent, or present but
 * unreadable.
 *
 * @module
 */
import {
  andRank,
  type Frame,
  looksNative,
  parseFrames,
  type ProfilerDb,
  type RankScope,
  row,
  rows,
} from "../profiler_db/mod.ts";

/** Argument values longer than this many characters are cut. */
export const VALUE_CAP_CHARS = 500;

/** At most this many arguments are listed. */
export const MAX_ARGUMENTS = 100;

/** One recorded argument. */
export type Argument =
  | { name: string | null; value: string; truncated?: true; full_length?: number }
  | { name: string | null; value: null; recorded: false };

/** The listed arguments, in table order, with the count of all of them. */
export function argumentsOf(
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
): { count: number; listed: Argument[] } {
  const where = `WHERE operation_id = ?${andRank(pdb, scope, "operation_arguments")}`;
  const count = row<{ n: number }>(
    pdb,
    `SELECT COUNT(*) AS n FROM operation_arguments ${where}`,
    id,
  )?.n ?? 0;
  // SQLite counts length() and substr() in characters, so a 177,717-character value is never
  // read whole.
  const found = rows<{ name: unknown; head: string | null; full: number | null }>(
    pdb,
    `SELECT name, substr(CAST(value AS TEXT), 1, ${VALUE_CAP_CHARS}) AS head, ` +
      `length(CAST(value AS TEXT)) AS full FROM operation_arguments ${where} ` +
      `ORDER BY rowid LIMIT ${MAX_ARGUMENTS}`,
    id,
  );
  const listed = found.map((a): Argument => {
    const name = a.name === null ? null : String(a.name);
    if (a.head === null) return { name, value: null, recorded: false };
    const full = Number(a.full);
    return full > VALUE_CAP_CHARS
      ? { name, value: a.head, truncated: true, full_length: full }
      : { name, value: a.head };
  });
  return { count: Number(count), listed };
}

/** The trace of an operation, read as the operation details panel reads it. */
export type Trace =
  | { kind: "frames"; frames: Frame[] }
  | { kind: "none" }
  | { kind: "unreadable"; native: boolean };

/** The first recorded stack trace of an operation (NULL or blank text reads as none). */
export function traceOf(pdb: ProfilerDb, scope: RankScope, id: number): Trace {
  if (
    !pdb.schema.hasColumn("stack_traces", "operation_id") ||
    !pdb.schema.hasColumn("stack_traces", "stack_trace")
  ) return { kind: "none" };
  const found = row<{ stack_trace: unknown }>(
    pdb,
    `SELECT stack_trace FROM stack_traces WHERE operation_id = ?${
      andRank(pdb, scope, "stack_traces")
    } ORDER BY rowid LIMIT 1`,
    id,
  );
  const text = found?.stack_trace == null ? "" : String(found.stack_trace);
  if (text.trim() === "") return { kind: "none" };
  const frames = parseFrames(text);
  if (frames.length === 0) return { kind: "unreadable", native: looksNative(text) };
  return { kind: "frames", frames };
}
