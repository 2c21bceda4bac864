/**
 * `l1_peak`: the figure for an out-of-memory question — the run's L1 peak per bank from
 * replaying every operation's captured graph against the buffers snapshot, split into
 * circular buffers, intermediate, persistent and stale tensors, with the operation holding it
 * and the operations closest to it, one entry per distinct composition.
 *
 * @module
 */
import { z } from "zod";
import { type ReportContext, reportTool } from "./tool.ts";
import { nextToFailedOperation } from "./_failure_steps.ts";
import { capped, handleArg, limitArg, rankArg } from "./args.ts";
import {
  type Contributor,
  type L1Figures,
  type L1PeakAt,
  operationNames,
  type ProfilerDb,
  rankCaveat,
  rankFields,
  type RankScope,
  type ResidentKind,
} from "../profiler_db/mod.ts";
import {
  type Composition,
  L1_PEAK_NEEDS,
  L1_PEAK_RANKED,
  type L1PeakRun,
  l1PeakRun,
  MAX_ALSO_AT,
} from "../analysis/l1_peak.ts";
import { round3 } from "../kit/rounding.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";
import { runFailure, type RunFailureField, runFailureField } from "../analysis/run_failure.ts";

/** At most this many residents are listed for the peak; contributor_count counts them all. */
export const MAX_CONTRIBUTORS = 20;

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Distinct compositions under top_operations"),
  rank: rankArg,
});

const NOTE = "Figures are bytes per bank (size_unit): a circular buffer's size is per core, " +
  "and an L1 bank is one core's L1, comparable to l1.worker_l1_size. Each operation is " +
  "measured at its tightest instant: on entry, after every allocation and free in its " +
  "captured graph, and against the buffers snapshot after it. circular_buffer_bytes are the " +
  "running program's circular buffers (a globally allocated one is a view onto a tensor " +
  "already counted); intermediate_tensor_bytes are tensors the operation allocates and frees " +
  "itself; stale_tensor_bytes are tensors still allocated after their last real consumer (a " +
  "deallocate is not one) — the only part freeing earlier would help; persistent_tensor_bytes " +
  "are the rest. precision is upper_bound wherever more than one resident is summed, since a " +
  "capture does not say which cores each occupies. top_operations keeps one entry per " +
  "distinct composition (the same bytes of each kind), highest first: also_at names the later " +
  `operations reaching it again (at most ${MAX_ALSO_AT}; also_at_count counts them all). The ` +
  "first call on a handle reads every captured graph; later calls reuse it.";

/** What the replay read, and what it could not attribute. */
interface ReplayCounts {
  operations_replayed: number;
  operations_without_snapshot: number;
  operations_without_graph: number;
  unreadable_graph_count: number;
  reconciled_away_count: number;
  unattributable_stale_address_count: number;
}

/** The device the replay is read against. */
interface L1Block {
  device_id: number;
  /** Null when the device row gives none. */
  worker_l1_size: number | null;
  l1_num_banks: number;
  l1_num_banks_assumed: boolean;
  /** The peak as a percent of worker_l1_size; null without either. */
  peak_share_pct: number | null;
}

/** An L1 figure split by kind, in bytes per bank. */
interface FigureFields {
  total_bytes: number;
  circular_buffer_bytes: number;
  intermediate_tensor_bytes: number;
  persistent_tensor_bytes: number;
  /** Null when stale tensors cannot be told apart (they are counted as persistent). */
  stale_tensor_bytes: number | null;
  precision: "upper_bound" | "exact";
}

/** One resident at the peak. */
interface ContributorEntry {
  kind: ResidentKind;
  address: number;
  bytes: number;
  last_used_by_operation_id: number | null;
}

/** The operation holding the peak, and its largest residents. */
interface PeakEntry extends FigureFields {
  operation_id: number;
  name: string | null;
  resident_count: number;
  contributor_count: number;
  contributors: ContributorEntry[];
}

/** One distinct composition: the first operation reaching it, and those repeating it. */
interface TopOperation extends FigureFields {
  operation_id: number;
  name: string | null;
  also_at: number[];
  also_at_count: number;
}

/** The answer of `l1_peak`; reason is given only when the figures are withheld. */
export interface L1PeakAnswer extends ReplayCounts {
  handle: string;
  size_unit: "bytes_per_bank";
  multi_host: boolean;
  rank: number | null;
  note: string;
  figures_withheld: boolean;
  reason?: string;
  l1: L1Block | null;
  peak: PeakEntry | null;
  composition_count?: number;
  returned?: number;
  top_operations: TopOperation[] | null;
  /** When the run recorded a failure on an operation: where, with which error. */
  run_failure?: RunFailureField;
}

