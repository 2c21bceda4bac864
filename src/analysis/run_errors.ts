/**
 * The errors a run recorded, as the web application shows them. An error row belongs to an
 * operation only when its operation id **and** name match one at the rank; when several rows
 * share that key the first is the operation's error and the rest are unattached. tt-metal's
 * importer writes an error it cannot place at its file's base id (0, 10000, …), so an id
 * alone can name an unrelated operation: an unattached error keeps its id as recorded, with
 * `attached: false`, and is not one to open. Attached errors are listed first. Each error carries its
 * allocation failure, when it is one, and the device operations whose launch did not complete
 * in its operation's graph.
 *
 * @module
 */
import {
  andRank,
  ident,
  launchesIn,
  PROFILER_DB_NAME,
  type ProfilerDb,
  type RankScope,
  row,
  rows,
  unattributable,
} from "../profiler_db/mod.ts";
import {
  type AllocationFailure,
  diagnose,
  type Diagnosis,
  FIGURES_READ_CHARS,
  parseAllocationFailure,
} from "./allocation_failure.ts";
import { VALUE_CAP_CHARS } from "./provenance.ts";

/** At most this many failed device operations are named per error. */
export const MAX_FAILED_DEVICE_OPERATIONS = 20;

/** A failed device operation's name is cut at this many characters. */
export const NAME_CAP_CHARS = 200;

/** A captured graph longer than this many characters is not read. */
export const MAX_GRAPH_CHARS = 64 * 1024 * 1024;

/** The error_type of an operation that started and never completed. */
export const INCOMPLETE_OPERATION = "incomplete_operation";

/** One error, as an answer gives it. */
export interface ErrorView {
  /**
   * The id as the row records it (null when the row has none). When `attached` is false it
   * names no operation of this name, so it is not one to open.
   */
  operation_id: number | null;
  operation_name: string | null;
  attached: boolean;
  error_type: string | null;
  error_message: string | null;
  error_message_truncated?: true;
  error_message_full_length?: number;
  allocation_failure: AllocationFailure | null;
  diagnosis: Diagnosis | null;
  /** Device operations whose launch did not complete; null when not read (see the reason). */
  failed_device_operations: string[] | null;
  failed_device_operation_count: number | null;
  failed_device_operations_unavailable?: string;
}

/** Every error at the rank, with counts, and the first `limit` in row order. */
export interface ErrorList {
  count: number;
  attachedCount: number;
  incompleteCount: number;
  listed: ErrorView[];
}

/** Whether the report has an errors table this module can read (it needs operation_id). */
export function errorsTableProblem(pdb: ProfilerDb): string | null {
  if (!pdb.schema.has("errors")) return null;
  return pdb.schema.hasColumn("errors", "operation_id")
    ? null
    : `\`errors\` in ${PROFILER_DB_NAME} has no \`operation_id\` column`;
}

interface KeyRow {
  rid: number;
  operation_id: unknown;
  operation_name: unknown;
  error_type: unknown;
  known: number;
}

/** An error row's key, and whether it is attached to an operation. */
export type KeyedError = KeyRow & { attached: boolean };

/** The column naming an error's operation: operation_name, or error_operation on W2a. */
function nameColumn(pdb: ProfilerDb): string | null {
  if (pdb.schema.hasColumn("errors", "operation_name")) return "operation_name";
  if (pdb.schema.hasColumn("errors", "error_operation")) return "error_operation";
  return null;
}

