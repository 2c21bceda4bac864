/**
 * The captured graphs as l1_peak's replay reads them — once, in operation id order
 * alongside the operations, each operation's rows' events together. Three ways to read the
 * same rows, each giving the same answer:
 *
 * - `ranges` (first): rowid ranges read whole (`_graph_chunks.ts`), in order, by this thread
 *   and, on a file it can open again by path, a worker (`../_db_worker.ts`): the worker claims
 *   each range this thread has not, and this thread replays them in order, reading a range
 *   itself whenever it has caught up with the worker; a range it cannot be sure of sends the
 *   replay to `rows`.
 * - `rows`: row by row in rowid order, every text through `JSON.parse` — the reader of record.
 * - `ordered`: the same, ordered by SQLite, once rows came back out of operation order (every
 *   writer inserts them by operation, but a report need not).
 *
 * Reading is refused once more than `maxChars` characters of graph have been read, counted as
 * the rows are reached in order.
 *
 * @module
 */
import type { Statement } from "../database.ts";
import { Refusal } from "../../kit/refusal.ts";
import type { ProfilerDb } from "../connection.ts";
import { nodeEvents } from "./_l1_events.ts";
import { GraphWorker } from "./_graph_helper.ts";
import {
  BLANK,
  chunkSql,
  CLAIMED_HERE,
  GRAPH_PLAN,
  type GraphChunk,
  type GraphPlan,
  graphRanges,
  INVALID,
  LIST,
  NOT_A_LIST,
  readChunk,
  type RowidRange,
  UNCLAIMED,
} from "./_graph_chunks.ts";

/** How the rows are read. */
export type GraphReading = "ranges" | "rows" | "ordered";

/** Graph rows came back out of operation order: read again, ordered by SQLite. */
export class NotGrouped extends Error {}

/** A range could not be read whole as surely as row by row: read again, row by row. */
export class ReadByRows extends Error {}

/** One operation's graph: its events, its rows, why one could not be read (the first). */
export interface OperationGraph {
  events: number[];
  rows: number;
  unreadable: string | null;
}

/** A source of rows in order: `advance` moves to the next (false at the end). */
export interface RowSource {
  advance(): boolean | Promise<boolean>;
  /** The current row's operation id and characters. */
  id: number;
  chars: number;
  /** The current row's text: BLANK, LIST (its events appended to `out`), NOT_A_LIST, INVALID. */
  read(out: number[]): number;
  close(): void;
  /** Resolves once nothing is read ahead any more (a worker has stopped); for tests. */
  settled(): Promise<void>;
}

/** What else the ranges' worker does, and how it reads. */
export interface RangesOptions {
  /** A query for the worker to run first (the last uses' — `inputs.ts`), or null. */
  lastUses?: { sql: string; columns: readonly string[] } | null;
  plan?: GraphPlan;
}

/**
 * The ranges' reader, its worker started at once (so it reads while this thread does other
 * work), or null when the table cannot be read by ranges. Nothing is read on this thread yet.
 */
export function startRanges(
  pdb: ProfilerDb,
  rank: string,
  maxChars: number,
  bankCount: number,
  beforeRange: () => Promise<void>,
  { lastUses = null, plan = GRAPH_PLAN }: RangesOptions = {},
): RangeRows | null {
  try {
    return RangeRows.start(pdb, rank, maxChars, bankCount, beforeRange, plan, lastUses);
  } catch (e) {
    if (e instanceof ReadByRows) return null;
    throw e;
  }
}

/**
 * The graph reader for the replay (its first row read at once, as a refusal past the bound
 * may be due to it), or a refusal. `ranges` reads through `started` (from `startRanges`); a
 * null one is read row by row.
 */
export async function openGraphs(
  pdb: ProfilerDb,
  rank: string,
  reading: GraphReading,
  maxChars: number,
  bankCount: number,
  started: RowSource | null = null,
): Promise<GraphReader> {
  if (reading === "ranges" && started === null) throw new ReadByRows();
  const source = reading === "ranges"
    ? started!
    : new EachRow(pdb, rank, reading === "ordered", bankCount);
  const reader = new GraphReader(source, maxChars);
  try {
    await reader.pull();
  } catch (e) {
    reader.close();
    throw e;
  }
  return reader;
}

/** The rows grouped by operation: `next(id)` for each id in ascending order. */
export class GraphReader {
  #source: RowSource;
  #maxChars: number;
  #pending = false;
  #chars = 0;

  constructor(source: RowSource, maxChars: number) {
    this.#source = source;
    this.#maxChars = maxChars;
  }