/** The `l1_peak` tool. */
export const l1PeakTool = reportTool({
  name: "l1_peak",
  title: "L1 peak",
  summary: "The run's L1 peak per bank from replaying every captured graph: circular buffers " +
    "and tensors by kind, and the operations that hold it.",
  description: "The run's L1 peak per bank, replayed from every captured graph, by kind, and the " +
    "operations holding it: for an out-of-memory question.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(L1_PEAK_NEEDS, L1_PEAK_RANKED),
  async handler(args, ctx): Promise<L1PeakAnswer> {
    const { pdb, scope } = openAtRank(ctx, L1_PEAK_NEEDS, L1_PEAK_RANKED, args.rank);
    const run = await l1PeakRun(pdb, scope, undefined, ctx.signal, ctx.progress);
    const shown = showRun(pdb, scope, run, capped(args.limit));
    ctx.parts.caveat(rankCaveat(scope), ...shown.caveats);
    const failed = failure(ctx, pdb, scope);
    return { ...l1PeakAnswer(args.handle, scope, run, shown), ...failed };
  },
});

/** `run_failure` when the run failed on an operation, naming the tool to read it with. */
function failure(
  ctx: ReportContext,
  pdb: ProfilerDb,
  scope: RankScope,
): { run_failure?: RunFailureField } {
  const f = runFailure(pdb, scope);
  if (f === null) return {};
  nextToFailedOperation(ctx, scope.rank, f.operation_id);
  return {
    run_failure: runFailureField(f, "the peak is what the run held, not what it asked for"),
  };
}

/** What the answer shows of the run, with the caveat parts after the rank's. */
type Shown =
  | { withheld: string; caveats: (string | null)[] }
  | {
    withheld: null;
    /** The compositions listed. */
    top: Composition[];
    /** The names of the peak's operation and of those listed. */
    names: Map<number, string | null>;
    caveats: (string | null)[];
  };

/**
 * Computes what is shown of the run: why its figures are withheld, or the first `limit`
 * compositions and the names of their operations and the peak's, with the caveat parts that
 * say where a figure is bounded.
 */
function showRun(pdb: ProfilerDb, scope: RankScope, run: L1PeakRun, limit: number): Shown {
  const reason = withheldReason(run);
  if (reason !== null) return { withheld: reason, caveats: [graphCaveat(run)] };
  const top = run.top.slice(0, limit);
  const names = operationNames(pdb, scope, [
    ...(run.peak ? [run.peak.operationId] : []),
    ...top.map((c) => c.operationId),
  ]);
  return { withheld: null, top, names, caveats: figureCaveats(run) };
}

/**
 * Why the figures are withheld — no device to read them against, or a replay past the
 * device's L1, which no run can hold — or null when they are given.
 */
function withheldReason(run: L1PeakRun): string | null {
  if (run.withheld !== null) return `The figures are withheld: ${run.withheld}.`;
  const capacity = run.basis?.capacity ?? null;
  const exceeds = capacity !== null && run.peak !== null && run.peak.figures.total > capacity;
  if (!exceeds) return null;
  return `The figures are withheld: the replay exceeds the device's L1 (worker_l1_size ` +
    `${capacity} bytes per core, device ${run.basis!.deviceId}) at operation ` +
    `${run.peak!.operationId}, which no run can hold, so none of its figures is a ` +
    "measurement — as the web application's L1 peak panel withholds them. A capture " +
    "whose buffer sizes are whole-buffer totals rather than per bank (the earliest " +
    "importer's), or whose deallocations carry no address, replays this way.";
}

/** The caveat parts of figures that are given: where each is missing, a floor or a bound. */
function figureCaveats(run: L1PeakRun): (string | null)[] {
  return [
    run.peak === null
      ? "No operation holds any L1 in the replay: no circular buffer, no L1 tensor in a " +
        "captured graph and none in the buffers snapshot, so there is no peak."
      : null,
    run.staleWithheld === null ? null : `stale_tensor_bytes is withheld and those tensors are ` +
      `counted as persistent: ${run.staleWithheld}, so no tensor's last consumer can be read.`,
    run.unattributableStaleAddresses > 0
      ? `${run.unattributableStaleAddresses} L1 address${
        run.unattributableStaleAddresses > 1 ? "es are" : " is"
      } reused by tensors whose last consumers differ, so a tensor there is never counted ` +
        "stale: stale_tensor_bytes is a floor."
      : null,
    run.snapshotDevices.length > 1
      ? `The buffers snapshots hold L1 buffers on ${run.snapshotDevices.length} devices ` +
        `(${run.snapshotDevices.join(", ")}); the replay holds one L1, taking each address ` +
        "at its largest size on any device, so a buffer on one device only is counted as " +
        "if every device held it: the figures are an upper bound on any one device."
      : null,
    run.basis?.capacity === null
      ? "The device row gives no worker_l1_size, so the replay could not be checked " +
        "against the device's L1: a replay that no run could hold would not be detected."
      : null,
    run.basis?.bankCountAssumed
      ? `The device row gives no l1_num_banks, so ${run.basis.bankCount} banks are assumed ` +
        "for a buffer whose graph node carries no max_size_per_bank."
      : null,
    graphCaveat(run),
  ];
}

