/**
 * Internal: a database on a thread of its own, read as synchronously as one in this thread.
 *
 * Why: SQLite takes a database's bytes in one synchronous call (`deserialize`), about a
 * millisecond a MiB — 0.6 s and more for the 625 MiB of a 10^6-operation capture, during which
 * a ping waited (issue 30). Here that call runs on the database's thread while this one
 * answers the client; every query after it is a request this thread waits for on a shared
 * flag (`Atomics.wait`), its answer taken off the port at once (`receiveMessageOnPort`), so
 * the code above reads rows exactly as it reads them from a `DatabaseSync`, with the same
 * steps between which it lets the event loop in. A query costs a round trip more (tens of
 * microseconds) and its rows a structured copy; rows read one at a time come in batches.
 *
 * The bytes are transferred, never copied, and come only from the descriptor the caller
 * checked: the thread opens no file.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { MessageChannel, Worker } from "node:worker_threads";
import type { Database, Statement } from "./database.ts";
import {
  type Answer,
  ANSWERED,
  ASKED,
  type Batch,
  type Columns,
  type Failure,
  fromColumns,
  type Opening,
  type Request,
  taken,
  withBlobs,
  withBuffers,
} from "./_db_thread_messages.ts";

/** The rows an iteration asks for first: often one is read and the rest left. */
const FIRST_ROWS = 16;

/** The most rows one request for an iteration's next asks for. */
const ITERATE_ROWS = 256;

/** How many SQL texts are remembered as prepared (then forgotten all at once). */
const KNOWN_SQL = 1024;

/** How many times the flag is looked at before this thread sleeps on it (~15 µs here). */
const SPINS = 2_000;

/** Distributes the `Request` union over its members, keeping each one's own fields. */
type Omitted<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * `image`, a whole SQLite database (its `ArrayBuffer` transferred: unusable here after),
 * opened on a thread of its own with `pragmas` run; rejects with SQLite's failure.
 */
export async function openOnThread(
  image: Uint8Array,
  pragmas: readonly string[],
): Promise<Database> {
  if (image.byteOffset !== 0 || image.byteLength !== image.buffer.byteLength) {
    image = image.slice();
  }
  const { port1, port2 } = new MessageChannel();
  const flags = new SharedArrayBuffer(8);
  const opening: Opening = {
    image: image.buffer as ArrayBuffer,
    port: port2 as unknown as MessagePort,
    flags,
    pragmas,
  };
  const worker = new Worker(new URL("./_db_thread_worker.ts", import.meta.url), {
    workerData: opening,
    transferList: [image.buffer as ArrayBuffer, port2],
  });
  const answer = await new Promise<Answer>((resolve) => {
    worker.once("message", (a: Answer) => resolve(a));
    worker.once("error", (e: Error) => {
      resolve({ seq: 0, ok: false, message: `the database's thread failed: ${e.message}` });
    });
  });
  worker.removeAllListeners();
  if (!answer.ok) {
    worker.terminate();
    port1.close();
    throw failed(answer);
  }
  // node's Worker, for `unref`: once open, a database does not keep the process from ending
  // (every later request is waited for synchronously, never by the event loop). Deno's own
  // Worker has no `unref`, and one left open kept a one-shot call from ever ending.
  worker.unref();
  return new ThreadDatabase(worker, port1, new Int32Array(flags));
}

/** The error `failure` reports, as `node:sqlite` would have thrown it. */
function failed(failure: Failure): Error {
  const error = new Error(failure.message) as Error & Record<string, unknown>;
  if (failure.code !== undefined) error.code = failure.code;
  if (failure.errcode !== undefined) error.errcode = failure.errcode;
  if (failure.errstr !== undefined) error.errstr = failure.errstr;
  return error;
}

type Port = InstanceType<typeof MessageChannel>["port1"];

class ThreadDatabase implements Database {
  readonly #worker: Worker;
  readonly #port: Port;
  readonly #flags: Int32Array;
  #seq = 0;
  #iterations = 0;
  #closed = false;
  /** SQL the thread has prepared once (so preparing it again cannot fail). */
  readonly #known = new Set<string>();
  /** Iterations collected here unfinished since the last request, for the thread to end. */
  #dropped: number[] = [];
  readonly #collected = new FinalizationRegistry<number>((id) => this.#dropped.push(id));

