/**
 * The tables and columns a profiler database actually holds, as `load_report` discovered
 * them, and the check each database tool makes against exactly what it reads: tt-metal's
 * writers have added, dropped and reshaped tables many times, so nothing assumes one version.
 *
 * @module
 */
import type { Inventory } from "../report/inventory.ts";
import { PROFILER_DB_NAME } from "../readers/profiler_db.ts";

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

/** Why a handle has no readable profiler database, or null when it has one. */
export function profilerDbUnavailable(inv: Inventory): string | null {
  const prof = inv.profiler;
  if (!prof) {
    return "the handle was loaded without a profiler_path; memory and operation questions " +
      "need the profiler report directory";
  }
  if (!prof.db) return `no ${PROFILER_DB_NAME} in ${prof.dir}`;
  return prof.db.problem;
}

/**
 * A tool's `cannotAnswer`: the database is readable and holds every table and column in
 * `needs` — exactly what the tool reads, so a truncated capture is described truthfully — and,
 * on a report holding more than one rank, each of `ranked` that exists carries the rank
 * column (otherwise every call would be refused as unattributable).
 */
export function cannotAnswerFrom(
  needs: Needs,
  ranked: readonly string[] = [],
): (inv: Inventory) => string | null {
  return (inv) => {
    const why = profilerDbUnavailable(inv);
    if (why !== null) return why;
    const probe = inv.profiler!.db!;
    const schema = new Schema(probe.columns);
    const unmet = schema.unmet(needs);
    if (unmet !== null) return unmet;
    const ranks = probe.operationRanks ?? [];
    if (ranks.length < 2) return null;
    const lacking = ranked.filter((t) => schema.has(t) && !schema.hasColumn(t, "rank"));
    if (lacking.length === 0) return null;
    return `this report carries \`rank\` on \`operations\` but not on ${
      lacking.map((t) => `\`${t}\``).join(", ")
    }, so no rank of ${ranks.join(", ")} can be attributed ${
      lacking.length > 1 ? "their" : "its"
    } rows`;
  };
}
