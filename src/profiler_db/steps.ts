/**
 * A query over a large table read in steps — a range of rowids at a time, each a
 * short synchronous SQLite call (sized by the clock), with the event loop let in and the caller's cancellation
 * checked between two — so a ping is answered and a cancel honoured during a read of 10^6 rows.
 * The rows come in the order a whole read gives them when the query orders by the table's
 * rowid (the ranges follow each other in rowid order).
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { Statement } from "./database.ts";
import { WorkClock } from "../kit/work_clock.ts";
import { ident, type ProfilerDb, rows, unreadable } from "./connection.ts";

/** Lets the event loop in now and then; throws once the work is stopped. */
export type Pause = () => Promise<void>;

/** The most rows of the table one step reads (a few tens of milliseconds of SQLite). */
export const STEP_ROWS = 4096;

/**
 * How a stepped read sizes its steps, by the clock: a step (its query and what the caller
 * does with its rows) that took over twice `targetMs` halves the next, one under half of it
 * doubles the next, between `minRows` and `maxRows` rows of the table.
 */
export interface StepPlan {
  minRows: number;
  maxRows: number;
  targetMs: number;
}

/** The default plan: about 10 ms a step (a loaded machine takes smaller steps). */
export const STEP_PLAN: StepPlan = { minRows: 256, maxRows: STEP_ROWS, targetMs: 10 };

/** The next step's rows, after a step of `size` rows took `ms`. */
function resized(size: number, ms: number, plan: StepPlan): number {
  if (ms > 2 * plan.targetMs) return Math.max(plan.minRows, size >> 1);
  if (ms < plan.targetMs / 2) return Math.min(plan.maxRows, size * 2);
  return size;
}

/** A pause on a clock of its own that throws `signal`'s reason once it aborts. */
export function pauseOn(signal?: AbortSignal): Pause {
  const clock = new WorkClock();
  return async () => {
    signal?.throwIfAborted();
    await clock.tick();
    signal?.throwIfAborted();
  };
}

/**
 * Every row of `query(range)` over `table`'s rowids, a step of at most `plan.maxRows` rows of
 * the table at a time (fewer while steps run long), `pause` called between two steps. `range` is the clause
 * ` AND <alias>.rowid BETWEEN ? AND ?` to place in the query's WHERE, after every other
 * parameter (`params` are bound before its two).
 */
export async function rowsInSteps<T>(
  pdb: ProfilerDb,
  table: string,
  alias: string,
  query: (range: string) => string,
  params: readonly SQLInputValue[],
  pause: Pause,
  plan: StepPlan = STEP_PLAN,
): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stepsOf<T>(pdb, table, alias, query, params, pause, plan)) {
    for (const r of part) out.push(r);
  }
  return out;
}

/**
 * The rows of `query(restrict)`, the rows it reads found in steps: the rowids of `table`'s
 * rows (as `alias`) meeting `where` (bound to `params`) are read in rowid steps, `pause`
 * between two, then `query` runs once over those rows alone — the same rows in the query's
 * own order, whatever it orders by. `restrict` is the clause ` AND <alias>.rowid IN (...)`
 * to place at the end of the query's WHERE, its one parameter after `params`.
 */
export async function rowsFoundInSteps<T>(
  pdb: ProfilerDb,
  table: string,
  alias: string,
  where: string,
  params: readonly SQLInputValue[],
  query: (restrict: string) => string,
  pause: Pause,
): Promise<T[]> {
  const column = `${alias === "" ? "" : `${alias}.`}rowid`;
  const from = `${ident(table)}${alias === "" ? "" : ` ${alias}`}`;
  // Rowids as text: exact past 2^53, and read back as integers by SQLite.
  const finder = (range: string) =>
    `SELECT CAST(${column} AS TEXT) AS r FROM ${from} WHERE ${where}${range}`;
  const found: string[] = [];
  for await (const part of stepsOf<{ r: string }>(pdb, table, alias, finder, params, pause)) {
    for (const f of part) found.push(f.r);
  }
  const restrict = ` AND ${column} IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`;
  return rows<T>(pdb, query(restrict), ...params, JSON.stringify(found));
}

/** The rows of `rowsInSteps`, one step's rows at a time. */
export async function* stepsOf<T>(
  pdb: ProfilerDb,
  table: string,
  alias: string,
  query: (range: string) => string,
  params: readonly SQLInputValue[],
  pause: Pause,
  plan: StepPlan = STEP_PLAN,
): AsyncGenerator<T[], void, undefined> {
  const column = `${alias === "" ? "" : `${alias}.`}rowid`;
  const sql = query(` AND ${column} BETWEEN ? AND ?`);
  // Rowids as BigInts: a rowid past 2^53 is a valid bound though no number can hold it.
  let whole: { lo: bigint | undefined; hi: bigint | undefined };
  let seek: Statement;
  let step: Statement;
  try {
    // Two queries, not one min/max query: SQLite answers each from the table's b-tree at
    // once, but scans the whole table for the pair (100 ms on 10^6 rows, the loop held).
    const end = (order: string) => {
      const bound = pdb.db.prepare(
        `SELECT rowid AS r FROM ${ident(table)} ORDER BY rowid ${order} LIMIT 1`,
      );
      bound.setReadBigInts(true);
      return (bound.get() as { r: bigint } | undefined)?.r;
    };
    whole = { lo: end("ASC"), hi: end("DESC") };
    seek = pdb.db.prepare(
      `SELECT rowid AS r FROM ${ident(table)} WHERE rowid >= ? ORDER BY rowid LIMIT 1`,
    );
    seek.setReadBigInts(true);
    step = pdb.db.prepare(sql);
  } catch (e) {
    throw unreadable(e);
  }
  if (whole.lo === undefined || whole.hi === undefined) return;
  const last: bigint = whole.hi;
  let lo: bigint = whole.lo;
  let size = plan.maxRows;
  let started = NaN;
  for (;;) {
    if (!Number.isNaN(started)) size = resized(size, performance.now() - started, plan);
    await pause();
    started = performance.now();
    // A step is `size` rowids from `lo` (so at most `size` rows); the next starts at the
    // first rowid after it, past any gap.
    const hi = last - lo < BigInt(size) ? last : lo + BigInt(size) - 1n;
    let part: T[];
    let next: bigint | undefined;
    try {
      part = step.all(...params, lo, hi) as T[];
      next = hi === last ? undefined : (seek.get(hi + 1n) as { r: bigint } | undefined)?.r;
    } catch (e) {
      throw unreadable(e);
    }
    yield part;
    if (next === undefined) return;
    lo = next;
  }
}
