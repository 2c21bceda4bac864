/**
 * `l1_peak`: the figure for an out-of-memory question — the run's L1 peak per bank from
 * replaying every operation's captured graph against the buffers snapshot, split into
 * circular buffers, intermediate, persistent and stale tensors, with the operation holding it
 * and the operations closest to it, one entry per distinct composition.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import { rankArg } from "./args.ts";
import { joinCaveats, rankCaveat, rankFields } from "../profiler_db/rank.ts";
import { operationNames } from "../profiler_db/operations.ts";
import {
  type Composition,
  L1_PEAK_NEEDS,
  L1_PEAK_RANKED,
  type L1PeakRun,
  l1PeakRun,
  MAX_ALSO_AT,
} from "../profiler_db/l1_peak.ts";
import type { Contributor, L1Figures } from "../profiler_db/_l1_replay.ts";
import { round3 } from "../kit/figures.ts";
import { openAtRank } from "../session/profiler_db.ts";
import { cannotAnswerFrom } from "../session/profiler_db.ts";

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

/** The `l1_peak` tool. */
export const l1PeakTool = reportTool({
  name: "l1_peak",
  title: "The run's L1 peak, and what holds it",
  description:
    "The figure for an out-of-memory question: the run's L1 peak in bytes per bank, from " +
    "replaying every operation's captured graph against the buffers snapshot, so it counts " +
    "circular buffers and tensors allocated and freed inside an operation, which " +
    "memory_profile cannot. Split into circular_buffer_bytes, intermediate_tensor_bytes, " +
    "persistent_tensor_bytes and stale_tensor_bytes (allocated after their last real " +
    "consumer), with the operation holding the peak and its largest residents, and " +
    "top_operations, one entry per distinct composition with also_at naming the operations " +
    "that repeat it. When the replay exceeds the device's L1 its figures are withheld and " +
    "reason says why.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(L1_PEAK_NEEDS, L1_PEAK_RANKED),
  async handler(args, ctx) {
    const { report } = ctx;
    const { pdb, scope } = openAtRank(ctx, L1_PEAK_NEEDS, L1_PEAK_RANKED, args.rank);
    const run = await l1PeakRun(pdb, scope, undefined, ctx.signal);
    const base = {
      handle: args.handle,
      size_unit: "bytes_per_bank",
      ...counts(run),
      ...rankFields(scope),
      note: NOTE,
    };
    const capacity = run.basis?.capacity ?? null;
    const exceeds = capacity !== null && run.peak !== null && run.peak.figures.total > capacity;
    if (run.withheld !== null || exceeds) {
      const reason = run.withheld !== null
        ? `The figures are withheld: ${run.withheld}.`
        : `The figures are withheld: the replay exceeds the device's L1 (worker_l1_size ` +
          `${capacity} bytes per core, device ${run.basis!.deviceId}) at operation ` +
          `${run.peak!.operationId}, which no run can hold, so none of its figures is a ` +
          "measurement — as the web application's L1 peak panel withholds them. A capture " +
          "whose buffer sizes are whole-buffer totals rather than per bank (the earliest " +
          "importer's), or whose deallocations carry no address, replays this way.";
      const caveat = joinCaveats([rankCaveat(scope), graphCaveat(run)]);
      return {
        ...base,
        figures_withheld: true,
        reason,
        l1: l1Block(run, null),
        peak: null,
        top_operations: null,
        ...(caveat ? { caveat } : {}),
      };
    }
    const top = run.top.slice(0, capped(args.limit));
    const names = operationNames(pdb, scope, [
      ...(run.peak ? [run.peak.operationId] : []),
      ...top.map((c) => c.operationId),
    ]);
    const stale = run.staleWithheld === null;
    const caveat = joinCaveats([
      rankCaveat(scope),
      run.peak === null
        ? "No operation holds any L1 in the replay: no circular buffer, no L1 tensor in a " +
          "captured graph and none in the buffers snapshot, so there is no peak."
        : null,
      stale ? null : `stale_tensor_bytes is withheld and those tensors are counted as ` +
        `persistent: ${run.staleWithheld}, so no tensor's last consumer can be read.`,
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
    ]);
    return {
      ...base,
      figures_withheld: false,
      l1: l1Block(run, run.peak?.figures.total ?? null),
      peak: run.peak === null ? null : {
        operation_id: run.peak.operationId,
        name: names.get(run.peak.operationId) ?? null,
        ...figureFields(run.peak.figures, stale),
        resident_count: run.peak.figures.residents,
        contributor_count: run.peak.contributors.length,
        contributors: run.peak.contributors.slice(0, MAX_CONTRIBUTORS).map(contributor),
      },
      composition_count: run.compositionCount,
      returned: top.length,
      top_operations: top.map((c) => entry(c, names.get(c.operationId) ?? null, stale)),
      ...(caveat ? { caveat } : {}),
    };
  },
});

function counts(run: L1PeakRun) {
  return {
    operations_replayed: run.operationsReplayed,
    operations_without_snapshot: run.withoutSnapshot,
    operations_without_graph: run.withoutGraph,
    unreadable_graph_count: run.unreadableGraphs,
    reconciled_away_count: run.reconciledAway,
    unattributable_stale_address_count: run.unattributableStaleAddresses,
  };
}

function l1Block(run: L1PeakRun, peak: number | null): Record<string, unknown> | null {
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

function figureFields(f: L1Figures, stale: boolean) {
  return {
    total_bytes: bytes(f.total),
    circular_buffer_bytes: bytes(f.circularBuffer),
    intermediate_tensor_bytes: bytes(f.intermediate),
    persistent_tensor_bytes: bytes(f.persistent),
    stale_tensor_bytes: stale ? bytes(f.stale) : null,
    precision: f.residents > 1 ? "upper_bound" : "exact",
  };
}

function entry(c: Composition, name: string | null, stale: boolean) {
  return {
    operation_id: c.operationId,
    name,
    ...figureFields(c.figures, stale),
    also_at: c.alsoAt,
    also_at_count: c.alsoAtCount,
  };
}

function contributor(c: Contributor) {
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