  constructor(worker: Worker, port: Port, flags: Int32Array) {
    this.#worker = worker;
    this.#port = port;
    this.#flags = flags;
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  /** Sends `request` and waits for its answer, blocking this thread as SQLite would. */
  ask(request: Omitted<Request, "seq" | "dropped">): unknown {
    if (this.#closed) throw new Error("database is not open");
    this.#seq = this.#seq === 0x7fffffff ? 1 : this.#seq + 1;
    const seq = this.#seq;
    const sent = { ...request, seq } as Request;
    if (this.#dropped.length > 0) {
      sent.dropped = this.#dropped;
      this.#dropped = [];
    }
    let moved: ArrayBuffer[] = [];
    if ("params" in sent) {
      ({ value: sent.params, moved } = withBuffers(sent.params, { copy: true }) as never);
    }
    this.#port.postMessage(sent, moved);
    Atomics.store(this.#flags, ASKED, seq);
    Atomics.notify(this.#flags, ASKED);
    // A moment's spin first: most answers take less than a sleeping thread takes to wake.
    for (let spins = 0, seen = Atomics.load(this.#flags, ANSWERED); seen !== seq; spins++) {
      if (spins >= SPINS) Atomics.wait(this.#flags, ANSWERED, seen);
      seen = Atomics.load(this.#flags, ANSWERED);
    }
    // The answer is posted before the flag is raised, so it is on the port by now.
    const got = taken(this.#port) as { message: Answer } | undefined;
    if (got === undefined || got.message.seq !== seq) {
      this.close();
      throw new Error("the database's thread answered out of turn; load the report again");
    }
    if (!got.message.ok) throw failed(got.message);
    return withBlobs(got.message.value);
  }

  prepare(sql: string): Statement {
    if (!this.#known.has(sql)) {
      this.ask({ op: "prepare", sql });
      if (this.#known.size >= KNOWN_SQL) this.#known.clear();
      this.#known.add(sql);
    }
    return new ThreadStatement(this, sql);
  }

  exec(sql: string): void {
    this.ask({ op: "exec", sql });
  }

  /** Starts an iteration of `sql`: its number and first rows. */
  iterate(
    owner: object,
    sql: string,
    bigInts: boolean,
    params: SQLInputValue[],
  ): { iterator: number; first: Batch<Columns> } {
    const iterator = ++this.#iterations;
    const first = this.ask({ op: "iterate", sql, iterator, bigInts, params, rows: FIRST_ROWS });
    this.#collected.register(owner, iterator);
    return { iterator, first: first as Batch<Columns> };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#worker.terminate();
    this.#port.close();
  }
}

class ThreadStatement implements Statement {
  readonly #db: ThreadDatabase;
  readonly #sql: string;
  #bigInts = false;

  constructor(db: ThreadDatabase, sql: string) {
    this.#db = db;
    this.#sql = sql;
  }

  all(...params: SQLInputValue[]): unknown[] {
    const bigInts = this.#bigInts;
    return fromColumns(
      this.#db.ask({ op: "all", sql: this.#sql, bigInts, params }) as Columns,
    );
  }

  get(...params: SQLInputValue[]): unknown {
    const bigInts = this.#bigInts;
    const row = this.#db.ask({ op: "get", sql: this.#sql, bigInts, params }) as
      | Columns
      | undefined;
    return row === undefined ? undefined : fromColumns(row)[0];
  }

  iterate(...params: SQLInputValue[]): Iterator<unknown> {
    const db = this.#db;
    const owner = {};
    const { iterator, first } = db.iterate(owner, this.#sql, this.#bigInts, params);
    let rows = fromColumns(first.rows);
    let { done, error } = first;
    let at = 0;
    let ask = FIRST_ROWS;
    const it: Iterator<unknown> & { owner: object } = {
      // Held so the thread ends the iteration only once this is collected.
      owner,
      next(): IteratorResult<unknown> {
        while (at === rows.length) {
          if (error !== undefined) {
            const e = error;
            error = undefined;
            throw failed(e);
          }
          if (done) return { done: true, value: undefined };
          ask = Math.min(ITERATE_ROWS, ask * 2);
          const got = db.ask({ op: "next", iterator, rows: ask }) as Batch<Columns>;
          ({ done, error } = got);
          rows = fromColumns(got.rows);
          at = 0;
        }
        return { done: false, value: rows[at++] };
      },
      return(): IteratorResult<unknown> {
        if (!done) {
          done = true;
          if (db.isOpen) db.ask({ op: "end", iterator });
        }
        rows = [];
        at = 0;
        error = undefined;
        return { done: true, value: undefined };
      },
    };
    return it;
  }

  setReadBigInts(enabled: boolean): void {
    this.#bigInts = enabled;
  }
}
