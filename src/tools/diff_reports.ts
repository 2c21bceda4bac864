/**
 * `diff_reports`: per-op-code deltas between two performance reports, largest movement first,
 * over the whole reports or one signpost range applied to both.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, limitArg, rangeArgs } from "./args.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  isRanged,
  performanceReport,
  performanceTable,
  type SignpostRange,
  subDeviceIds,
} from "../analysis/performance.ts";
import { round3 } from "../kit/figures.ts";
import { resolveSignpostWindow } from "../perf_report/signposts.ts";
import { SignpostRangeError } from "../perf_report/errors.ts";
import { pythonSum } from "../perf_report/summation.ts";
import type { PerfReport, PerfRow } from "../perf_report/types.ts";
import type { LoadedReport } from "../session/registry.ts";

const ADDITIVE = ["device_time", "op_to_op_gap", "total_percent"] as const;
type Additive = typeof ADDITIVE[number];
const RATES = ["flops", "dram", "cores"] as const;

const input = z.strictObject({
  handle_a: z.string().describe("The baseline report's handle."),
  handle_b: z.string().describe("The handle of the report after the change."),
  by: z.enum([...ADDITIVE, ...RATES]).default("device_time").describe(
    "device_time (µs), op_to_op_gap (µs) or total_percent; flops, dram and cores are " +
      "per-operation rates or allocations and are refused, since a sum of them means nothing.",
  ),
  limit: limitArg("Op codes"),
  ...rangeArgs,
});

/** The `diff_reports` tool. */
export const diffReports = defineTool({
  name: "diff_reports",
  title: "Compare two reports",
  description:
    "Per-operation-code deltas of an additive metric between a baseline report (handle_a) and " +
    "the report after a change (handle_b), largest movement first in either direction. Rows " +
    "are grouped by tt-perf-report's op code (a matmul's shape is part of it), not joined on " +
    "row id, so an inserted or reordered op does not make every later op a change; " +
    "count_before/count_after say how many rows each op code had. delta_total is the change of " +
    "the summed metric over every op code. One signpost range, when given, is applied to both " +
    "reports. Use top_ops to compare a rate (flops, dram) or a core count.",
  input,
  reads: ["performance_csv"],
  cannotAnswer: performanceCsvUnavailable,
  async handler(args, ctx) {
    if ((RATES as readonly string[]).includes(args.by)) {
      throw new Refusal(
        `diff_reports cannot sum ${args.by}: it is a per-operation rate or allocation, so a ` +
          `total or a delta of it is not meaningful; use device_time, op_to_op_gap or ` +
          `total_percent, or rank by ${args.by} with top_ops`,
      );
    }
    const by = args.by as Additive;
    const a = await ctx.registry.get(args.handle_a);
    const b = await ctx.registry.get(args.handle_b);
    const range = { start_signpost: args.start_signpost, end_signpost: args.end_signpost };
    if (isRanged(range)) checkRange(range, [["handle_a", a], ["handle_b", b]]);
    const before = side(a, range, "handle_a");
    const after = side(b, range, "handle_b");
    const value = (r: PerfRow) => r[by];
    const sumsA = totalsByOpCode(before.perf.rows, value);
    const sumsB = totalsByOpCode(after.perf.rows, value);
    const codes = [...new Set([...sumsA.keys(), ...sumsB.keys()])];
    const changes = codes.map((op_code) => {
      const x = sumsA.get(op_code);
      const y = sumsB.get(op_code);
      const tx = x ? pythonSum(x.values) : 0;
      const ty = y ? pythonSum(y.values) : 0;
      return {
        op_code,
        [`${by}_before`]: round3(tx),
        [`${by}_after`]: round3(ty),
        delta: round3(ty - tx),
        count_before: x?.values.length ?? 0,
        count_after: y?.values.length ?? 0,
        _abs: Math.abs(ty - tx),
      };
    });
    // Largest movement first; equal movements in op-code order, so the answer is deterministic.
    changes.sort((p, q) =>
      q._abs - p._abs || (p.op_code < q.op_code ? -1 : p.op_code > q.op_code ? 1 : 0)
    );
    const shown = changes.slice(0, capped(args.limit)).map(({ _abs, ...c }) => c);
    const totalA = pythonSum([...sumsA.values()].flatMap((s) => s.values));
    const totalB = pythonSum([...sumsB.values()].flatMap((s) => s.values));
    const answer: Record<string, unknown> = {
      metric: by,
      before: args.handle_a,
      after: args.handle_b,
      op_code_count: changes.length,
      returned: shown.length,
      changes: shown,
      projection: { before: before.projection, after: after.projection },
      grouped_by: "op_code",
      [`${by}_total_before`]: round3(totalA),
      [`${by}_total_after`]: round3(totalB),
      delta_total: round3(totalB - totalA),
    };
    const caveat = subDevicesOfBoth(before.perf, after.perf);
    if (caveat) answer.caveat = caveat;
    return answer;
  },
});

/**
 * Checks one range against both reports before generating either: refused when a report
 * cannot honour it, or when only one of them holds signposts (a window against a whole report
 * would show every row outside the window as a change). A refusal names its report.
 */
function checkRange(range: SignpostRange, sides: [string, LoadedReport][]) {
  const ignored: boolean[] = [];
  for (const [label, report] of sides) {
    const table = performanceTable({ tool: "diff_reports", report });
    try {
      ignored.push(resolveSignpostWindow(table, range.start_signpost, range.end_signpost).ignored);
    } catch (e) {
      if (e instanceof SignpostRangeError) {
        throw new Refusal(`${label} (${report.handle}): ${e.message}`);
      }
      throw e;
    }
  }
  if (ignored[0] !== ignored[1]) {
    const [withNone] = sides[ignored[0] ? 0 : 1];
    throw new Refusal(
      `${withNone} (${sides[ignored[0] ? 0 : 1][1].handle}) holds no signposts while the other ` +
        "report does: a window compared against a whole report would show every row outside " +
        "the window as a change. Diff the whole reports (no range) instead.",
    );
  }
}

function side(report: LoadedReport, range: SignpostRange, label: string) {
  return performanceReport({ tool: `diff_reports (${label})`, report }, range);
}

/** Each op code's metric values over the rows that have one (keyed by the decorated op code). */
function totalsByOpCode(rows: readonly PerfRow[], value: (r: PerfRow) => number | null) {
  const sums = new Map<string, { values: number[] }>();
  for (const row of rows) {
    const v = value(row);
    if (v === null || !Number.isFinite(v)) continue;
    const key = (row.op_code || row.raw_op_code || "").trim();
    if (key === "") continue;
    let s = sums.get(key);
    if (!s) sums.set(key, s = { values: [] });
    s.values.push(v);
  }
  return sums;
}

/** The caveat when either report spans more than one sub-device. */
function subDevicesOfBoth(a: PerfReport, b: PerfReport): string | null {
  const ids = subDeviceIds([...a.rows, ...b.rows]);
  if (ids.length < 2) return null;
  return `the reports span ${ids.length} sub-devices (${ids.map(String).join(", ")}): operations ` +
    "on different sub-devices can run concurrently, so the summed totals and their delta " +
    "overstate elapsed time.";
}
