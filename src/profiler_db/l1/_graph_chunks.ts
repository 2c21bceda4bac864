/**
 * Internal: the captured_graph table read a range of rowids at a time, for l1_peak's replay.
 * `node:sqlite` hands rows to JavaScript at a few microseconds each, and a graph's text to
 * `JSON.parse` at a few nanoseconds a character — together most of the first call on a large
 * capture. So SQLite hands over a range's texts as one buffer (each text followed by a NUL
 * byte, the driver's own end of text), with their ids and sizes as JSON, and `_graph_scan.ts`
 * reads each text's events in place. This thread and a worker (`../_db_worker.ts`) read
 * ranges side by side: the same module runs in both.
 *
 * A range this cannot read as the row-by-row reader would — an id JSON may not carry as the
 * driver hands it over (a REAL, a BLOB, an integer past 2^53), a buffer not the size its rows
 * add up to, any error — is `"rows"`: the caller then reads the table row by row (the reader
 * of record), as it does for a database not in UTF-8.
 *
 * @module
 */
import { scanGraph, scanned } from "./_graph_scan.ts";
import type { FileIdentity } from "../../kit/file_identity.ts";

/** One range's rows, in rowid order, as the replay reads them. */
export interface GraphChunk {
  /** Each row's operation id, as `Number` reads the stored value. */
  ids: Float64Array<ArrayBuffer>;
  /** Each row's characters of text, as JavaScript counts them. */
  chars: Float64Array<ArrayBuffer>;
  /** Each row's text: BLANK, LIST, NOT_A_LIST or INVALID. */
  verdicts: Uint8Array<ArrayBuffer>;
  /** Where each row's events end in `events` (each starts where the previous row's end). */
  ends: Uint32Array<ArrayBuffer>;
  /** The rows' events (`_l1_events.ts`), in order. */
  events: Float64Array<ArrayBuffer>;
}

/** A row whose text is blank (or NULL): no nodes, and nothing unreadable. */
export const BLANK = 0;
/** A row whose text is a JSON list: its events. */
export const LIST = 1;
/** A row whose text is JSON but not a list. */
export const NOT_A_LIST = 2;
/** A row whose text is not JSON. */
export const INVALID = 3;

/** Rowids `[from, to)`. */
export interface RowidRange {
  from: number;
  to: number;
}

/** Rowids per range: small enough that the two threads share the table evenly. */
export const RANGE_ROWS = 256;

/** How a table is read (tests make ranges small to exercise the worker on small captures). */
export interface GraphPlan {
  rangeRows: number;
  /** Below this many ranges, no worker: starting one costs more than it saves. */
  workerFrom: number;
  /** Bytes of text one query hands over at most. */
  maxQueryBytes: number;
}

/** Bytes of text one query hands over at most (a single larger text comes alone). */
export const MAX_QUERY_BYTES = 1 << 24;

/** The default plan. */
export const GRAPH_PLAN: GraphPlan = {
  rangeRows: RANGE_ROWS,
  workerFrom: 16,
  maxQueryBytes: MAX_QUERY_BYTES,
};

/** The queries reading a range (`?`, `?`: its rowids) at a rank (`rankClause`). */
export interface ChunkSql {
  /** The bytes of its texts. */
  bytes: string;
  /** Its rowids and the bytes of each text, to cut a range whose texts are too large. */
  sizes: string;
  /** Its rows: ids, sizes and texts, from one statement (so they agree). */
  rows: string;
}

/** The queries reading ranges of captured_graph at a rank (`rankClause`). */
export function chunkSql(rankClause: string): ChunkSql {
  const where = "FROM captured_graph WHERE rowid >= ? AND rowid < ? AND operation_id IS NOT " +
    `NULL${rankClause}`;
  const rowids = "json_group_array(rowid) AS rowids";
  const sizes = "json_group_array(octet_length(captured_graph)) AS sizes";
  return {
    bytes: `SELECT total(octet_length(captured_graph)) AS bytes ${where}`,
    sizes: `SELECT ${rowids}, ${sizes} ${where}`,
    rows: `SELECT json_group_array(operation_id) AS ids, ${sizes}, ` +
      "total(typeof(operation_id) IN ('real', 'blob')) AS odd, " +
      "CAST(group_concat(coalesce(CAST(captured_graph AS TEXT), ''), char(0)) || char(0) AS " +
      `BLOB) AS texts ${where}`,
  };
}

/** Runs one query and returns its first row (throws as SQLite does). */
export type GetRow = (sql: string, from: number, to: number) => Record<string, unknown> | undefined;

/** The most ranges a table is cut into (a sparse table's ranges are wider). */
const MAX_RANGES = 1 << 16;

/**
 * Ranges of `rows` rowids covering `lo..hi` (inclusive), or wider ones where that would be
 * more than MAX_RANGES.
 *
 * @example
 * ```ts
 * import { graphRanges } from "./_graph_chunks.ts";
 * const r = graphRanges(1, 600);
 * if (r.map((x) => `${x.from}-${x.to}`).join(" ") !== "1-257 257-513 513-601") throw new Error();
 * if (graphRanges(0, 2 ** 40).length > 1 << 16) throw new Error();
 * ```
 */