/** Builds the answer: the run's counts, and its figures or why they are withheld. */
function l1PeakAnswer(
  handle: string,
  scope: RankScope,
  run: L1PeakRun,
  shown: Shown,
): L1PeakAnswer {
  const common = {
    handle,
    size_unit: "bytes_per_bank" as const,
    ...counts(run),
    ...rankFields(scope),
    note: NOTE,
  };
  if (shown.withheld !== null) {
    return {
      ...common,
      figures_withheld: true,
      reason: shown.withheld,
      l1: l1Block(run, null),
      peak: null,
      top_operations: null,
    };
  }
  const stale = run.staleWithheld === null;
  const name = (id: number) => shown.names.get(id) ?? null;
  return {
    ...common,
    figures_withheld: false,
    l1: l1Block(run, run.peak?.figures.total ?? null),
    peak: run.peak === null ? null : peakEntry(run.peak, name(run.peak.operationId), stale),
    composition_count: run.compositionCount,
    returned: shown.top.length,
    top_operations: shown.top.map((c) => entry(c, name(c.operationId), stale)),
  };
}

function counts(run: L1PeakRun): ReplayCounts {
  return {
    operations_replayed: run.operationsReplayed,
    operations_without_snapshot: run.withoutSnapshot,
    operations_without_graph: run.withoutGraph,
    unreadable_graph_count: run.unreadableGraphs,
    reconciled_away_count: run.reconciledAway,
    unattributable_stale_address_count: run.unattributableStaleAddresses,
  };
}

function l1Block(run: L1PeakRun, peak: number | null): L1Block | null {
  if (run.basis === null) return null;
  const { deviceId, capacity, bankCount, bankCountAssumed } = run.basis;
  return {
    device_id: deviceId,
    worker_l1_size: capacity,
    l1_num_banks: bankCount,
    l1_num_banks_assumed: bankCountAssumed,
    peak_share_pct: peak !== null && capacity !== null ? round3((peak / capacity) * 100) : null,
  };
}

function figureFields(f: L1Figures, stale: boolean): FigureFields {
  return {
    total_bytes: bytes(f.total),
    circular_buffer_bytes: bytes(f.circularBuffer),
    intermediate_tensor_bytes: bytes(f.intermediate),
    persistent_tensor_bytes: bytes(f.persistent),
    stale_tensor_bytes: stale ? bytes(f.stale) : null,
    precision: f.residents > 1 ? "upper_bound" : "exact",
  };
}

/** The peak's operation, its figures and its largest residents (at most MAX_CONTRIBUTORS). */
function peakEntry(peak: L1PeakAt, name: string | null, stale: boolean): PeakEntry {
  return {
    operation_id: peak.operationId,
    name,
    ...figureFields(peak.figures, stale),
    resident_count: peak.figures.residents,
    contributor_count: peak.contributors.length,
    contributors: peak.contributors.slice(0, MAX_CONTRIBUTORS).map(contributor),
  };
}

function entry(c: Composition, name: string | null, stale: boolean): TopOperation {
  return {
    operation_id: c.operationId,
    name,
    ...figureFields(c.figures, stale),
    also_at: c.alsoAt,
    also_at_count: c.alsoAtCount,
  };
}

function contributor(c: Contributor): ContributorEntry {
  return {
    kind: c.kind,
    address: c.address,
    bytes: bytes(c.bytes),
    last_used_by_operation_id: c.lastUsedBy,
  };
}

/** Bytes as integers, or to three decimals where a size was divided across banks. */
function bytes(x: number): number {
  return Number.isInteger(x) ? x : round3(x)!;
}

function graphCaveat(run: L1PeakRun): string | null {
  if (run.unreadableGraphs === 0 || run.firstUnreadable === null) return null;
  const n = run.unreadableGraphs;
  return `${n} operation${n > 1 ? "s'" : "'s"} captured graph${n > 1 ? "s" : ""} could not be ` +
    `read (first: operation ${run.firstUnreadable.operationId}, ${run.firstUnreadable.why}) and ` +
    "replayed as empty: their circular buffers and intra-operation tensors are missing, so the " +
    "figures there are a floor.";
}
