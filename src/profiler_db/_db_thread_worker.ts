/**
 * Internal: the thread a large database lives on (`_db_thread.ts` is the other side). It is
 * started with the database's bytes (transferred, not copied), a port and flags: it copies the
 * bytes into SQLite (`deserialize`, one synchronous call that takes about a millisecond a MiB —
 * here, not on the thread answering the client), says so once the database is open, then
 * serves requests for the rest of its life: it waits on the flags for the next (spinning a
 * moment first, since requests come in runs and a thread woken from sleep takes tens of
 * microseconds to run), takes it off the port, answers on the port and raises the flag to its
 * number.
 *
 * Every request is answered, a failure included (as its message and SQLite's codes), so the
 * other side never waits for an answer that will not come.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import {
  type Answer,
  ANSWERED,
  ASKED,
  type Batch,
  type Columns,
  type Failure,
  type Opening,
  type Request,
  taken,
  toColumns,
  withBlobs,
  withBuffers,
} from "./_db_thread_messages.ts";

/** The most a batch of rows read one at a time holds, roughly, in bytes of text and blobs. */
const BATCH_BYTES = 4 << 20;

/** The statements kept prepared, by SQL, the least recently used dropped past this many. */
const KEPT_STATEMENTS = 256;

/** How many times the flag is looked at before the thread sleeps on it (~80 µs here). */
const SPINS = 10_000;

const statements = new Map<string, StatementSync>();
const iterators = new Map<number, Iterator<unknown>>();

const { image, port, flags: flagBuffer, pragmas } = workerData as Opening;
const db = opened(new Uint8Array(image), pragmas);
if (db !== null) {
  parentPort!.postMessage({ seq: 0, ok: true, value: null } satisfies Answer);
  await serve(db, new Int32Array(flagBuffer));
}

/** The database `bytes` hold, open with `pragmas` run; null once its failure is posted. */
function opened(bytes: Uint8Array, pragmas: readonly string[]): DatabaseSync | null {
  const open = new DatabaseSync(":memory:");
  try {
    open.deserialize(bytes);
    for (const pragma of pragmas) open.exec(pragma);
    return open;
  } catch (e) {
    open.close();
    parentPort!.postMessage(failure(0, e));
    return null;
  }
}

/**
 * Answers each request as it comes, until the thread is terminated. Between two runs of
 * requests the thread waits in its event loop (`Atomics.waitAsync`), not blocked: with a
 * blocking wait instead, 50 operation_detail calls at once on a 10^6-operation database took
 * the server to 8 GB (1.1 GB so).
 */
async function serve(open: DatabaseSync, flags: Int32Array): Promise<never> {
  let last = 0;
  for (;;) {
    for (let spins = 0; Atomics.load(flags, ASKED) === last;) {
      if (spins++ < SPINS) continue;
      const waited = Atomics.waitAsync(flags, ASKED, last);
      if (waited.async) await waited.value;
    }
    last = Atomics.load(flags, ASKED);
    const got = taken(port as never) as { message: Request } | undefined;
    if (got !== undefined) answer(open, flags, got.message);
  }
}

/** Runs `request`, posts its answer and raises the flag to its number. */
function answer(open: DatabaseSync, flags: Int32Array, request: Request): void {
  if ("params" in request) request.params = withBlobs(request.params) as SQLInputValue[];
  let answer: Answer;
  try {
    answer = { seq: request.seq, ok: true, value: run(open, request) };
  } catch (e) {
    answer = failure(request.seq, e);
  }
  try {
    if (answer.ok) {
      const { value, moved } = withBuffers(answer.value, { copy: false });
      port.postMessage({ ...answer, value }, moved);
    } else port.postMessage(answer);
  } catch (e) {
    port.postMessage(failure(request.seq, e)); // a value no structured copy takes
  }
  Atomics.store(flags, ANSWERED, request.seq);
  Atomics.notify(flags, ANSWERED);
}

function run(open: DatabaseSync, request: Request): unknown {
  for (const id of request.dropped ?? []) end(id);
  switch (request.op) {
    case "prepare":
      statement(open, request.sql, false);
      return null;
    case "exec":
      open.exec(request.sql);
      return null;
    case "all":
      return toColumns(statement(open, request.sql, request.bigInts).all(...request.params));
    case "get": {
      const row = statement(open, request.sql, request.bigInts).get(...request.params);
      return row === undefined ? undefined : toColumns([row]);
    }
    case "iterate": {
      end(request.iterator);
      // A statement of its own: iterations of one SQL at once must not reset each other.
      const own = open.prepare(request.sql);
      own.setReadBigInts(request.bigInts);
      iterators.set(request.iterator, own.iterate(...request.params));
      return batch(request.iterator, request.rows);
    }
    case "next":
      return batch(request.iterator, request.rows);
    case "end":
      end(request.iterator);
      return null;
  }
}

/** The statement kept for `sql` (prepared now if it is not), reading BigInts as asked. */
function statement(open: DatabaseSync, sql: string, bigInts: boolean): StatementSync {
  let found = statements.get(sql);
  if (found === undefined) {
    found = open.prepare(sql);
    if (statements.size >= KEPT_STATEMENTS) statements.delete(statements.keys().next().value!);
  } else statements.delete(sql);
  statements.set(sql, found);
  found.setReadBigInts(bigInts);
  return found;
}

/** Ends iteration `id`, if it is under way. */
function end(id: number): void {
  iterators.get(id)?.return?.();
  iterators.delete(id);
}

/**
 * Up to `rows` rows of iteration `id`, fewer once they hold about `BATCH_BYTES`; `done` once
 * it has no more. A failure after some rows comes after them (`error`).
 */
function batch(id: number, rows: number): Batch<Columns> {
  const it = iterators.get(id);
  if (it === undefined) return { rows: toColumns([]), done: true };
  const out: unknown[] = [];
  let bytes = 0;
  while (out.length < rows && bytes < BATCH_BYTES) {
    let next: IteratorResult<unknown>;
    try {
      next = it.next();
    } catch (e) {
      iterators.delete(id);
      if (out.length === 0) throw e;
      return { rows: toColumns(out), done: true, error: failure(0, e) };
    }
    if (next.done) {
      iterators.delete(id);
      return { rows: toColumns(out), done: true };
    }
    out.push(next.value);
    bytes += sizeOf(next.value);
  }
  return { rows: toColumns(out), done: false };
}

/** A row's text and blobs in bytes, roughly (a UTF-16 code unit counted as one). */
function sizeOf(row: unknown): number {
  let bytes = 16;
  for (const v of Object.values(row as Record<string, SQLInputValue>)) {
    if (typeof v === "string") bytes += v.length;
    else if (v instanceof Uint8Array) bytes += v.byteLength;
    else bytes += 8;
  }
  return bytes;
}

/** A failure as an answer: its message and what `node:sqlite` adds to it. */
function failure(seq: number, e: unknown): Failure {
  const error = e as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
  return {
    seq,
    ok: false,
    message: error instanceof Error ? error.message : String(e),
    code: typeof error?.code === "string" ? error.code : undefined,
    errcode: typeof error?.errcode === "number" ? error.errcode : undefined,
    errstr: typeof error?.errstr === "string" ? error.errstr : undefined,
  };
}