export function graphRanges(lo: number, hi: number, rows = RANGE_ROWS): RowidRange[] {
  const step = Math.max(rows, Math.ceil((hi - lo + 1) / MAX_RANGES));
  const out: RowidRange[] = [];
  for (let from = lo; from <= hi; from += step) {
    out.push({ from, to: Math.min(from + step, hi + 1) });
  }
  return out;
}

const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** The parts of `range` whose texts come in one query each, or null when unsure. */
function parts(
  get: GetRow,
  sql: ChunkSql,
  range: RowidRange,
  maxBytes: number,
): RowidRange[] | null {
  const bytes = get(sql.bytes, range.from, range.to)?.bytes;
  if (typeof bytes !== "number") return null;
  if (bytes <= maxBytes) return [range];
  const found = get(sql.sizes, range.from, range.to);
  const rowids = JSON.parse(String(found?.rowids ?? "[]")) as unknown[];
  const sizes = JSON.parse(String(found?.sizes ?? "[]")) as unknown[];
  const out: RowidRange[] = [];
  let sum = 0;
  for (let i = 0; i < rowids.length; i++) {
    const rowid = rowids[i];
    const size = sizes[i] ?? 0;
    if (!Number.isSafeInteger(rowid) || typeof size !== "number") return null;
    if (out.length === 0 || sum + size > maxBytes) {
      if (out.length > 0) out[out.length - 1].to = rowid as number;
      out.push({ from: rowid as number, to: range.to });
      sum = 0;
    }
    sum += size;
  }
  return out;
}

/**
 * A range's rows as the replay reads them, or `"rows"` when this reader cannot be sure to
 * read them as the row-by-row reader would. SQLite errors are `"rows"` too. Texts come at most
 * `maxBytes` at a time (a larger one alone).
 */
export function readChunk(
  get: GetRow,
  sql: ChunkSql,
  range: RowidRange,
  bankCount: number,
  maxBytes = MAX_QUERY_BYTES,
): GraphChunk | "rows" {
  const ids: number[] = [];
  const chars: number[] = [];
  const verdicts: number[] = [];
  const ends: number[] = [];
  const events: number[] = [];
  try {
    const cut = parts(get, sql, range, maxBytes);
    if (cut === null) return "rows";
    for (const part of cut) {
      const found = get(sql.rows, part.from, part.to);
      // A REAL id may come over rounded, a BLOB one read as JSON: the driver reads them.
      if (found?.odd !== 0) return "rows";
      const rawIds = JSON.parse(String(found?.ids ?? "[]")) as unknown[];
      const sizes = JSON.parse(String(found?.sizes ?? "[]")) as unknown[];
      const texts = found?.texts ?? new Uint8Array([0]);
      if (!(texts instanceof Uint8Array) || sizes.length !== rawIds.length) return "rows";
      let at = 0;
      for (let i = 0; i < rawIds.length; i++) {
        const id = rawIds[i];
        // An integer past 2^53, which the driver refuses, is left to the row-by-row reader.
        if (typeof id === "number" ? !Number.isSafeInteger(id) : typeof id !== "string") {
          return "rows";
        }
        const size = sizes[i] ?? 0;
        if (typeof size !== "number" || at + size >= texts.length || texts[at + size] !== 0) {
          return "rows";
        }
        const verdict = scanGraph(texts, at, bankCount, events);
        const end = scanned.end;
        ids.push(Number(id));
        chars.push(scanned.wide ? UTF8.decode(texts.subarray(at, end)).length : end - at);
        verdicts.push(
          verdict === "list"
            ? LIST
            : verdict === "not_a_list"
            ? NOT_A_LIST
            : end === at || UTF8.decode(texts.subarray(at, end)).trim() === ""
            ? BLANK
            : INVALID,
        );
        ends.push(events.length);
        at += size + 1;
      }
      if (at !== texts.length && !(rawIds.length === 0 && at === 0)) return "rows";
    }
  } catch {
    return "rows";
  }
  return {
    ids: Float64Array.from(ids),
    chars: Float64Array.from(chars),
    verdicts: Uint8Array.from(verdicts),
    ends: Uint32Array.from(ends),
    events: Float64Array.from(events),
  };
}

/** Who holds a range in the shared claims: nobody yet, this thread, or the worker. */
export const UNCLAIMED = 0;
export const CLAIMED_HERE = 1;
export const CLAIMED_BY_WORKER = 2;

/** What the worker is asked to read: each of `ranges`, in order, that it can claim. */
export interface GraphJob {
  kind: "graphs";
  path: string;
  sql: ChunkSql;
  ranges: RowidRange[];
  /** One Int32 per range: who holds it (shared with this thread). */
  claims: SharedArrayBuffer;
  bankCount: number;
  /** Characters after which the worker stops (the replay refuses past them anyway). */
  maxChars: number;
  maxQueryBytes: number;
  /** A query to run first, answered as these JSON columns (`columnsOf`), or null. */
  lastUses: { sql: string; columns: readonly string[] } | null;
}

/**
 * What the worker answers: its first query's columns, a range (null when it could not read
 * either), or that it is done.
 */
export type GraphAnswer =
  | { kind: "lastUses"; columns: unknown[][] | null; identity: FileIdentity }
  | { kind: "chunk"; index: number; chunk: GraphChunk | null; identity: FileIdentity }
  | { kind: "done" };
