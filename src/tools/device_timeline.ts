/**
 * `device_timeline`: how long the device was busy in a window, split exactly into operation
 * intervals and the gaps between them — each operation from its earliest kernel start on any
 * core to its last core's firmware end — with the firmware-interval sum beside it for
 * contrast, the gaps, the time per op code and category, repetitions, and host wait.
 *
 * @module
 */
import { z } from "zod";
import { nextIf } from "./_next.ts";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, deviceArg, handleArg, limitArg, rangeArgs, rangeOf, viewArgsOf } from "./args.ts";
import {
  type DeviceSelection,
  deviceSelection,
  placementCaveats,
  type Timed,
  timed,
  unpairedStartCaveat,
  unpairedStarts,
  usOf,
} from "../analysis/device_ops.ts";
import type { Projection } from "../analysis/performance.ts";
import { timelineUnavailable } from "../session/device_log.ts";
import {
  type Coverage,
  coverage,
  firmwareSpans,
  iterations,
  markerPositions,
  median,
  type OpInstance,
  opSpans,
  sharingACore,
  type Span,
  sumBy,
} from "../device_log/mod.ts";
import {
  type PerfReportTotals,
  perfReportTotals,
  whyTotalsDiffer,
} from "../analysis/time_basis.ts";
import { firmwareReading, firmwareTails } from "../analysis/firmware_contrast.ts";
import { round3, sharePercent } from "../kit/rounding.ts";
import { ignoredRangeCaveat } from "../analysis/performance.ts";
import { sayHostTime } from "./_window.ts";

/** The largest gaps named. */
export const LARGEST_GAPS = 5;

/** The most overlapping firmware pairs checked for a shared core. */
export const MAX_PAIRS_CHECKED = 100_000;

const input = z.strictObject({
  handle: handleArg,
  ...rangeArgs,
  device: deviceArg,
  wall_time_us: z.number().positive().optional().describe("Measured window time, µs."),
  limit: limitArg("Op codes in by_op_code", 10),
});

/** An operation either side of a gap. */
export interface OpLabel {
  perf_id: number;
  op_code: string;
}

/** One of the largest gaps. */
export interface GapEntry {
  cycles: number;
  us: number;
  before: OpLabel;
  after: OpLabel;
}

/** The firmware intervals' sums, for contrast. */
export interface FirmwareFigures
  extends Timed<"interval_sum">, Timed<"overlap">, Timed<"overlap_sharing_a_core"> {
  sum_to_busy_ratio: number | null;
  /** What these sums show of this window, in sentences true of the figures beside them. */
  reading: string;
  overlapping_op_pairs: number;
  overlapping_pairs_sharing_a_core: number;
  /** Present when fewer pairs were checked than overlap. */
  pairs_checked_for_a_shared_core?: number;
}

/** The gaps between op intervals. */
export interface GapFigures {
  count: number;
  /** gap_sum, as a lever beside the op codes' intervals. */
  total_us: number;
  share_of_busy_percent: number | null;
  /**
   * Where the gaps would rank among by_op_code's interval times (1 = above every op code):
   * gaps a larger lever than most operations when small.
   */
  rank_among_op_codes: number;
  median_cycles: number | null;
  median_us: number | null;
  largest: GapEntry[];
}

/** Interval time of one op code. */
export interface OpCodeTime {
  op_code: string;
  count: number;
  interval_us: number;
  share_percent: number | null;
}

/** Interval time of one op category. */
export interface CategoryTime {
  op_category: string;
  count: number;
  interval_us: number;
  share_percent: number | null;
}

/** One repetition: a signpost's occurrence or a trace replay session. */
export type IterationEntry = ({ occurrence: string } | { replay_session: string }) & {
  operations: number;
  busy_us: number;
};

/** Busy time per repetition, when the window repeats. */
export interface IterationFigures {
  by: "signpost" | "trace_replay";
  count: number;
  busy_us: { min: number; median: number; max: number; spread_percent: number | null };
  list: IterationEntry[];
  operations_outside: number;
}

/** The answer of `device_timeline`. */
export interface DeviceTimelineAnswer
  extends Timed<"busy">, Timed<"op_interval_sum">, Timed<"gap_sum">, Timed<"residual"> {
  handle: string;
  device: number;
  clock_mhz: number;
  /** Which definition of an operation's time the figures use (note basis.op_interval). */
  basis: "op_interval";
  operations: number;
  overlapping_op_pairs: number;
  op_intervals_from_unpaired_start: number;
  firmware: FirmwareFigures;
  /**
   * tt-perf-report's totals over the same window's rows on this device, and why they differ
   * here (the note device_timeline.reconciliation says what each case means).
   */
  tt_perf_report: PerfReportTotals & { firmware_tail_sum_us: number; why_they_differ: string };
  gaps: GapFigures;
  by_op_code: OpCodeTime[];
  op_code_count: number;
  by_category: CategoryTime[];
  projection: Projection;
  iterations?: IterationFigures;
  /** wall_time_us − busy (the note device_timeline.host_wait says when it holds). */
  host_wait_us?: number;
}

