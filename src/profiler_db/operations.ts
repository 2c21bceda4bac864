/**
 * Operations as the profiler database records them: id, name and host duration (seconds of
 * host wall time, not device time), found by name or by where in the model code they were
 * called from, at one rank.
 *
 * @module
 */
import { ident, type ProfilerDb, row, rows } from "./connection.ts";
import { andRank, type RankScope } from "./host_rank.ts";

/** One operation. */
export interface Operation {
  operation_id: number;
  name: string | null;
  /** Host wall seconds; null when the report has no duration column or value. */
  duration: number | null;
}

/** An operation as a search lists it: its id null where the database records none. */
export interface ListedOperation extends Omit<Operation, "operation_id"> {
  operation_id: number | null;
}

/** What `find_operations` searches by; both narrow together. */
export interface OperationSearch {
  /** Case-insensitive substring of the name; empty means any name. */
  nameContains: string;
  /** Case-insensitive substring anywhere in the recorded stack trace, or null for no filter. */
  calledFrom: string | null;
  limit: number;
}

/**
 * A LIKE pattern matching `needle` as a literal substring: `%`, `_` and the escape character
 * itself are escaped, so they match only themselves. SQLite's LIKE ignores ASCII case.
 *
 * @example
 * ```ts
 * import { likeSubstring } from "./operations.ts";
 * if (likeSubstring("to_m%") !== "%to\\_m\\%%") throw new Error();
 * ```
 */
export function likeSubstring(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The SQL condition that `column` holds `needle` as a literal substring, ignoring ASCII case,
 * and its one parameter. SQLite reads a LIKE pattern only up to a NUL (so `%\0%` would match
 * every row); a needle holding one is compared with `instr`, which reads every byte.
 *
 * @example
 * ```ts
 * import { containsCondition } from "./operations.ts";
 * if (containsCondition("name", "a\0b").sql !== "instr(lower(name), lower(?)) > 0") throw new Error();
 * if (containsCondition("name", "to_m").param !== "%to\\_m%") throw new Error();
 * ```
 */
export function containsCondition(column: string, needle: string): { sql: string; param: string } {
  if (needle.includes("\0")) return { sql: `instr(lower(${column}), lower(?)) > 0`, param: needle };
  return { sql: `${column} LIKE ? ESCAPE '\\'`, param: likeSubstring(needle) };
}

function columns(pdb: ProfilerDb): string {
  return pdb.schema.hasColumn("operations", "duration")
    ? "operation_id, name, duration"
    : "operation_id, name, NULL AS duration";
}

/**
 * The operations matching a search, in id order, up to the limit, with the count of every
 * match. Needles are literal substrings (no `%`/`_` wildcards), compared case-insensitively.
 */
export function findOperations(
  pdb: ProfilerDb,
  scope: RankScope,
  search: OperationSearch,
): { matchCount: number; operations: ListedOperation[] } {
  let where = `WHERE 1 = 1${andRank(pdb, scope, "operations")}`;
  const params: string[] = [];
  if (search.nameContains !== "") {
    const name = containsCondition("name", search.nameContains);
    where += ` AND ${name.sql}`;
    params.push(name.param);
  }
  if (search.calledFrom === null) {
    const count = row<{ n: number }>(
      pdb,
      `SELECT COUNT(*) AS n FROM operations ${where}`,
      ...params,
    );
    const found = rows<RawOperation>(
      pdb,
      `SELECT ${columns(pdb)} FROM operations ${where} ORDER BY operation_id LIMIT ${search.limit}`,
      ...params,
    );
    return { matchCount: count?.n ?? 0, operations: found.map(listed) };
  }
  if (!tracesReadable(pdb)) return { matchCount: 0, operations: [] };
  // One statement: every trace is searched once (the ids it finds kept for the count and the
  // listing alike), where a count and a listing apart would each search them all.
  where += " AND operation_id IN traced";
  const trace = containsCondition("stack_trace", search.calledFrom);
  const found = rows<RawOperation & { n: number }>(
    pdb,
    `WITH traced AS MATERIALIZED (SELECT operation_id FROM stack_traces WHERE ${trace.sql}` +
      `${andRank(pdb, scope, "stack_traces")}) ` +
      `SELECT ${columns(pdb)}, (SELECT COUNT(*) FROM operations ${where}) AS n ` +
      `FROM operations ${where} ORDER BY operation_id LIMIT ${search.limit}`,
    trace.param,
    ...params,
    ...params,
  );
  // No row listed: no match at all (the limit is at least 1).
  return { matchCount: found[0]?.n ?? 0, operations: found.map(listed) };
}

/** Whether the report has a stack_traces table with the columns a search reads. */
function tracesReadable(pdb: ProfilerDb): boolean {
  return pdb.schema.hasColumn("stack_traces", "operation_id") &&
    pdb.schema.hasColumn("stack_traces", "stack_trace");
}

/** Whether the report records any stack trace text at the rank. */
export function recordsTraces(pdb: ProfilerDb, scope: RankScope): boolean {
  if (!tracesReadable(pdb)) return false;
  return row(
    pdb,
    `SELECT 1 FROM stack_traces WHERE stack_trace IS NOT NULL AND stack_trace != ''${
      andRank(pdb, scope, "stack_traces")
    } LIMIT 1`,
  ) !== undefined;
}

/**
 * One operation at the rank, or null. The id matches a number, or the same number stored as
 * text (a writer that bound every value as a string, into columns declared without a type).
 */
export function operationById(pdb: ProfilerDb, scope: RankScope, id: number): Operation | null {
  const found = row<RawOperation>(
    pdb,
    `SELECT ${columns(pdb)} FROM operations WHERE operation_id IN (?, ?)${
      andRank(pdb, scope, "operations")
    } LIMIT 1`,
    id,
    String(id),
  );
  return found ? { ...listed(found), operation_id: id } : null;
}

/** The names of these operations at the rank (ids without a row are absent from the map). */
export function operationNames(
  pdb: ProfilerDb,
  scope: RankScope,
  ids: readonly number[],
): Map<number, string | null> {
  const out = new Map<number, string | null>();
  const wanted = [...new Set(ids.filter(Number.isInteger))];
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500);
    for (
      const r of rows<{ operation_id: number; name: string | null }>(
        pdb,
        `SELECT operation_id, name FROM ${ident("operations")} WHERE operation_id IN (${
          chunk.join(", ")
        })${andRank(pdb, scope, "operations")}`,
      )
    ) out.set(Number(r.operation_id), r.name);
  }
  return out;
}

/** Why an operation id names nothing, as a refusal says it. */
export function noOperation(id: number, scope: RankScope): string {
  return `no operation ${id} in this report${scope.rank === null ? "" : ` at rank ${scope.rank}`}` +
    " (a profiler operation_id; a top_ops row id is a different id space — pass the row's " +
    "operation_id, or search with find_operations)";
}

/** An operations row as SQLite gives it. */
interface RawOperation {
  operation_id: unknown;
  name: unknown;
  duration: unknown;
}

/** A row as listed: a NULL id stays null (never 0), as does an id that is not a number. */
function listed(op: RawOperation): ListedOperation {
  const id = op.operation_id === null || op.operation_id === undefined || op.operation_id === ""
    ? null
    : Number(op.operation_id);
  return {
    operation_id: id !== null && Number.isFinite(id) ? id : null,
    name: op.name === null ? null : String(op.name),
    duration: op.duration === null || op.duration === undefined ? null : Number(op.duration),
  };
}