/** Every error row's key and whether it is attached, in row order (memoised per rank). */
export function keyed(pdb: ProfilerDb, scope: RankScope): KeyedError[] {
  const key = `errors-keyed-${scope.rank}`;
  if (pdb.memo.has(key)) return pdb.memo.get(key) as KeyedError[];
  const name = nameColumn(pdb);
  const nameSql = name === null ? "NULL" : `e.${ident(name)}`;
  const typeSql = pdb.schema.hasColumn("errors", "error_type") ? "e.error_type" : "NULL";
  const found = rows<KeyRow>(
    pdb,
    `SELECT e.rowid AS rid, e.operation_id AS operation_id, ${nameSql} AS operation_name, ` +
      `${typeSql} AS error_type, EXISTS (SELECT 1 FROM operations o WHERE ` +
      `o.operation_id = e.operation_id AND o.name = ${nameSql} AND ${nameSql} <> ''` +
      `${andRank(pdb, scope, "operations", "o")}) AS known FROM errors e WHERE 1 = 1` +
      `${andRank(pdb, scope, "errors", "e")} ORDER BY e.rowid`,
  );
  const seen = new Set<string>();
  const out = found.map((r) => {
    const k = `${r.operation_id}\u0000${r.operation_name}`;
    const attached = Number(r.known) === 1 && !seen.has(k);
    if (attached) seen.add(k);
    return { ...r, attached };
  });
  pdb.memo.set(key, out);
  return out;
}

/**
 * The errors at the rank: counts of all of them and the first `limit`, attached ones first,
 * each kind in row order.
 */
export function listErrors(pdb: ProfilerDb, scope: RankScope, limit: number): ErrorList {
  const all = keyed(pdb, scope);
  const ordered = [...all.filter((r) => r.attached), ...all.filter((r) => !r.attached)];
  return {
    count: all.length,
    attachedCount: all.filter((r) => r.attached).length,
    incompleteCount: all.filter((r) => r.error_type === INCOMPLETE_OPERATION).length,
    listed: ordered.slice(0, limit).map((r) => errorView(pdb, scope, r)),
  };
}

/**
 * operation_detail's `error`: the error attached to an operation — the first row whose id and
 * name match it — or null, with a caveat when null does not mean "no error": the report
 * predates the errors table, or its rows cannot be attributed to the rank (then the error is
 * withheld rather than taken from another rank). Its failed_device_operations follow the same
 * rules as in `errors`.
 */
export function operationErrorField(
  pdb: ProfilerDb,
  scope: RankScope,
  operationId: number,
): { error: ErrorView | null; caveat: string | null } {
  if (!pdb.schema.has("errors")) {
    return {
      error: null,
      caveat: "This report predates the errors table, so error is null whether or not the " +
        "operation failed.",
    };
  }
  const problem = errorsTableProblem(pdb) ?? unattributable(pdb, scope, ["errors"]);
  if (problem !== null) return { error: null, caveat: `error is withheld: ${problem}.` };
  const hit = keyed(pdb, scope).find((r) => r.attached && Number(r.operation_id) === operationId);
  return { error: hit ? errorView(pdb, scope, hit) : null, caveat: null };
}

/**
 * The ids of operations at the rank whose attached error is an allocation failure on L1
 * (a bank failure of L1 or L1_SMALL, or either circular-buffer failure), ascending.
 */
export function l1AllocationFailures(pdb: ProfilerDb, scope: RankScope): number[] {
  if (!pdb.schema.has("errors") || errorsTableProblem(pdb) !== null) return [];
  if (unattributable(pdb, scope, ["errors"]) !== null) return [];
  const ids = new Set<number>();
  for (const r of keyed(pdb, scope)) {
    if (!r.attached) continue;
    const f = parseAllocationFailure(message(pdb, r.rid).head);
    if (f === null) continue;
    const onL1 = f.kind === "circular_buffers_beyond_l1" || f.kind === "circular_buffers_clash" ||
      f.buffer_type === "L1" || f.buffer_type === "L1_SMALL";
    if (onL1) ids.add(Number(r.operation_id));
  }
  return [...ids].sort((a, b) => a - b);
}

/** The first characters of an error's message (its figures are read from them) and its length. */
export function message(pdb: ProfilerDb, rid: number): { head: string | null; full: number } {
  if (!pdb.schema.hasColumn("errors", "error_message")) return { head: null, full: 0 };
  const r = row<{ head: string | null; full: number | null }>(
    pdb,
    `SELECT substr(CAST(error_message AS TEXT), 1, ${FIGURES_READ_CHARS}) AS head, ` +
      `length(CAST(error_message AS TEXT)) AS full FROM errors WHERE rowid = ?`,
    rid,
  );
  return { head: r?.head ?? null, full: Number(r?.full ?? 0) };
}