/** What the answer is computed from: the op and firmware intervals' coverage, and more. */
interface Figures {
  ops: Coverage;
  fw: Coverage;
  /** Σ last kernel end → DEVICE FW END CYCLE over the placed operations. */
  tails: number;
  shared: { pairs: number; cycles: number };
  byCode: ReturnType<typeof sumBy>;
  reps: ReturnType<typeof iterations>;
  /** wall_time_us − busy, when wall_time_us was given. */
  hostWait: number | null;
}

/** The `device_timeline` tool. */
export const deviceTimeline = reportTool({
  name: "device_timeline",
  title: "Device busy time",
  summary: "How long one device was busy over the report or a signpost window, split into " +
    "operation intervals and gaps, by op code and category.",
  description:
    "How long one device was busy, split into op intervals and gaps by op code and iteration; " +
    "with wall_time_us, the host wait.",
  input,
  reads: ["performance_csv", "device_log"],
  cannotAnswer: timelineUnavailable,
  async handler(args, ctx): Promise<DeviceTimelineAnswer> {
    const sel = await deviceSelection(ctx, rangeOf(args), args.device);
    const spans = placedSpans(sel);
    const figures = figuresOf(sel, spans, args.wall_time_us);
    ctx.parts.caveat(ignoredRangeCaveat(sel.projection));
    sayHostTime(ctx, sel.perf);
    ctx.parts.caveat(
      ...placementCaveats(sel),
      overlapCaveat(figures.ops, sel.clockMhz),
      unpairedStartCaveat(sel.ops.ops),
    );
    const answer = answerOf(args.handle, sel, spans, figures, capped(args.limit));
    ctx.parts.note(
      "basis.op_interval",
      "device_timeline.intervals",
      "device_timeline.reconciliation",
      "device_timeline.gaps",
    );
    if (figures.hostWait !== null) ctx.parts.note("device_timeline.host_wait");
    const top = answer.by_op_code[0];
    if (top) {
      nextIf(ctx, {
        tool: "core_utilisation",
        why: `${top.op_code}, the op code with the most interval time: which of its cores idled`,
        arguments: { handle: args.handle, op_code: top.op_code, ...viewArgsOf(args) },
      });
    }
    return answer;
  },
});

/** The op intervals of the device's placed operations; refuses when none is placed. */
function placedSpans(sel: DeviceSelection): Span[] {
  const spans = opSpans(sel.ops.ops);
  if (spans.length === 0) {
    throw new Refusal(
      `device_timeline: none of device ${sel.ops.device}'s ${sel.ops.ops.length} operations ` +
        "in the window has a kernel zone in the device log, so no interval can be placed",
    );
  }
  return spans;
}

/**
 * How the op intervals and the firmware intervals cover the device's time, the time per op
 * code, the repetitions, and the host wait; refuses a wall time shorter than busy time.
 */
function figuresOf(
  sel: DeviceSelection,
  spans: readonly Span[],
  wallTimeUs: number | undefined,
): Figures {
  const clock = sel.clockMhz;
  const ops = coverage(spans);
  const fw = coverage(
    firmwareSpans(sel.ops.ops.filter((o) => o.kernelStart !== null)),
    MAX_PAIRS_CHECKED,
  );
  const position = new Map(sel.perf.rows.map((r, i) => [r, i]));
  return {
    ops,
    fw,
    tails: firmwareTails(sel),
    shared: sharingACore(fw.pairs, sel.windows, sel.log.lanes),
    byCode: sumBy(spans, (op) => op.row.raw_op_code),
    reps: iterations(spans, markerPositions(sel.perf.rows), (op) => position.get(op.row)!),
    hostWait: wallTimeUs === undefined ? null : hostWait(wallTimeUs, ops.busy, clock),
  };
}

/** wall_time_us − busy time in µs, or a Refusal when that is negative. */
function hostWait(wallTimeUs: number, busy: number, clock: number): number {
  const wait = round3(wallTimeUs - busy / clock)!;
  if (wait < 0) {
    throw new Refusal(
      `device_timeline: wall_time_us ${wallTimeUs} is shorter than the device's busy ` +
        `time ${usOf(busy, clock)} µs, so it cannot be the same window of the same run (host ` +
        "wait would be negative); measure the wall time over exactly these operations",
    );
  }
  return wait;
}