  /** Moves to the next row, checking order and the bound (waiting only for a range). */
  pull(): void | Promise<void> {
    const last = this.#pending ? this.#source.id : -Infinity;
    const moved = this.#source.advance();
    if (moved instanceof Promise) return moved.then((pending) => this.#moved(pending, last));
    this.#moved(moved, last);
  }

  #moved(pending: boolean, last: number): void {
    this.#pending = pending;
    if (!pending) return;
    if (this.#source.id < last) throw new NotGrouped();
    this.#chars += this.#source.chars;
    if (this.#chars > this.#maxChars) {
      throw new Refusal(
        "l1_peak cannot answer for this capture: its captured graphs run past the " +
          `${this.#maxChars.toLocaleString("en-US")} characters l1_peak will read`,
      );
    }
  }

  /**
   * The events of every graph row of `id` (graph rows of lower, unknown ids are skipped) —
   * at once, or once a range it waits for has come.
   */
  next(id: number): OperationGraph | Promise<OperationGraph> {
    const source = this.#source;
    while (this.#pending && source.id < id) {
      const waiting = this.pull();
      if (waiting) return waiting.then(() => this.next(id));
    }
    return this.#gather(id, { events: [], rows: 0, unreadable: null });
  }

  /** Adds the rows of `id` from the current one on to `graph`. */
  #gather(id: number, graph: OperationGraph): OperationGraph | Promise<OperationGraph> {
    const source = this.#source;
    while (this.#pending && source.id === id) {
      graph.rows++;
      const verdict = source.read(graph.events);
      if (verdict === INVALID) graph.unreadable ??= "its captured graph does not parse as JSON";
      else if (verdict === NOT_A_LIST) {
        graph.unreadable ??= "its captured graph is not a JSON list of nodes";
      }
      const waiting = this.pull();
      if (waiting) return waiting.then(() => this.#gather(id, graph));
    }
    return graph;
  }

  close(): void {
    this.#source.close();
  }
}

/** Row by row through `JSON.parse`, as a statement streams them. */
class EachRow implements RowSource {
  id = NaN;
  chars = 0;
  #it: Iterator<Record<string, unknown>> | undefined;
  #text: string | null = null;
  #sql: string;
  #pdb: ProfilerDb;
  #bankCount: number;

  constructor(pdb: ProfilerDb, rank: string, ordered: boolean, bankCount: number) {
    this.#pdb = pdb;
    this.#bankCount = bankCount;
    this.#sql = "SELECT operation_id AS id, CAST(captured_graph AS TEXT) AS g FROM " +
      `captured_graph WHERE operation_id IS NOT NULL${rank} ORDER BY ${
        ordered ? "operation_id, rowid" : "rowid"
      }`;
  }

  advance(): boolean {
    let r: IteratorResult<Record<string, unknown>>;
    try {
      this.#it ??= this.#pdb.db.prepare(this.#sql).iterate() as Iterator<Record<string, unknown>>;
      r = this.#it.next();
    } catch (e) {
      throw new Refusal(`the profiler database could not be read: ${(e as Error).message}`);
    }
    if (r.done) return false;
    this.id = Number(r.value.id);
    this.#text = r.value.g as string | null;
    this.chars = this.#text?.length ?? 0;
    return true;
  }

  read(out: number[]): number {
    const text = this.#text ?? "";
    if (text.trim() === "") return BLANK;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return INVALID;
    }
    if (!Array.isArray(parsed)) return NOT_A_LIST;
    for (const e of nodeEvents(parsed, this.#bankCount)) out.push(e);
    return LIST;
  }

  close(): void {
    this.#it?.return?.();
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }
}

/** Rowid ranges read whole, by this thread and, where it can, a worker. */
export class RangeRows implements RowSource {
  id = NaN;
  chars = 0;
  #ranges: RowidRange[];
  #claims: Int32Array;
  #worker: GraphWorker | null;
  #read: (range: RowidRange) => GraphChunk | "rows";
  #beforeRange: () => Promise<void>;
  #index = -1;
  /** Ranges this thread read ahead, by index. */
  #ahead = new Map<number, GraphChunk>();
  #chunk: GraphChunk | null = null;
  #row = -1;

  private constructor(
    ranges: RowidRange[],
    claims: Int32Array,
    worker: GraphWorker | null,
    read: (range: RowidRange) => GraphChunk | "rows",
    beforeRange: () => Promise<void>,
  ) {
    this.#ranges = ranges;
    this.#claims = claims;
    this.#worker = worker;
    this.#read = read;
    this.#beforeRange = beforeRange;
  }

