/**
 * How performance rows relate to profiler operations. Neither report records the other's id,
 * so a handle holding both aligns, in order, the device operations each profiler operation
 * launched (its captured graph, at rank 0) against the whole report's performance rows, host
 * ops and signposts left out. The match is all or nothing: `linked`, `unlinked` (both read,
 * the sequences do not line up; no id is guessed) or `unavailable` (never tried, and why).
 * Resolved once per handle, as shared work that says how much captured graph it has read; a
 * failure that may pass next time (a locked or unreadable database) is not kept.
 *
 * @module
 */
import type { LoadedReport, ReportCall } from "../session/handles.ts";
import type { PerfRow } from "../perf_report/mod.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  andRank,
  eachRow,
  type ProfilerDb,
  rankScope,
  ranksOf,
  rows,
  Schema,
  unattributable,
} from "../profiler_db/mod.ts";
import { Refusal } from "../kit/refusal.ts";
import { launchedDeviceOperations, UnreadableGraph } from "./_link_graph.ts";
import { type DeviceOp, type MatchedOn, matchSequences } from "./_link_align.ts";
import { profilerDb, profilerDbUnavailable } from "../session/profiler_db.ts";
import { SharedWork } from "../kit/shared_work.ts";
import type { Progress } from "../kit/progress.ts";
import { WorkClock } from "../kit/work_clock.ts";

/** How the link went for a handle. */
export type OperationLink =
  | {
    status: "linked";
    /** The rank the operation ids belong to (the CSV records none; 0 by convention). */
    rank: number;
    matchedOn: MatchedOn;
    /** Performance row id (CSV line) → profiler operation id. */
    operationByPerfId: Map<number, number>;
    /** Profiler operation id → the performance row ids it launched, in report order. */
    perfRowsByOperation: Map<number, number[]>;
  }
  | { status: "unlinked" | "unavailable"; reason: string };

/** Characters of captured graph the link reads at most (summed before any is loaded). */
export const MAX_GRAPH_CHARS = 2 ** 30;

const CACHE_KEY = "operation-link";

const UNLINKED_REASON = "the device operations this profiler report launched do not line up, " +
  "in order, with the performance rows -- usually two different runs, or a performance " +
  "capture that stopped early. No id is guessed; use find_operations with the op name instead.";

const NO_GRAPH_REASON = "this capture records no captured graph, so it holds no device " +
  "operations to align against the performance rows";

/** A resolution that may pass next time, so is not kept. */
class Transient extends Error {}

/** What the link's progress counts. */
export const LINK_PROGRESS_MESSAGE = "characters of captured graph read to link performance rows";

/**
 * The handle's link, resolved on first use and kept, except after a read that may pass next
 * time. Calls that ask while it is being resolved wait for the same resolution, each hearing
 * its progress (characters of captured graph read, of the rank's total). Never rejects for
 * what the files hold: every failure is an `unavailable` with a reason. A capture whose
 * captured graphs at the linked rank hold more than `maxGraphChars` characters is not read.
 */
export async function operationLink(
  { report, signal, progress }: ReportCall,
  maxGraphChars: number = MAX_GRAPH_CHARS,
): Promise<OperationLink> {
  let work = report.cache.get(CACHE_KEY) as SharedWork<OperationLink> | undefined;
  if (work === undefined) {
    const started: SharedWork<OperationLink> = new SharedWork(
      (stop, heard) => resolve(report, maxGraphChars, stop, heard),
      () => {
        if (report.cache.get(CACHE_KEY) === started) report.cache.delete(CACHE_KEY);
      },
    );
    report.cache.set(CACHE_KEY, work = started);
  }
  try {
    return await work.join(signal, progress);
  } catch (e) {
    if (e instanceof Transient) return { status: "unavailable", reason: e.message };
    throw e;
  }
}

/** The profiler operation a performance row links to, or null. */
export function operationIdOf(link: OperationLink, perfId: number): number | null {
  return link.status === "linked" ? link.operationByPerfId.get(perfId) ?? null : null;
}

/** The rows the link aligns: the report's rows without host ops and signposts. */
export function alignableRows(rows: readonly PerfRow[]): PerfRow[] {
  return rows.filter((r) => !r.is_host_op && r.op_type !== "signpost");
}

function unavailable(reason: string): OperationLink {
  return { status: "unavailable", reason };
}

