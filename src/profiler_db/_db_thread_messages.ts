/**
 * Internal: the messages between this thread and a database's own thread
 * (`_db_thread_worker.ts`), in a module of their own so that neither side imports the other.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { receiveMessageOnPort } from "node:worker_threads";

/** What the thread is started with: the database's bytes (transferred), a port and flags. */
export interface Opening {
  image: ArrayBuffer;
  port: MessagePort;
  /**
   * An Int32Array's buffer: at `ANSWERED` the number of the last request answered, at `ASKED`
   * the number of the last one sent.
   */
  flags: SharedArrayBuffer;
  /** Run once the database is open. */
  pragmas: readonly string[];
}

/** Where in `Opening.flags` the last request answered is numbered. */
export const ANSWERED = 0;
/** Where in `Opening.flags` the last request sent is numbered. */
export const ASKED = 1;

/** What every request carries: its number, and iterations let go since the last one. */
interface Numbered {
  seq: number;
  dropped?: number[];
}

/** One request, answered by one `Answer`. A statement is named by its SQL. */
export type Request =
  & Numbered
  & (
    | { op: "prepare"; sql: string }
    | { op: "exec"; sql: string }
    | { op: "all" | "get"; sql: string; bigInts: boolean; params: SQLInputValue[] }
    | {
      op: "iterate";
      sql: string;
      iterator: number;
      bigInts: boolean;
      params: SQLInputValue[];
      rows: number;
    }
    | { op: "next"; iterator: number; rows: number }
    | { op: "end"; iterator: number }
  );

/** Rows of an iteration: the next ones, whether they are the last, and a failure after them. */
export interface Batch<R = unknown[]> {
  rows: R;
  done: boolean;
  error?: Failure;
}

/** A failure: its message, and the codes `node:sqlite` adds to it. */
export interface Failure {
  seq: number;
  ok: false;
  message: string;
  code?: string;
  errcode?: number;
  errstr?: string;
}

/** The answer to request `seq` (0 for the opening): its value, or its failure. */
export type Answer = { seq: number; ok: true; value: unknown } | Failure;

/**
 * `value` (a row, rows, a batch, or parameters) with every blob (`Uint8Array`) turned into an
 * `ArrayBuffer` of its own (a copy, with `copy`), and those buffers, to move rather than copy: a port read
 * synchronously takes a typed array at a fraction of the speed of a buffer (4 MB: 250 ms
 * against 1 ms moved). No value SQLite gives or takes is an `ArrayBuffer`, so `withBlobs`
 * turns each back.
 */
export function withBuffers(
  value: unknown,
  { copy }: { copy: boolean },
): { value: unknown; moved: ArrayBuffer[] } {
  const moved: ArrayBuffer[] = [];
  const visit = (v: unknown, depth: number): unknown => {
    if (v instanceof Uint8Array) {
      // A blob's own buffer is moved unless the caller keeps it (`copy`: parameters).
      const own = !copy && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength &&
          v.buffer instanceof ArrayBuffer
        ? v.buffer
        : v.slice().buffer;
      if (!moved.includes(own)) moved.push(own);
      return own;
    }
    if (depth >= 5 || typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) return v.map((x) => visit(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = visit(x, depth + 1);
    return out;
  };
  return { value: hasBlob(value, 0) ? visit(value, 0) : value, moved };
}

/** `value` from `withBuffers`, each `ArrayBuffer` a blob again. */
export function withBlobs(value: unknown): unknown {
  const visit = (v: unknown, depth: number): unknown => {
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    if (depth >= 5 || typeof v !== "object" || v === null) return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = visit(v[i], depth + 1);
    } else {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) o[k] = visit(o[k], depth + 1);
    }
    return v;
  };
  return hasBuffer(value, 0) ? visit(value, 0) : value;
}

function hasBlob(v: unknown, depth: number): boolean {
  if (v instanceof Uint8Array) return true;
  if (depth >= 5 || typeof v !== "object" || v === null) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (hasBlob(x, depth + 1)) return true;
  return false;
}

function hasBuffer(v: unknown, depth: number): boolean {
  if (v instanceof ArrayBuffer) return true;
  if (depth >= 5 || typeof v !== "object" || v === null) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (hasBuffer(x, depth + 1)) return true;
  return false;
}

/** Rows as one array per column: a port read synchronously takes them 3–4× faster so. */
export interface Columns {
  names: string[];
  values: unknown[][];
  length: number;
}

/** `rows` (objects with the same keys, as SQLite gives a statement's rows) by column. */
export function toColumns(rows: readonly unknown[]): Columns {
  const names = rows.length === 0 ? [] : Object.keys(rows[0] as object);
  const values = names.map((name) => rows.map((r) => (r as Record<string, unknown>)[name]));
  return { names, values, length: rows.length };
}

/**
 * The rows `columns` holds, as objects keyed by column in SQLite's order, without a prototype
 * (as `node:sqlite` gives them: a column may be called `__proto__`).
 */
export function fromColumns({ names, values, length }: Columns): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = new Array(length);
  for (let i = 0; i < length; i++) {
    const row: Record<string, unknown> = Object.create(null);
    for (let c = 0; c < names.length; c++) row[names[c]] = values[c][i];
    rows[i] = row;
  }
  return rows;
}

/** A cell slept on for a millisecond at a time, never woken. */
const NAP = new Int32Array(new SharedArrayBuffer(4));

/**
 * The next message on `port`, waiting up to a second for one the flag says was posted (it is
 * there at once unless the port lags its flag, and this bounds the wait should it).
 */
export function taken(
  port: Parameters<typeof receiveMessageOnPort>[0],
): { message: unknown } | undefined {
  for (let naps = 0; naps < 1000; naps++) {
    const got = receiveMessageOnPort(port) as { message: unknown } | undefined;
    if (got !== undefined) return got;
    Atomics.wait(NAP, 0, 0, 1);
  }
  return undefined;
}