/** The answer: busy time and its parts, firmware, gaps, op codes, categories, iterations. */
function answerOf(
  handle: string,
  sel: DeviceSelection,
  spans: readonly Span[],
  { ops, fw, tails, shared, byCode, reps, hostWait }: Figures,
  limit: number,
): DeviceTimelineAnswer {
  const clock = sel.clockMhz;
  const us = (c: number) => usOf(c, clock);
  const tt = perfReportTotals(sel.perf.rows, sel.table, sel.ops.device);
  const mine = {
    operations: spans.length,
    opIntervalSumUs: us(ops.intervalSum),
    gapSumUs: us(ops.gapSum),
    firmwareTailSumUs: us(tails),
    overlappingPairs: ops.overlappingPairs,
  };
  return {
    handle,
    device: sel.ops.device,
    clock_mhz: clock,
    basis: "op_interval",
    operations: spans.length,
    ...timed("busy", ops.busy, clock),
    ...timed("op_interval_sum", ops.intervalSum, clock),
    ...timed("gap_sum", ops.gapSum, clock),
    ...timed("residual", ops.residual, clock),
    overlapping_op_pairs: ops.overlappingPairs,
    op_intervals_from_unpaired_start: unpairedStarts(sel.ops.ops).length,
    firmware: {
      ...timed("interval_sum", fw.intervalSum, clock),
      sum_to_busy_ratio: round3(fw.intervalSum / ops.busy),
      reading: firmwareReading(ops, fw, shared.pairs, clock),
      overlapping_op_pairs: fw.overlappingPairs,
      ...timed("overlap", fw.overlapCycles, clock),
      overlapping_pairs_sharing_a_core: shared.pairs,
      ...timed("overlap_sharing_a_core", shared.cycles, clock),
      ...(fw.pairs.length < fw.overlappingPairs
        ? { pairs_checked_for_a_shared_core: fw.pairs.length }
        : {}),
    },
    tt_perf_report: {
      ...tt,
      firmware_tail_sum_us: mine.firmwareTailSumUs,
      why_they_differ: whyTotalsDiffer(mine, tt),
    },
    gaps: gapFigures(ops, clock, byCode),
    by_op_code: byCode.slice(0, limit).map((e) => ({
      op_code: e.key,
      count: e.count,
      interval_us: us(e.cycles),
      share_percent: sharePercent(e.cycles, ops.intervalSum),
    })),
    op_code_count: byCode.length,
    by_category: sumBy(spans, (op) => op.row.op_category ?? "uncategorised").map((e) => ({
      op_category: e.key,
      count: e.count,
      interval_us: us(e.cycles),
      share_percent: sharePercent(e.cycles, ops.intervalSum),
    })),
    projection: sel.projection,
    ...(reps !== null ? { iterations: iterationFigures(reps, clock) } : {}),
    ...(hostWait !== null ? { host_wait_us: hostWait } : {}),
  };
}

/** The gaps' total, share, rank, count and median, and the largest with the ops either side. */
function gapFigures(
  ops: Coverage,
  clock: number,
  byCode: readonly { cycles: number }[],
): GapFigures {
  const label = (op: OpInstance): OpLabel => ({ perf_id: op.perfId, op_code: op.row.raw_op_code });
  const gapCycles = ops.gaps.map((g) => g.cycles);
  const gapMedian = median(gapCycles);
  const largest = [...ops.gaps].sort((a, b) => b.cycles - a.cycles).slice(0, LARGEST_GAPS);
  return {
    count: gapCycles.length,
    total_us: usOf(ops.gapSum, clock),
    share_of_busy_percent: sharePercent(ops.gapSum, ops.busy),
    rank_among_op_codes: 1 + byCode.filter((e) => e.cycles > ops.gapSum).length,
    median_cycles: gapMedian,
    median_us: gapMedian === null ? null : usOf(gapMedian, clock),
    largest: largest.map((g) => ({
      cycles: g.cycles,
      us: usOf(g.cycles, clock),
      before: label(g.before),
      after: label(g.after),
    })),
  };
}

/** Why op intervals do not tile busy time here, or null. */
function overlapCaveat(ops: Coverage, clock: number): string | null {
  return ops.overlappingPairs > 0
    ? `${ops.overlappingPairs} pairs of op intervals overlap (${
      usOf(-ops.residual, clock)
    } µs): kernel starts and firmware ends of different operations interleave, so op ` +
      "intervals do not tile busy time here."
    : null;
}

function iterationFigures(
  reps: NonNullable<ReturnType<typeof iterations>>,
  clock: number,
): IterationFigures {
  const busy = reps.list.map((r) => r.busy);
  const lo = Math.min(...busy);
  const hi = Math.max(...busy);
  const mid = median(busy)!;
  return {
    by: reps.by,
    count: reps.list.length,
    busy_us: {
      min: usOf(lo, clock),
      median: usOf(mid, clock),
      max: usOf(hi, clock),
      spread_percent: sharePercent(hi - lo, mid),
    },
    list: reps.list.slice(0, 100).map((r) => ({
      ...(reps.by === "signpost" ? { occurrence: r.label } : { replay_session: r.label }),
      operations: r.ops,
      busy_us: usOf(r.busy, clock),
    })),
    operations_outside: reps.outside,
  };
}