async function resolve(
  report: LoadedReport,
  maxGraphChars: number,
  signal: AbortSignal,
  progress: Progress,
): Promise<OperationLink> {
  const inv = report.inventory;
  if (!inv.performance) {
    return unavailable(
      "this handle was loaded without a performance_path, so no profiler " +
        "operation can be linked to a performance row",
    );
  }
  if (!inv.profiler) {
    return unavailable("this handle was loaded without a profiler_path, so operation_id is null");
  }
  const perfWhy = performanceCsvUnavailable(inv);
  const whole = inv.performance.whole;
  if (perfWhy !== null || !whole) {
    return unavailable(`the performance report could not be read: ${perfWhy ?? "no report"}`);
  }
  const dbWhy = profilerDbUnavailable(inv);
  if (dbWhy !== null) {
    return unavailable(
      inv.profiler.db ? `the profiler database could not be read: ${dbWhy}` : dbWhy,
    );
  }
  const schema = new Schema(inv.profiler.db!.columns);
  if (!schema.hasColumn("operations", "operation_id")) {
    return unavailable("the profiler database records no operations to link rows to");
  }
  if (
    !schema.hasColumn("captured_graph", "operation_id") ||
    !schema.hasColumn("captured_graph", "captured_graph")
  ) return unavailable(NO_GRAPH_REASON);
  try {
    return await resolveFromDb(report, whole.rows, maxGraphChars, signal, progress);
  } catch (e) {
    // A database read that failed (locked, corrupt page): may pass next time.
    if (e instanceof Refusal) throw new Transient(e.message);
    throw e;
  }
}

async function resolveFromDb(
  report: LoadedReport,
  perfRows: readonly PerfRow[],
  maxGraphChars: number,
  signal: AbortSignal,
  progress: Progress,
): Promise<OperationLink> {
  const pdb = profilerDb({ tool: "the operation link", report }, { operations: ["operation_id"] });
  ranksOf(pdb); // a read failure here may pass next time; the refusal below is the capture's
  let scope;
  try {
    scope = rankScope(pdb, undefined);
  } catch (e) {
    if (e instanceof Refusal) return unavailable(e.message);
    throw e;
  }
  const guard = unattributable(pdb, scope, ["captured_graph", "devices"]);
  if (guard !== null) return unavailable(guard);
  const size = rows<{ n: number | null }>(
    pdb,
    `SELECT SUM(LENGTH(captured_graph)) AS n FROM captured_graph WHERE 1 = 1${
      andRank(pdb, scope, "captured_graph")
    }`,
  )[0]?.n ?? 0;
  if (size > maxGraphChars) {
    return unavailable(
      `this capture holds ${size.toLocaleString("en-US")} characters of captured graph, past ` +
        `the ${maxGraphChars.toLocaleString("en-US")} the link will read`,
    );
  }
  const ids = new Set(
    rows<{ id: number }>(
      pdb,
      `SELECT operation_id AS id FROM operations WHERE 1 = 1${andRank(pdb, scope, "operations")}`,
    ).map((r) => Number(r.id)),
  );
  const launched = await launchedOperations(
    pdb,
    `SELECT operation_id AS id, captured_graph AS graph FROM captured_graph WHERE 1 = 1${
      andRank(pdb, scope, "captured_graph")
    } ORDER BY operation_id, rowid`,
    ids,
    size,
    signal,
    progress,
  );
  if (typeof launched === "string") return unavailable(launched);
  const { starts, ends } = launched;
  const devices = pdb.schema.hasColumn("devices", "device_id")
    ? Number(
      rows<{ n: number }>(
        pdb,
        `SELECT COUNT(DISTINCT device_id) AS n FROM devices WHERE 1 = 1${
          andRank(pdb, scope, "devices")
        }`,
      )[0]?.n ?? 0,
    )
    : 0;
  const match = matchSequences(starts, ends, alignableRows(perfRows), devices);
  if (!match) return { status: "unlinked", reason: UNLINKED_REASON };
  const operationByPerfId = new Map<number, number>();
  const perfRowsByOperation = new Map<number, number[]>();
  for (const { op, row } of match.pairs) {
    operationByPerfId.set(row.id, op.operation_id);
    const list = perfRowsByOperation.get(op.operation_id) ?? [];
    list.push(row.id);
    perfRowsByOperation.set(op.operation_id, list);
  }
  return {
    status: "linked",
    rank: scope.rank ?? 0,
    matchedOn: match.matchedOn,
    operationByPerfId,
    perfRowsByOperation,
  };
}

/**
 * The device operations each operation's captured graph launched, in operation order (only
 * operations in `ids`), or why a graph cannot be read. The rows are read one at a time, the
 * event loop let in every few tens of milliseconds (so a cancellation stops the read), and
 * `progress` hears the characters read of the rank's `total`.
 */
