/**
 * A query over a large table read in steps — a range of rowids at a time, each a
 * short synchronous SQLite call, with the event loop let in and the caller's cancellation
 * checked between two — so a ping is answered and a cancel honoured during a read of 10^6 rows.
 * The rows come in the order a whole read gives them when the query orders by the table's
 * rowid (the ranges follow each other in rowid order).
 *
 * @module
 */
import type { SQLInputValue, StatementSync } from "node:sqlite";
import { WorkClock } from "../kit/work_clock.ts";
import { ident, type ProfilerDb, rows, unreadable } from "./connection.ts";

/** Lets the event loop in now and then; throws once the work is stopped. */
export type Pause = () => Promise<void>;

/** The most rows of the table one step reads (a few tens of milliseconds of SQLite). */
export const STEP_ROWS = 4096;

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
 * Every row of `query(range)` over `table`'s rowids, a step of at most `STEP_ROWS` rows of
 * the table at a time, `pause` called between two steps. `range` is the clause
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
): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stepsOf<T>(pdb, table, alias, query, params, pause)) {
    for (const r of part) out.push(r);
  }
  return out;
}

/** The rows of `rowsInSteps`, one step's rows at a time. */
export async function* stepsOf<T>(
  pdb: ProfilerDb,
  table: string,
  alias: string,
  query: (range: string) => string,
  params: readonly SQLInputValue[],
  pause: Pause,
): AsyncGenerator<T[], void, undefined> {
  const column = `${alias === "" ? "" : `${alias}.`}rowid`;
  const sql = query(` AND ${column} BETWEEN ? AND ?`);
  // Rowids as BigInts: a rowid past 2^53 is a valid bound though no number can hold it.
  let whole: { lo: bigint | null; hi: bigint | null } | undefined;
  let nth: StatementSync;
  try {
    const bounds = pdb.db.prepare(`SELECT min(rowid) AS lo, max(rowid) AS hi FROM ${ident(table)}`);
    bounds.setReadBigInts(true);
    whole = bounds.get() as typeof whole;
    nth = pdb.db.prepare(
      `SELECT rowid AS r FROM ${ident(table)} WHERE rowid >= ? ORDER BY rowid LIMIT 1 OFFSET ?`,
    );
    nth.setReadBigInts(true);
  } catch (e) {
    throw unreadable(e);
  }
  if (whole === undefined || whole.lo === null || whole.hi === null) return;
  let lo: bigint = whole.lo;
  for (;;) {
    await pause();
    // The step ends before the STEP_ROWS-th row from `lo`, or at the table's last row.
    let next: bigint | undefined;
    try {
      next = (nth.get(lo, STEP_ROWS) as { r: bigint } | undefined)?.r;
    } catch (e) {
      throw unreadable(e);
    }
    const hi = next === undefined ? whole.hi : next - 1n;
    yield rows<T>(pdb, sql, ...params, lo, hi);
    if (next === undefined) return;
    lo = next;
  }
}
