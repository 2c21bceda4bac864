/**
 * The run's L1 peak per bank, as l1_peak answers it: every operation's captured graph replayed
 * (`profiler_db/l1/replay.ts`) against the buffers snapshot, read once per handle and rank and kept. Each
 * operation's tightest instant is grouped by composition — the same bytes of circular buffers,
 * intermediate, persistent and stale tensors at the same precision — so a layer stack run
 * many times is one entry with the operations that repeat it. The figures are read against the
 * first device's L1: a replay past worker_l1_size cannot be a measurement, and is withheld.
 *
 * @module
 */
import { SharedWork } from "../kit/shared_work.ts";
import { WorkClock } from "../kit/work_clock.ts";
import { after, type Progress } from "../kit/progress.ts";
import { Refusal } from "../kit/refusal.ts";
import {
  andRank,
  BUFFER_COLUMNS,
  devicesAt,
  type GraphReading,
  type L1Figures,
  type L1PeakAt,
  L1Replay,
  LAST_USE_COLUMNS,
  lastUsesInSteps,
  lastUsesOf,
  lastUsesQuery,
  memo,
  type Needs,
  NotGrouped,
  openGraphs,
  operationIdsInSteps,
  type ProfilerDb,
  type RankScope,
  ReadByRows,
  type RowSource,
  snapshotsOf,
  startRanges,
  unattributable,
} from "../profiler_db/mod.ts";

/** What l1_peak cannot answer without. */
export const L1_PEAK_NEEDS: Needs = {
  operations: ["operation_id", "name"],
  captured_graph: ["operation_id", "captured_graph"],
  buffers: BUFFER_COLUMNS,
};

/** The tables holding the figures: refused when they cannot be attributed to the rank. */
export const L1_PEAK_RANKED = ["captured_graph", "buffers"] as const;

/** Characters of captured graph read at most (summed before any is loaded), as the link. */
export const MAX_L1_GRAPH_CHARS = 2 ** 30;

/** Banks assumed when the device row gives none, as the web application assumes. */
export const DEFAULT_L1_BANKS = 64;

/** At most this many compositions are kept ranked (a ranking is capped at 100). */
const KEPT = 100;

/** At most this many operations are named under also_at. */
export const MAX_ALSO_AT = 20;

/** One distinct composition: the first operation reaching it, and those repeating it. */
export interface Composition {
  operationId: number;
  figures: L1Figures;
  alsoAt: number[];
  alsoAtCount: number;
}

/** The device the replay is read against. */
export interface L1Basis {
  deviceId: number;
  /** worker_l1_size; null when the row gives none. */
  capacity: number | null;
  bankCount: number;
  /** Whether bankCount is the default because the row gives none. */
  bankCountAssumed: boolean;
}

/** Everything l1_peak reports for a rank. */
export interface L1PeakRun {
  /** Why no figure is given at all (no device to read it against), or null. */
  withheld: string | null;
  basis: L1Basis | null;
  /** Why stale tensors are not told apart (counted as persistent), or null. */
  staleWithheld: string | null;
  peak: L1PeakAt | null;
  /** Highest first, ties by the earlier operation; at most 100. */
  top: Composition[];
  compositionCount: number;
  operationsReplayed: number;
  withoutSnapshot: number;
  withoutGraph: number;
  unreadableGraphs: number;
  firstUnreadable: { operationId: number; why: string } | null;
  reconciledAway: number;
  unattributableStaleAddresses: number;
  /** Devices holding L1 rows in the snapshots (their buffers are replayed as one). */
  snapshotDevices: number[];
}

/**
 * The run at the scope's rank, replayed on first use and kept for the handle; refused once its
 * captured graphs run past `maxGraphChars` characters.
 */