async function launchedOperations(
  pdb: ProfilerDb,
  sql: string,
  ids: ReadonlySet<number>,
  total: number,
  signal: AbortSignal,
  progress: Progress,
): Promise<{ starts: DeviceOp[]; ends: DeviceOp[] } | string> {
  const starts: DeviceOp[] = [];
  const ends: DeviceOp[] = [];
  const clock = new WorkClock();
  let read = 0;
  let any = false;
  for (const { id, graph } of eachRow<{ id: number; graph: unknown }>(pdb, sql)) {
    read += typeof graph === "string" ? graph.length : 0;
    // JavaScript counts a character past U+FFFF twice, SQLite's LENGTH once: never past the end.
    if (total > 0) progress.report(Math.min(read, total - 1), total, LINK_PROGRESS_MESSAGE);
    const operation_id = Number(id);
    if (!ids.has(operation_id)) continue;
    any = true;
    let launched;
    try {
      if (graph !== null && typeof graph !== "string") throw new UnreadableGraph("not text");
      launched = launchedDeviceOperations(graph ?? "");
    } catch (e) {
      if (!(e instanceof UnreadableGraph)) throw e;
      return `the captured graph for operation ${operation_id} cannot be read (${e.message})`;
    }
    for (const name of launched.starts) starts.push({ operation_id, name });
    for (const name of launched.ends) ends.push({ operation_id, name });
    await clock.tick();
    signal.throwIfAborted();
  }
  if (!any) return NO_GRAPH_REASON;
  if (total > 0) progress.report(total, total, LINK_PROGRESS_MESSAGE);
  return { starts, ends };
}

/** What `operation_id` means, said once on every answer whose handle holds a profiler report. */
const NOTE = "operation_id is the profiler database's operation id at the rank named when " +
  "linked -- pass it to operation_detail or operation_provenance; a row's id is its line in " +
  "the performance CSV, a different id space. operation_id is null on every row unless status " +
  "is linked, and on a linked pair null for host ops, signposts and rows past the end of the " +
  "profiler capture: read unlinked_by_reason for those counts rather than counting null ids " +
  "among the ranked rows.";

/** Why the whole report's rows that did not link did not. */
export interface UnlinkedByReason {
  signpost: number;
  host_op: number;
  past_profiler_capture: number;
}

/** The `operation_link` block of an answer: how its rows relate to profiler operations. */
export interface OperationLinkBlock {
  status: OperationLink["status"];
  /** When linked. */
  rank?: number;
  matched_on?: MatchedOn;
  matched_rows?: number;
  /** When not linked. */
  reason?: string;
  /** When the handle holds a profiler report. */
  note?: string;
  /** When linked. */
  unlinked_row_count?: number;
  unlinked_by_reason?: UnlinkedByReason;
  first_past_profiler_capture_id?: string | null;
  /** When the answer covers a signpost window. */
  scope?: "whole_report";
}

/**
 * The `operation_link` block of an answer computed from `whole`, the whole report's rows:
 * status and reason, the rank and counts when linked (every unlinked row classified as a
 * signpost, a host op or past the profiler capture), the note when the handle holds a
 * profiler report, and `scope: whole_report` when the answer itself covers a signpost window.
 */
export function operationLinkBlock(
  report: LoadedReport,
  link: OperationLink,
  whole: readonly PerfRow[],
  options: { ranged?: boolean } = {},
): OperationLinkBlock {
  return {
    status: link.status,
    ...(link.status === "linked"
      ? {
        rank: link.rank,
        matched_on: link.matchedOn,
        matched_rows: link.operationByPerfId.size,
      }
      : { reason: link.reason }),
    ...(report.inventory.profiler ? { note: NOTE } : {}),
    ...(link.status === "linked" ? unlinkedRows(link.operationByPerfId, whole) : {}),
    ...(options.ranged ? { scope: "whole_report" as const } : {}),
  };
}

/** How many of `whole` did not link, why, and the first that ran past the profiler capture. */
function unlinkedRows(linked: ReadonlyMap<number, number>, whole: readonly PerfRow[]) {
  const byReason: UnlinkedByReason = { signpost: 0, host_op: 0, past_profiler_capture: 0 };
  let firstPast: string | null = null;
  for (const row of whole) {
    if (linked.has(row.id)) continue;
    if (row.op_type === "signpost") byReason.signpost++;
    else if (row.is_host_op) byReason.host_op++;
    else {
      byReason.past_profiler_capture++;
      firstPast ??= String(row.id);
    }
  }
  return {
    unlinked_row_count: byReason.signpost + byReason.host_op + byReason.past_profiler_capture,
    unlinked_by_reason: byReason,
    first_past_profiler_capture_id: firstPast,
  };
}
