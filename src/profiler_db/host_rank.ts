/**
 * Reading a multi-host report one rank at a time. Operation ids restart at 1 per rank, so
 * reading every rank at once would collide operations that merely share an id: a report whose
 * `operations` carries a `rank` column is read at one rank (0 unless asked), every table that
 * carries the column is narrowed to it, the answer names the rank with a caveat, and a table
 * the answer needs that lacks the column — whose rows would silently union every rank — is
 * refused (or, where it feeds only an optional field, withheld) rather than attributed.
 *
 * @module
 */
import { Refusal } from "../kit/refusal.ts";
import { memo, type ProfilerDb, rows } from "./connection.ts";

/** The rank a call reads, and how to narrow each table to it. */
export interface RankScope {
  /** Whether `operations` carries a rank column. */
  multiHost: boolean;
  /** The rank read; null on a report without ranks. */
  rank: number | null;
  /** The ranks `operations` holds, ascending (empty without the column). */
  ranks: number[];
}

/** The ranks `operations` holds, ascending. */
export function ranksOf(pdb: ProfilerDb): number[] {
  if (!pdb.schema.hasColumn("operations", "rank")) return [];
  return memo(pdb, "ranks", () =>
    rows<{ rank: number }>(
      pdb,
      "SELECT DISTINCT rank FROM operations WHERE rank IS NOT NULL ORDER BY rank",
    ).map((r) => Number(r.rank)));
}

/**
 * The scope for a requested rank: 0 by default on a multi-host report, refused when the
 * report holds no rows at that rank, and refused when a rank other than 0 is asked of a
 * report that has no ranks.
 */
export function rankScope(pdb: ProfilerDb, requested: number | undefined): RankScope {
  const multiHost = pdb.schema.hasColumn("operations", "rank");
  if (!multiHost) {
    if (requested !== undefined && requested !== 0) {
      throw new Refusal(
        `this report has no rank column, so it holds rank 0 only; rank ${requested} cannot be read`,
      );
    }
    return { multiHost, rank: null, ranks: [] };
  }
  const ranks = ranksOf(pdb);
  const rank = requested ?? 0;
  if (!ranks.includes(rank)) {
    const holds = ranks.length > 0 ? `it holds ${ranks.join(", ")}` : "it holds no operations";
    throw new Refusal(
      requested === undefined
        ? `this report has no rank 0, the rank read by default; ${holds}. Pass one as rank`
        : `this report has no rank ${rank}; ${holds}`,
    );
  }
  return { multiHost, rank, ranks };
}

/**
 * ` AND <alias.>rank = R` for a table that carries the column, else nothing: a table without
 * it is not narrowed (the attribution guard decides whether it may be read at all).
 */
export function andRank(pdb: ProfilerDb, scope: RankScope, table: string, alias = ""): string {
  if (scope.rank === null || !pdb.schema.hasColumn(table, "rank")) return "";
  return ` AND ${alias ? `${alias}.` : ""}rank = ${scope.rank}`;
}

/**
 * Why rows of `tables` cannot be attributed to the scope's rank, or null. Only a report that
 * holds more than one rank is affected; a table that is absent is not read, so not checked.
 */
export function unattributable(
  pdb: ProfilerDb,
  scope: RankScope,
  tables: readonly string[],
): string | null {
  if (scope.rank === null || scope.ranks.length < 2) return null;
  const lacking = tables.filter((t) => pdb.schema.has(t) && !pdb.schema.hasColumn(t, "rank"));
  if (lacking.length === 0) return null;
  return `this report carries \`rank\` on \`operations\` but not on ${
    lacking.map((t) => `\`${t}\``).join(", ")
  }, so ${lacking.length > 1 ? "their" : "its"} rows span ranks ${
    scope.ranks.join(", ")
  } and cannot be attributed to rank ${scope.rank}`;
}

/** Refuses when the tables an answer needs cannot be attributed to the rank. */
export function requireAttributable(
  pdb: ProfilerDb,
  scope: RankScope,
  tables: readonly string[],
): void {
  const why = unattributable(pdb, scope, tables);
  if (why !== null) throw new Refusal(why);
}

/** The caveat every answer at a rank carries, or null on a report without ranks. */
export function rankCaveat(scope: RankScope): string | null {
  if (scope.rank === null) return null;
  return `This is a multi-host report read at rank ${scope.rank} only (it holds rank${
    scope.ranks.length > 1 ? "s" : ""
  } ${scope.ranks.join(", ")}). Operation ids restart per rank, so figures here describe ` +
    `that rank rather than the job; pass rank to read another.`;
}

/** The fields every database answer carries: multi_host and the rank read. */
export function rankFields(scope: RankScope): { multi_host: boolean; rank: number | null } {
  return { multi_host: scope.multiHost, rank: scope.rank };
}

/** One caveat string from its parts (null and empty parts dropped), or undefined. */
export function joinCaveats(parts: readonly (string | null | undefined)[]): string | undefined {
  const kept = parts.filter((p): p is string => typeof p === "string" && p.length > 0);
  return kept.length > 0 ? kept.join(" ") : undefined;
}
