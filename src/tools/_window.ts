/**
 * Internal: what every tool over the performance report's rows does with its range — generate
 * the report over it (refusing a range the report cannot honour), say when the report could not
 * honour it and the whole report was read, and say when the window's op-to-op gaps are host
 * time rather than device work.
 *
 * @module
 */
import {
  ignoredRangeCaveat,
  performanceReport,
  performanceTable,
  type Projection,
  reportPasses,
} from "../analysis/performance.ts";
import {
  firstCallsIn,
  gapAndDevice,
  hostTimeCaveat,
  steadyStateAdvice,
} from "../analysis/host_time.ts";
import { RowCells } from "../analysis/include_groups.ts";
import { PROGRAM_CACHE_COLUMNS, programCalls } from "../analysis/program_calls.ts";
import type { PerfReport } from "../perf_report/mod.ts";
import { deviceSpreadCaveat, deviceSpreads } from "../analysis/device_spread.ts";
import type { ReportCall } from "../session/handles.ts";
import { derivedOf } from "../kit/derived.ts";
import type { PartsWriter } from "./answer_parts.ts";
import { type RangeArgs, rangeOf } from "./args.ts";

/**
 * The report over the arguments' range and device, with the caveat when the range could not be
 * read.
 */
export function reportOver(
  ctx: ReportCall & { parts: PartsWriter },
  args: RangeArgs & { device?: number },
): { perf: PerfReport; projection: Projection } {
  const view = args.device === undefined
    ? rangeOf(args)
    : { ...rangeOf(args), device: args.device };
  const { perf, projection } = performanceReport(ctx, view);
  ctx.parts.caveat(ignoredRangeCaveat(projection));
  if (args.device === undefined) {
    ctx.parts.caveat(deviceSpreadCaveat(ctx, perf, deviceSpreads(ctx, perf)));
  }
  return { perf, projection };
}

/**
 * Adds the host-time caveat when `perf`'s op-to-op gaps add up to more than its device time,
 * naming the note that says why such gaps are host time; `label` names the report when an
 * answer reads two.
 */
export function sayHostTime(
  ctx: ReportCall & { parts: PartsWriter },
  perf: PerfReport,
  label = "",
): void {
  const caveat = hostTimeOf(ctx, perf);
  if (caveat === null) return;
  ctx.parts.caveat(label + caveat);
  ctx.parts.note("gaps.host_time");
}

/**
 * The host-time caveat of `perf`, or null when its op-to-op gaps do not add up to more than
 * its device time. Whether the window's operations were first calls is decided over the
 * whole report, as program_cache decides it.
 */
export function hostTimeOf(ctx: ReportCall, perf: PerfReport): string | null {
  return derivedOf(perf, "host-time-caveat", () => hostTimeSaid(ctx, perf));
}

function hostTimeSaid(ctx: ReportCall, perf: PerfReport): string | null {
  const totals = gapAndDevice(perf);
  if (!(totals.op_to_op_gap_us > totals.device_time_us)) return null;
  const table = performanceTable(ctx);
  const whole = ctx.report.inventory.performance?.whole ?? perf;
  const recorded = PROGRAM_CACHE_COLUMNS.every((c) => table.header.includes(c));
  const calls = recorded ? programCalls(whole.rows, new RowCells(table)) : new Map();
  const signposts = whole.rows.some((r) => r.is_signpost);
  return hostTimeCaveat(
    totals,
    firstCallsIn(perf, calls, table.header),
    "",
    steadyStateAdvice(signposts, reportPasses(ctx)),
  );
}