/** One error row as an answer gives it. */
export function errorView(pdb: ProfilerDb, scope: RankScope, r: KeyedError): ErrorView {
  const { head, full } = message(pdb, r.rid);
  const failure = parseAllocationFailure(head);
  const cut = head !== null && full > VALUE_CAP_CHARS;
  const launches: Pick<
    ErrorView,
    | "failed_device_operations"
    | "failed_device_operation_count"
    | "failed_device_operations_unavailable"
  > = r.attached ? failedLaunches(pdb, scope, Number(r.operation_id)) : {
    failed_device_operations: null,
    failed_device_operation_count: null,
    failed_device_operations_unavailable: "the error is not attached to an operation, so no " +
      "captured graph is its own",
  };
  const id = r.operation_id === null ? null : Number(r.operation_id);
  return {
    operation_id: id,
    operation_name: r.operation_name === null ? null : String(r.operation_name),
    attached: r.attached,
    error_type: r.error_type === null ? null : String(r.error_type),
    error_message: head === null ? null : cut ? head.slice(0, VALUE_CAP_CHARS) : head,
    ...(cut ? { error_message_truncated: true as const, error_message_full_length: full } : {}),
    allocation_failure: failure,
    diagnosis: failure === null ? null : diagnose(failure),
    ...launches,
  };
}

/** The failed launches in an operation's captured graph, or why they are not given. */
function failedLaunches(
  pdb: ProfilerDb,
  scope: RankScope,
  operationId: number,
): Pick<
  ErrorView,
  | "failed_device_operations"
  | "failed_device_operation_count"
  | "failed_device_operations_unavailable"
> {
  const none = (why: string) => ({
    failed_device_operations: null,
    failed_device_operation_count: null,
    failed_device_operations_unavailable: why,
  });
  if (
    !pdb.schema.hasColumn("captured_graph", "captured_graph") ||
    !pdb.schema.hasColumn("captured_graph", "operation_id")
  ) {
    return none("the report records no captured graph");
  }
  const guard = unattributable(pdb, scope, ["captured_graph"]);
  if (guard !== null) return none(`withheld: ${guard}`);
  const where = `WHERE operation_id = ?${andRank(pdb, scope, "captured_graph")}`;
  const sizes = rows<{ rid: number; n: number | null }>(
    pdb,
    `SELECT rowid AS rid, length(CAST(captured_graph AS TEXT)) AS n FROM captured_graph ${where} ` +
      "ORDER BY rowid",
    operationId,
  );
  if (sizes.length === 0) return none("the report records no captured graph for this operation");
  const failed: string[] = [];
  for (const s of sizes) {
    if (Number(s.n ?? 0) > MAX_GRAPH_CHARS) {
      return none(
        `withheld: its captured graph is past the ${MAX_GRAPH_CHARS} characters a tool ` +
          "will read",
      );
    }
    const text = row<{ g: string | null }>(
      pdb,
      "SELECT CAST(captured_graph AS TEXT) AS g FROM captured_graph WHERE rowid = ?",
      s.rid,
    )?.g ?? "";
    let graph: unknown;
    try {
      graph = text.trim() === "" ? [] : JSON.parse(text);
    } catch {
      return none("withheld: its captured graph does not parse as JSON");
    }
    const launches = launchesIn(graph);
    if (typeof launches === "string") return none(`withheld: ${launches}`);
    failed.push(...launches.failed);
  }
  return {
    failed_device_operations: failed.slice(0, MAX_FAILED_DEVICE_OPERATIONS).map((n) =>
      n.slice(0, NAME_CAP_CHARS)
    ),
    failed_device_operation_count: failed.length,
  };
}
