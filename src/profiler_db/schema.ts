/**
 * The tables and columns a profiler database actually holds, as `load_report` discovered
 * them, and the check each database tool makes against exactly what it reads: tt-metal's
 * writers have added, dropped and reshaped tables many times, so nothing assumes one version.
 *
 * @module
 */
import { PROFILER_DB_NAME } from "./probe.ts";

/** What a tool reads: table → the columns it needs from it. */
export type Needs = Readonly<Record<string, readonly string[]>>;

/** A database's tables and columns, looked up case-insensitively as SQLite does. */
export class Schema {
  #tables = new Map<string, Set<string>>();

  /** From the probe's table → columns map. */
  constructor(columns: Readonly<Record<string, readonly string[]>>) {
    for (const [table, cols] of Object.entries(columns)) {
      this.#tables.set(table.toLowerCase(), new Set(cols.map((c) => c.toLowerCase())));
    }
  }

  /** Whether the table exists. */
  has(table: string): boolean {
    return this.#tables.has(table.toLowerCase());
  }

  /** Whether the table exists and has the column. */
  hasColumn(table: string, column: string): boolean {
    return this.#tables.get(table.toLowerCase())?.has(column.toLowerCase()) ?? false;
  }

  /**
   * Why these needs cannot be met, naming every missing table and column, or null.
   *
   * @example
   * ```ts
   * import { Schema } from "./schema.ts";
   * const s = new Schema({ operations: ["operation_id", "name"], buffers: ["operation_id"] });
   * if (s.unmet({ operations: ["operation_id", "name"] }) !== null) throw new Error();
   * if (s.unmet({ tensors: ["tensor_id"] }) !== "db.sqlite has no `tensors` table") throw new Error();
   * if (s.unmet({ buffers: ["operation_id", "address"] }) !== "`buffers` in db.sqlite has no `address` column") throw new Error();
   * ```
   */
  unmet(needs: Needs): string | null {
    const problems: string[] = [];
    const absentTables = Object.keys(needs).filter((t) => !this.has(t));
    if (absentTables.length > 0) {
      problems.push(
        `${PROFILER_DB_NAME} has no ${absentTables.map((t) => `\`${t}\``).join(", ")} table${
          absentTables.length > 1 ? "s" : ""
        }`,
      );
    }
    for (const [table, cols] of Object.entries(needs)) {
      if (!this.has(table)) continue;
      const absent = cols.filter((c) => !this.hasColumn(table, c));
      if (absent.length > 0) {
        problems.push(
          `\`${table}\` in ${PROFILER_DB_NAME} has no ${
            absent.map((c) => `\`${c}\``).join(", ")
          } column${absent.length > 1 ? "s" : ""}`,
        );
      }
    }
    return problems.length > 0 ? problems.join("; ") : null;
  }
}