  static start(
    pdb: ProfilerDb,
    rank: string,
    maxChars: number,
    bankCount: number,
    beforeRange: () => Promise<void>,
    plan: GraphPlan,
    lastUses: { sql: string; columns: readonly string[] } | null,
  ): RangeRows {
    // Two queries, not one MIN/MAX query: SQLite answers each from the table's b-tree at once.
    // A failure here is left to the row-by-row reader, which reports it as it always has.
    let bounds: { id: unknown }[];
    let encoding: unknown;
    try {
      bounds = ["", " DESC"].map((order) =>
        pdb.db.prepare(`SELECT rowid AS id FROM captured_graph ORDER BY rowid${order} LIMIT 1`)
          .get() as { id: unknown }
      );
      encoding = (pdb.db.prepare("PRAGMA encoding").get() as { encoding?: unknown })?.encoding;
    } catch {
      throw new ReadByRows();
    }
    // Texts are handed over as bytes: in UTF-8 only; rowids are counted exactly.
    if (encoding !== "UTF-8") throw new ReadByRows();
    if (bounds.some((b) => b !== undefined && !Number.isSafeInteger(b.id))) throw new ReadByRows();
    const ranges = bounds[0] === undefined || bounds[1] === undefined
      ? []
      : graphRanges(Number(bounds[0].id), Number(bounds[1].id), plan.rangeRows);
    const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, ranges.length)));
    const sql = chunkSql(rank);
    const statements = new Map<string, Statement>();
    const get = (query: string, from: number, to: number) => {
      let statement = statements.get(query);
      if (statement === undefined) statements.set(query, statement = pdb.db.prepare(query));
      return statement.get(from, to) as Record<string, unknown> | undefined;
    };
    const worker = ranges.length >= plan.workerFrom && pdb.file !== undefined
      ? GraphWorker.start(pdb.file, {
        kind: "graphs",
        path: pdb.file.path,
        sql,
        ranges,
        claims: claims.buffer as SharedArrayBuffer,
        bankCount,
        maxChars,
        maxQueryBytes: plan.maxQueryBytes,
        lastUses,
      })
      : null;
    return new RangeRows(
      ranges,
      claims,
      worker,
      (range) => readChunk(get, sql, range, bankCount, plan.maxQueryBytes),
      beforeRange,
    );
  }

  advance(): boolean | Promise<boolean> {
    this.#row++;
    const chunk = this.#chunk;
    if (chunk === null || this.#row >= chunk.ids.length) return this.#nextRange();
    this.id = chunk.ids[this.#row];
    this.chars = chunk.chars[this.#row];
    return true;
  }

  /** Moves to the first row of the next range holding one. */
  async #nextRange(): Promise<boolean> {
    do {
      if (++this.#index >= this.#ranges.length) return false;
      this.#chunk = await this.#load(this.#index);
      this.#row = 0;
    } while (this.#chunk.ids.length === 0);
    this.id = this.#chunk.ids[0];
    this.chars = this.#chunk.chars[0];
    return true;
  }

  /**
   * Range `index`'s rows: read ahead here, the worker's, or read now. While the worker's is
   * not in yet, this thread reads the next range nobody has claimed, for later, rather than
   * wait.
   */
  async #load(index: number): Promise<GraphChunk> {
    const ahead = this.#ahead.get(index);
    if (ahead !== undefined) {
      this.#ahead.delete(index);
      return ahead;
    }
    if (this.#claim(index) || this.#worker === null) return await this.#readHere(index);
    let next = index + 1;
    while (!this.#worker.answered(index)) {
      while (next < this.#ranges.length && !this.#claim(next)) next++;
      if (next >= this.#ranges.length) break;
      this.#ahead.set(next, await this.#readHere(next));
    }
    return await this.#worker.take(index) ?? await this.#readHere(index);
  }

  /**
   * Reads ranges nobody has claimed, in order, for later, until `until` settles (while this
   * thread would otherwise only wait) or none is left. A range that cannot be read whole is
   * left for the replay to meet in its turn.
   */
  async prefetch(until: Promise<unknown>): Promise<void> {
    let settled = false;
    until.then(() => settled = true, () => settled = true);
    for (let next = this.#index + 1; !settled && next < this.#ranges.length; next++) {
      if (this.#ahead.has(next) || !this.#claim(next)) continue;
      await this.#beforeRange();
      const read = this.#read(this.#ranges[next]);
      if (read === "rows") {
        Atomics.store(this.#claims, next, UNCLAIMED);
        return;
      }
      this.#ahead.set(next, read);
    }
  }

  /** Whether this thread now holds range `index` (nobody had claimed it). */
  #claim(index: number): boolean {
    return Atomics.compareExchange(this.#claims, index, UNCLAIMED, CLAIMED_HERE) === UNCLAIMED;
  }

  async #readHere(index: number): Promise<GraphChunk> {
    await this.#beforeRange();
    const read = this.#read(this.#ranges[index]);
    if (read === "rows") throw new ReadByRows();
    return read;
  }

  read(out: number[]): number {
    const chunk = this.#chunk!;
    const verdict = chunk.verdicts[this.#row];
    if (verdict === LIST) {
      const events = chunk.events;
      const end = chunk.ends[this.#row];
      for (let e = this.#row === 0 ? 0 : chunk.ends[this.#row - 1]; e < end; e++) {
        out.push(events[e]);
      }
    }
    return verdict;
  }

  close(): void {
    this.#worker?.close();
  }

  settled(): Promise<void> {
    return this.#worker?.done ?? Promise.resolve();
  }

  /** The columns of the worker's first query (`lastUses`), or null where this thread reads it. */
  lastUses(): Promise<unknown[][] | null> {
    return this.#worker?.lastUses() ?? Promise.resolve(null);
  }
}
