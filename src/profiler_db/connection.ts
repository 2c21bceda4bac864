/**
 * One read-only connection to a handle's profiler database, opened on the first call that
 * needs it and kept for the handle's life (memoised in its cache; never closed, since a
 * read-only connection holds nothing a writer waits on once a statement ends). Queries go
 * through `rows`/`row`, which turn a SQLite failure — a corrupt page, a lock held by a writer
 * — into a refusal naming it rather than a crash. A failed open is not kept, so the next call
 * tries again.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { Database } from "./database.ts";
import { Refusal } from "../kit/refusal.ts";
import { PROFILER_DB_NAME } from "./probe.ts";
import type { FileIdentity } from "../kit/file_identity.ts";
import type { Schema } from "./schema.ts";

/** A handle's profiler database. */
export interface ProfilerDb {
  db: Database;
  schema: Schema;
  /** Per-connection memo of derived data (ranks, devices, footprints), keyed by deriver. */
  memo: Map<string, unknown>;
  /**
   * The file and its identity when loaded, for a worker's own connection to it; undefined when
   * the connection reads an in-memory snapshot of it.
   */
  file?: { path: string; identity: FileIdentity };
}

/** Every row of a query, as objects; a SQLite failure becomes a refusal naming it. */
export function rows<T>(pdb: ProfilerDb, sql: string, ...params: SQLInputValue[]): T[] {
  try {
    return pdb.db.prepare(sql).all(...params) as T[];
  } catch (e) {
    throw unreadable(e);
  }
}

/**
 * The rows of a query one at a time, as SQLite steps to them (for a result too large to hold
 * whole); a SQLite failure becomes a refusal naming it. Leaving the loop early ends the
 * statement.
 */
export function* eachRow<T>(
  pdb: ProfilerDb,
  sql: string,
  ...params: SQLInputValue[]
): Generator<T, void, undefined> {
  let it: Iterator<unknown>;
  try {
    it = pdb.db.prepare(sql).iterate(...params);
  } catch (e) {
    throw unreadable(e);
  }
  try {
    while (true) {
      let next: IteratorResult<unknown>;
      try {
        next = it.next();
      } catch (e) {
        throw unreadable(e);
      }
      if (next.done) return;
      yield next.value as T;
    }
  } finally {
    it.return?.();
  }
}

/** The first row of a query, or undefined. */
export function row<T>(pdb: ProfilerDb, sql: string, ...params: SQLInputValue[]): T | undefined {
  try {
    return pdb.db.prepare(sql).get(...params) as T | undefined;
  } catch (e) {
    throw unreadable(e);
  }
}

/**
 * Every row of `sql` as one array per column (`columns`, in row order), handed over by SQLite
 * as JSON — a fraction of the cost of a row object each on a large result — or null where
 * JSON may not carry a value as the driver would (a REAL, which JSON may round; a BLOB, which
 * SQLite's JSON functions read as JSON; an integer past 2^53, which the driver refuses), so
 * the caller reads the rows instead. Rows come in the query's order only as far as `order`
 * (an ORDER BY's terms over `columns`) says.
 */
export function columnsOf(
  db: Database,
  sql: string,
  columns: readonly string[],
  order: string | null = null,
  ...params: SQLInputValue[]
): unknown[][] | null {
  const by = order === null ? "" : ` ORDER BY ${order}`;
  const odd = columns.map((c) => `(typeof(${c}) IN ('real', 'blob'))`).join(" + ");
  let found: Record<string, unknown> | undefined;
  try {
    found = db.prepare(
      `SELECT total(${odd}) AS odd, ` +
        `${columns.map((c, i) => `json_group_array(${c}${by}) AS c${i}`).join(", ")} ` +
        `FROM (${sql})`,
    ).get(...params) as Record<string, unknown> | undefined;
  } catch {
    return null;
  }
  if (found?.odd !== 0) return null;
  const out: unknown[][] = [];
  for (let i = 0; i < columns.length; i++) {
    const values = JSON.parse(String(found?.[`c${i}`] ?? "[]")) as unknown[];
    for (const v of values) if (typeof v === "number" && !Number.isSafeInteger(v)) return null;
    out.push(values);
  }
  return out;
}

/** Rows as one array per column, as `columnsOf` gives them. */
export function byColumn(
  found: Record<string, unknown>[],
  columns: readonly string[],
): unknown[][] {
  return columns.map((c) => found.map((r) => r[c]));
}

/** A SQLite failure as the refusal naming it. */
export function unreadable(e: unknown): Refusal {
  return new Refusal(
    `the profiler database could not be read: ${(e as Error).message} (${PROFILER_DB_NAME})`,
  );
}

/** A table or column name quoted for SQL. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Memoises `derive()` on the connection under `key`. */
export function memo<T>(pdb: ProfilerDb, key: string, derive: () => T): T {
  if (pdb.memo.has(key)) return pdb.memo.get(key) as T;
  const value = derive();
  pdb.memo.set(key, value);
  return value;
}