export function l1PeakRun(
  pdb: ProfilerDb,
  scope: RankScope,
  maxGraphChars: number = MAX_L1_GRAPH_CHARS,
  signal?: AbortSignal,
  progress?: Progress,
): Promise<L1PeakRun> {
  const key = `l1-peak\u0000${scope.rank}\u0000${maxGraphChars}`;
  const work = memo(pdb, key, (): SharedWork<L1PeakRun> => {
    const shared: SharedWork<L1PeakRun> = new SharedWork(
      (stop, report) => replayRun(pdb, scope, maxGraphChars, stop, report),
      (reason) => {
        // A refusal (graphs past the bound, an unreadable table) is kept: reading up to it
        // again would only refuse again. A stopped or failed replay is forgotten.
        if (reason instanceof Refusal) return;
        if (pdb.memo.get(key) === shared) pdb.memo.delete(key);
      },
    );
    return shared;
  });
  return work.join(signal, progress);
}

/**
 * The replay, yielding to the event loop every few tens of milliseconds (a ping is answered
 * meanwhile) and stopping when `stop` aborts.
 */
async function replayRun(
  pdb: ProfilerDb,
  scope: RankScope,
  maxGraphChars: number,
  stop: AbortSignal,
  progress: Progress,
): Promise<L1PeakRun> {
  const empty: L1PeakRun = {
    withheld: null,
    basis: null,
    staleWithheld: null,
    peak: null,
    top: [],
    compositionCount: 0,
    operationsReplayed: 0,
    withoutSnapshot: 0,
    withoutGraph: 0,
    unreadableGraphs: 0,
    firstUnreadable: null,
    reconciledAway: 0,
    unattributableStaleAddresses: 0,
    snapshotDevices: [],
  };
  const basis = basisOf(pdb, scope);
  if ("why" in basis) return { ...empty, withheld: basis.why };
  const clock = new WorkClock();
  const pause = async () => {
    await clock.tick();
    stop.throwIfAborted();
  };
  const rank = andRank(pdb, scope, "captured_graph");
  const query = lastUsesQuery(pdb, scope);
  // The graphs' worker starts now: it reads the last uses, then graphs, while this thread
  // reads the rest.
  const started = startRanges(pdb, rank, maxGraphChars, basis.bankCount, pause, {
    lastUses: "sql" in query ? { sql: query.sql, columns: LAST_USE_COLUMNS } : null,
  });
  try {
    await pause();
    let scanned = 0;
    const snapshot = await snapshotsOf(pdb, scope, {
      report(done, total, message) {
        scanned = total ?? done;
        progress.report(done, total, message);
      },
    }, pause).then((value) => ({ value }), (error) => ({ error }));
    // A cancel stops here, not after reading the rest.
    if ("error" in snapshot) stop.throwIfAborted();
    await pause();
    // Read after the snapshots (by the worker meanwhile, or here in steps), the last uses'
    // refusal, if any, still comes before the snapshots', as when they were read first. Until
    // the worker has them, this thread reads graphs ahead rather than wait.
    const fromWorker = "sql" in query && started !== null ? started.lastUses() : null;
    if (fromWorker !== null) await started!.prefetch(fromWorker);
    const columns = await fromWorker;
    const stale = columns === null
      ? await lastUsesInSteps(pdb, scope, query, pause)
      : lastUsesOf(pdb, query, columns);
    if ("error" in snapshot) throw snapshot.error;
    const { snapshots, devices } = snapshot.value;
    await pause();
    const ids = await operationIdsInSteps(pdb, scope, pause);
    const replay: Replay = {
      pdb,
      rank,
      maxGraphChars,
      basis,
      stale,
      snapshots,
      ids,
      pause,
      progress: after(progress, scanned),
      out: { ...empty, basis, staleWithheld: stale.why },
    };
    replay.out.unattributableStaleAddresses = stale.ambiguous;
    replay.out.snapshotDevices = devices;
    // Ranges read whole first; row by row where a range cannot be read so; ordered by SQLite
    // where the rows are not in operation order.
    let reading: GraphReading = "ranges";
    for (;;) {
      try {
        return await replayOnce(replay, reading, reading === "ranges" ? started : null);
      } catch (e) {
        if (e instanceof ReadByRows && reading === "ranges") reading = "rows";
        else if (e instanceof NotGrouped && reading !== "ordered") reading = "ordered";
        else throw e;
      }
    }
  } finally {
    started?.close();
  }
}

