/**
 * What this server asks of a read-only SQLite connection, and nothing more: statements
 * prepared, their rows read whole, one or one at a time, a pragma run, the connection closed.
 * `node:sqlite`'s `DatabaseSync` is one; a database on a thread of its own (`_db_thread.ts`),
 * answered as synchronously, is the other — so the code above reads either the same way.
 *
 * @example A connection in this thread is a `Database`
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import type { Database } from "./database.ts";
 * const db: Database = new DatabaseSync(":memory:");
 * const row = db.prepare("SELECT 6 * 7 AS n").get() as { n: number };
 * if (row.n !== 42) throw new Error("not read");
 * db.close();
 * ```
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";

/** A prepared statement, as `node:sqlite`'s `StatementSync` answers. */
export interface Statement {
  /** Every row, as objects keyed by column. */
  all(...params: SQLInputValue[]): unknown[];
  /** The first row, or undefined. */
  get(...params: SQLInputValue[]): unknown;
  /** The rows one at a time as SQLite steps to them; returning early ends the statement. */
  iterate(...params: SQLInputValue[]): Iterator<unknown>;
  /** Whether integers are read as BigInts (exact past 2^53) rather than numbers. */
  setReadBigInts(enabled: boolean): void;
}

/** A read-only connection. */
export interface Database {
  /** `sql` prepared; throws for SQL the database cannot prepare. */
  prepare(sql: string): Statement;
  /** `sql` run for its effect (a pragma). */
  exec(sql: string): void;
  /** Closes the connection and frees its copy of the database. */
  close(): void;
}
