/**
 * A handle's profiler database: whether it can answer a tool (the tables and columns the tool
 * reads, the rank column where ranks must be told apart), its read-only connection — opened
 * when a call needs it, through the very file load_report probed, and kept while it is among
 * the few most recently used (`open_databases.ts`) — and the rank a call reads.
 *
 * @module
 */
import type { Database } from "../profiler_db/mod.ts";
import { Refusal } from "../kit/refusal.ts";
import { SharedWork } from "../kit/shared_work.ts";
import type { FileIdentity } from "../kit/file_identity.ts";
import {
  dropKept,
  type Needs,
  openReadOnly,
  openReadOnlyChecked,
  PROFILER_DB_NAME,
  type ProfilerDb,
  type ProfilerDbProbe,
  type RankScope,
  rankScope,
  requireAttributable,
  Schema,
} from "../profiler_db/mod.ts";
import { type Activity, closedNow, type PooledConnection, usedNow } from "./open_databases.ts";
import type { Inventory } from "./inventory.ts";
import type { ReportCall } from "./handles.ts";

/** Where a handle's cache keeps its connection. */
const CACHE_KEY = "profiler-db";

/** Where a handle's cache keeps the open under way ahead of its calls, while it runs. */
const OPENING_KEY = "profiler-db-opening";

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

/**
 * The handle's database for `tool`, refusing when the handle has none, it cannot be read, or
 * it lacks what `needs` names (the same reason load_report gives for listing the tool).
 */
export function profilerDb({ report, tool }: ReportCall, needs: Needs): ProfilerDb {
  const why = profilerDbUnavailable(report.inventory);
  if (why !== null) throw new Refusal(`${tool} cannot answer: ${why}`);
  const probe = report.inventory.profiler!.db!;
  const schema = new Schema(probe.columns);
  const unmet = schema.unmet(needs);
  if (unmet !== null) throw new Refusal(`${tool} cannot answer for this capture: ${unmet}`);
  let open = report.cache.get(CACHE_KEY) as PooledDb | undefined;
  if (!open) {
    open = new PooledDb(
      probe,
      schema,
      report.activity,
      opening(() => openReadOnly(probe.path, probe.identity)),
    );
    report.cache.set(CACHE_KEY, open);
  }
  return open;
}

/**
 * Opens the handle's database ahead of a call, off the main thread's blocking calls (an open
 * that waits is given up), so the call finds it open; nothing when it has none or it is open.
 * Calls that arrive while it opens wait for that one open: each open holds a copy of the whole
 * file, so 50 calls at once must not start 50 (issue 30: the server grew past 24 GB and was
 * killed). Once every call waiting for it is cancelled, the open stops reading. An open that
 * fails is left for the call itself to meet (and refuse with), if it needs one. The copy the
 * load's probe made of that very file, unchanged, is taken rather than read again.
 */
export function prepareProfilerDb({ report, signal }: ReportCall): Promise<void> {
  if (profilerDbUnavailable(report.inventory) !== null) return Promise.resolve();
  const open = report.cache.get(CACHE_KEY) as PooledDb | undefined;
  if (open?.isOpen) {
    // A probe's copy of a file this handle has open already is not needed.
    dropKept(report.inventory.profiler!.db!.identity);
    return Promise.resolve();
  }
  let work = report.cache.get(OPENING_KEY) as SharedWork<void> | undefined;
  if (work === undefined) {
    const probe = report.inventory.profiler!.db!;
    const done = () => {
      if (report.cache.get(OPENING_KEY) === started) report.cache.delete(OPENING_KEY);
    };
    const started: SharedWork<void> = new SharedWork(async (stop) => {
      let db: Database;
      try {
        db = (await openReadOnlyChecked(probe.path, probe.identity, stop)).db;
      } catch (e) {
        if (stop.aborted) throw e;
        done();
        return;
      }
      done();
      if (stop.aborted) {
        db.close();
        stop.throwIfAborted();
      }
      const now = report.cache.get(CACHE_KEY) as PooledDb | undefined;
      if (now) now.adopt(db);
      else {
        const schema = new Schema(probe.columns);
        report.cache.set(CACHE_KEY, new PooledDb(probe, schema, report.activity, db));
      }
    }, done);
    report.cache.set(OPENING_KEY, work = started);
  }
  return work.join(signal);
}

/** `open()`, its failure a refusal naming it. */
function opening(open: () => Database): Database {
  try {
    return open();
  } catch (e) {
    throw new Refusal(`the profiler database could not be read: ${(e as Error).message}`);
  }
}

/** A report's connection, closed by the pool while idle and opened again on next use. */
class PooledDb implements ProfilerDb, PooledConnection {
  #db: Database | null;
  readonly #probe: { path: string; identity: FileIdentity };
  readonly schema: Schema;
  readonly memo = new Map<string, unknown>();
  readonly file?: { path: string; identity: FileIdentity };
  readonly activity: Activity;
  /** Memory the connection holds while open: its in-memory copy's size. */
  readonly bytes: number;

  constructor(probe: ProfilerDbProbe, schema: Schema, activity: Activity, db: Database) {
    this.#db = db;
    this.#probe = { path: probe.path, identity: probe.identity };
    this.schema = schema;
    this.activity = activity;
    // No `file` for a worker: it would hold a second copy of the whole database in memory.
    this.bytes = probe.identity.size;
    usedNow(this);
  }

  /** The connection, opened again (as the same file, unchanged) when the pool closed it. */
  get db(): Database {
    const { path, identity } = this.#probe;
    this.#db ??= opening(() => openReadOnly(path, identity));
    usedNow(this);
    return this.#db;
  }

  get isOpen(): boolean {
    return this.#db !== null;
  }

  /** Takes `db`, opened ahead of a call, as the connection. */
  adopt(db: Database): void {
    if (this.#db !== null) db.close();
    else this.#db = db;
    usedNow(this);
  }

  close(): void {
    this.#db?.close();
    this.#db = null;
    closedNow(this);
  }
}

/**
 * What every database tool does first: the handle's connection (refused when the tables and
 * columns `needs` names are missing), the rank to read (refused when the report has none such),
 * and the check that `ranked` tables can be attributed to it.
 */
export function openAtRank(
  call: ReportCall,
  needs: Needs,
  ranked: readonly string[],
  rank: number | undefined,
): { pdb: ProfilerDb; scope: RankScope } {
  const pdb = profilerDb(call, needs);
  const scope = rankScope(pdb, rank);
  requireAttributable(pdb, scope, ranked);
  return { pdb, scope };
}
