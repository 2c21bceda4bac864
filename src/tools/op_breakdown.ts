/**
 * `op_breakdown`: where the time went, per op (the op code's first word) or per op category,
 * grouped as tt-perf-report's stacked report groups it, with each group's device time and
 * op-to-op gap and the share of the total each is.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { derivedOf } from "../kit/derived.ts";
import {
  capped,
  csvDeviceArg,
  handleArg,
  helped,
  limitArg,
  rangeArgs,
  viewArgsOf,
} from "./args.ts";
import { nextIf } from "./_next.ts";
import { reportOver, sayHostTime } from "./_window.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  performanceTable,
  type Projection,
  subDeviceCaveat,
  type TimingCaveat,
  timingCaveat,
} from "../analysis/performance.ts";
import { round3, sharePercent, sig3 } from "../kit/rounding.ts";
import {
  opCodeFirstWord,
  type PerfReport,
  type PerfRow,
  pythonSum,
  type StackedRow,
} from "../perf_report/mod.ts";

const input = z.strictObject({
  handle: handleArg,
  group_by: helped(
    z.enum(["op", "op_category"]).default("op"),
    "Group rows by op code or by tt-perf-report's op category.",
  ),
  by: helped(
    z.enum(["device_time", "op_to_op_gap", "total_percent", "count"]).default("device_time"),
    "The figure to order groups by, largest first.",
  ),
  limit: limitArg("Groups"),
  ...rangeArgs,
  device: csvDeviceArg,
});

type GroupBy = z.infer<typeof input>["group_by"];
type OrderBy = z.infer<typeof input>["by"];

/** One group of `op_breakdown`: its count, device time and gap (µs) with their shares. */
export interface OpBreakdownGroup {
  group: string;
  count: number;
  device_time: number | null;
  device_time_share_percent: number | null;
  op_to_op_gap: number | null;
  op_to_op_gap_share_percent: number | null;
  total_percent: number | null;
}

/** The groups past the limit, summed. */
export interface OpBreakdownRest extends Omit<OpBreakdownGroup, "group"> {
  group_count: number;
}

/** The answer of `op_breakdown`. */
export interface OpBreakdownAnswer extends TimingCaveat {
  handle: string;
  group_by: GroupBy;
  by: OrderBy;
  group_count: number;
  returned: number;
  groups: OpBreakdownGroup[];
  rest: OpBreakdownRest | null;
  op_count: number;
  device_time_total: number | null;
  op_to_op_gap_total: number | null;
  projection: Projection;
  /** Which definition of an operation's time the figures use. */
  basis: "device_kernel_duration";
}

/** One group's rows as read: its stacked-report figures and its rows' gaps and Total %. */
interface Group {
  group: string;
  count: number;
  device_time: number;
  /** The stacked report's own share, unrounded. */
  device_share: number | null;
  gaps: number[];
  totals: number[];
}

/** The sums every group's shares are of. */
interface Totals {
  device_time: number;
  gap: number;
}

/** The `op_breakdown` tool. */
export const opBreakdown = reportTool({
  name: "op_breakdown",
  title: "Where the time went",
  summary: "Group a performance report's operations by op or op category, as tt-perf-report's " +
    "stacked report does: count, device time, op-to-op gap, shares.",
  description:
    "Where the time went: operations grouped by op or op category: count, device time, gap " +
    "and their shares.",
  input,
  reads: ["performance_csv"],
  cannotAnswer: performanceCsvUnavailable,
  handler(args, ctx): OpBreakdownAnswer {
    const { perf, projection } = reportOver(ctx, args);
    const groups = groupsOf(perf, args.group_by);
    const totals: Totals = derivedOf(groups, "totals", () => ({
      device_time: sumOf(groups.map((g) => g.device_time)),
      gap: pythonSum(groups.flatMap((g) => g.gaps)),
    }));
    const ordered = orderGroups(groups, args.by);
    const shown = ordered.slice(0, capped(args.limit));
    ctx.parts.caveat(subDeviceCaveat(perf));
    sayHostTime(ctx, perf);
    const timed = timingCaveat(performanceTable(ctx), perf);
    if (timed.rows_without_device_time) ctx.parts.note("timing.no_device_time");
    const top = shown[0];
    if (top) {
      nextIf(ctx, {
        tool: "top_ops",
        why: args.group_by === "op"
          ? `the costliest rows of ${top.group}, each with its cores`
          : "the costliest rows, each with its cores",
        arguments: {
          handle: args.handle,
          ...(args.group_by === "op" ? { op_code: top.group } : {}),
          ...viewArgsOf(args),
        },
      });
    }
    ctx.parts.note("basis.device_kernel_duration");
    ctx.parts.cut("groups", {
      total: groups.length,
      returned: shown.length,
      reason: "limit",
      more: "the groups past the limit are summed into rest; pass a higher limit (at most 100) " +
        "to list them",
    });
    return {
      handle: args.handle,
      group_by: args.group_by,
      by: args.by,
      group_count: groups.length,
      returned: shown.length,
      groups: shown.map((g) => describeGroup(g, totals)),
      rest: restOf(ordered.slice(shown.length), totals),
      op_count: groups.reduce((n, g) => n + g.count, 0),
      device_time_total: round3(totals.device_time),
      op_to_op_gap_total: round3(totals.gap),
      projection,
      basis: "device_kernel_duration",
      ...timed,
    };
  },
});