/** What one replay of the run reads. */
interface Replay {
  pdb: ProfilerDb;
  /** The captured_graph rank clause. */
  rank: string;
  maxGraphChars: number;
  basis: L1Basis;
  stale: { lastUse: Map<number, number> };
  snapshots: Map<number, number[]>;
  ids: number[];
  /** Lets the event loop in now and then; throws once the work is stopped. */
  pause: () => Promise<void>;
  progress: Progress;
  /** The answer's fields known before the replay. */
  out: L1PeakRun;
}

/** Replays every operation, its graphs read as `reading` says. */
async function replayOnce(
  r: Replay,
  reading: GraphReading,
  started: RowSource | null,
): Promise<L1PeakRun> {
  const out: L1PeakRun = { ...r.out };
  const replay = new L1Replay({ bankCount: r.basis.bankCount, lastUse: r.stale.lastUse });
  const byComposition = new Map<string, Composition>();
  const graphs = await openGraphs(
    r.pdb,
    r.rank,
    reading,
    r.maxGraphChars,
    r.basis.bankCount,
    started,
  );
  const ids = r.ids;
  try {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if ((i & 63) === 0) {
        r.progress.report(i, ids.length, "operations replayed");
        await r.pause();
      }
      const next = graphs.next(id);
      const { events, rows: graphRows, unreadable } = next instanceof Promise ? await next : next;
      if (graphRows === 0) out.withoutGraph++;
      if (unreadable !== null) {
        out.unreadableGraphs++;
        out.firstUnreadable ??= { operationId: id, why: unreadable };
      }
      const result = replay.step({
        operationId: id,
        events,
        snapshot: undefined,
        snapshotPairs: r.snapshots.get(id) ?? null,
      });
      out.operationsReplayed++;
      out.reconciledAway += result.reconciledAway;
      const f = result.figures;
      if (f.total <= 0) continue;
      const key = compositionKey(f);
      const seen = byComposition.get(key);
      if (seen === undefined) {
        byComposition.set(key, { operationId: id, figures: f, alsoAt: [], alsoAtCount: 0 });
      } else {
        seen.alsoAtCount++;
        if (seen.alsoAt.length < MAX_ALSO_AT) seen.alsoAt.push(id);
      }
    }
  } finally {
    graphs.close();
  }
  out.withoutSnapshot = ids.filter((id) => !r.snapshots.has(id)).length;
  out.peak = replay.peak();
  out.compositionCount = byComposition.size;
  out.top = [...byComposition.values()].sort((a, b) =>
    b.figures.total - a.figures.total || a.operationId - b.operationId
  ).slice(0, KEPT);
  return out;
}

/**
 * What makes two instants the same composition: the bytes of each kind and the precision
 * (one resident, or more than one summed).
 */
export function compositionKey(f: L1Figures): string {
  return `${f.circularBuffer}|${f.intermediate}|${f.persistent}|${f.stale}|${
    f.residents > 1 ? "u" : "e"
  }`;
}

/** The first device's L1 size and banks, or why no figure can be read against a device. */
function basisOf(pdb: ProfilerDb, scope: RankScope): L1Basis | { why: string } {
  const guard = unattributable(pdb, scope, ["devices"]);
  if (guard !== null) {
    return {
      why: `${guard}, so no device's L1 size or bank count can be read for this rank and the ` +
        "replay has nothing to be checked against",
    };
  }
  const device = devicesAt(pdb, scope)[0];
  if (device === undefined) {
    return {
      why: "the report records no device row, so there is no L1 size or bank count to read the " +
        "replay against (the web application's L1 peak panel shows an error here too)",
    };
  }
  const banks = device.l1_num_banks;
  const capacity = device.worker_l1_size;
  return {
    deviceId: device.device_id,
    capacity: capacity !== null && capacity > 0 ? capacity : null,
    bankCount: banks !== null && banks > 0 ? banks : DEFAULT_L1_BANKS,
    bankCountAssumed: !(banks !== null && banks > 0),
  };
}