/** The report's groups by op (the op code's first word) or op category, in stacked order. */
function groupsOf(perf: PerfReport, groupBy: GroupBy): Group[] {
  return derivedOf(perf, `op-breakdown:${groupBy}`, () => groupsMade(perf, groupBy));
}

function groupsMade(perf: PerfReport, groupBy: GroupBy): Group[] {
  const stacked = (groupBy === "op" ? perf.stacked.op : perf.stacked.category) ?? [];
  // Rows share their op codes' strings: each op code's first word is found once.
  const words = new Map<string, string | null>();
  const keyOf = groupBy === "op"
    ? (r: PerfRow) => {
      let word = words.get(r.op_code);
      if (word === undefined) words.set(r.op_code, word = opCodeFirstWord(r.op_code));
      return word;
    }
    : (r: PerfRow) => r.op_category;
  return groupRows(perf.rows, stacked, keyOf);
}

/** `groups` largest first by `by`; equal ones keep stacked order. */
function orderGroups(groups: readonly Group[], by: OrderBy): Group[] {
  const valueOf = {
    device_time: (g: Group) => g.device_time,
    op_to_op_gap: gapOf,
    total_percent: totalPercentOf,
    count: (g: Group) => g.count,
  }[by];
  return groups.map((g, i) => ({ g, i, v: valueOf(g) }))
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .map((x) => x.g);
}

/** One group as answered: its figures rounded, its shares of `totals`. */
function describeGroup(g: Group, totals: Totals): OpBreakdownGroup {
  const gap = gapOf(g);
  return {
    group: g.group,
    count: g.count,
    device_time: round3(g.device_time),
    device_time_share_percent: g.device_share === null
      ? sharePercent(g.device_time, totals.device_time)
      : sig3(g.device_share),
    op_to_op_gap: round3(gap),
    op_to_op_gap_share_percent: sharePercent(gap, totals.gap),
    total_percent: round3(totalPercentOf(g)),
  };
}

/** The groups past the limit summed into one, or null when there are none. */
function restOf(rest: readonly Group[], totals: Totals): OpBreakdownRest | null {
  if (rest.length === 0) return null;
  return {
    group_count: rest.length,
    ...omitGroup(describeGroup(mergeGroups(rest), totals)),
    device_time_share_percent: sharePercent(
      sumOf(rest.map((g) => g.device_time)),
      totals.device_time,
    ),
  };
}

/**
 * Groups the report's rows (signposts left out) in the stacked report's order, taking each
 * group's count and device time from it, so both agree with tt-perf-report to the bit.
 */
function groupRows(
  rows: readonly PerfRow[],
  stacked: readonly StackedRow[],
  keyOf: (r: PerfRow) => string | null,
): Group[] {
  const byKey = new Map<string, Group>();
  for (const s of stacked) {
    byKey.set(s.op_code_joined, {
      group: s.op_code_joined,
      count: s.ops_count,
      device_time: s.device_time_sum_us,
      device_share: s.percent,
      gaps: [],
      totals: [],
    });
  }
  for (const row of rows) {
    if (row.is_signpost) continue;
    const key = keyOf(row);
    const g = key === null ? undefined : byKey.get(key);
    if (!g) continue;
    if (row.op_to_op_gap !== null && Number.isFinite(row.op_to_op_gap)) {
      g.gaps.push(row.op_to_op_gap);
    }
    if (row.total_percent !== null && Number.isFinite(row.total_percent)) {
      g.totals.push(row.total_percent);
    }
  }
  return [...byKey.values()];
}

/** A group's summed op-to-op gap (a group is never changed once made). */
function gapOf(g: Group): number {
  return derivedOf(g, "gap", () => pythonSum(g.gaps));
}

/** A group's summed Total %. */
function totalPercentOf(g: Group): number {
  return derivedOf(g, "total-percent", () => pythonSum(g.totals));
}

function mergeGroups(groups: readonly Group[]): Group {
  return {
    group: "rest",
    count: groups.reduce((n, g) => n + g.count, 0),
    device_time: sumOf(groups.map((g) => g.device_time)),
    device_share: null,
    gaps: groups.flatMap((g) => g.gaps),
    totals: groups.flatMap((g) => g.totals),
  };
}

function omitGroup<T extends { group: string }>(g: T): Omit<T, "group"> {
  const { group: _group, ...rest } = g;
  return rest;
}

function sumOf(values: readonly number[]): number {
  return pythonSum(values);
}
