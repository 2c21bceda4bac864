/**
 * `diff_reports`: per-op-code deltas between two performance reports, largest movement first,
 * over the whole reports or one signpost range applied to both.
 *
 * @module
 */
import { z } from "zod";
import {
  listDeviceIds,
  type PerfReport,
  type PerfRow,
  pythonSum,
  resolveSignpostWindow,
  SignpostRangeError,
} from "../perf_report/mod.ts";
import { defineTool } from "./tool.ts";
import type { PartsWriter } from "./answer_parts.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, csvDeviceArg, helped, limitArg, rangeArgs, rangeOf, viewArgsOf } from "./args.ts";
import { nextIf } from "./_next.ts";
import { hostTimeOf } from "./_window.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  ignoredRangeCaveat,
  isRanged,
  performanceReport,
  performanceTable,
  type Projection,
  type ReportView,
  type SignpostRange,
  subDeviceIds,
} from "../analysis/performance.ts";
import { round3 } from "../kit/rounding.ts";
import type { LoadedReport } from "../session/handles.ts";

const ADDITIVE = ["device_time", "op_to_op_gap", "total_percent"] as const;
type Additive = typeof ADDITIVE[number];
const RATES = ["flops", "dram", "cores"] as const;

const input = z.strictObject({
  handle_a: z.string(),
  handle_b: z.string(),
  by: helped(
    z.enum([...ADDITIVE, ...RATES]).default("device_time"),
    "The metric whose per-op-code change is ranked, largest movement first.",
  ),
  limit: limitArg("Op codes"),
  ...rangeArgs,
  device: csvDeviceArg,
});

/** One op code's change: its summed metric before and after (keyed by the metric's name). */
export interface DiffReportsChange
  extends Partial<Record<`${Additive}_before` | `${Additive}_after`, number | null>> {
  op_code: string;
  delta: number | null;
  count_before: number;
  count_after: number;
}

/** The answer of `diff_reports`; the totals are keyed by the metric's name. */
export interface DiffReportsAnswer
  extends Partial<Record<`${Additive}_total_before` | `${Additive}_total_after`, number | null>> {
  metric: Additive;
  before: string;
  after: string;
  op_code_count: number;
  returned: number;
  changes: DiffReportsChange[];
  projection: { before: Projection; after: Projection };
  grouped_by: "op_code";
  delta_total: number | null;
}

/** Each op code's metric values over the rows that have one. */
type ValuesByOpCode = Map<string, number[]>;

/** A change with how far it moved, which orders the changes. */
interface Movement {
  change: DiffReportsChange;
  movement: number;
}

/** The `diff_reports` tool. */
export const diffReports = defineTool({
  name: "diff_reports",
  title: "Compare two reports",
  summary: "Per-operation-code deltas of an additive metric between a baseline report and the " +
    "report after a change, largest movement first.",
  description:
    "Whether a change helped: per op code, the change in a metric from handle_a (before) to " +
    "handle_b (after), largest first.",
  input,
  reads: ["performance_csv"],
  cannotAnswer: performanceCsvUnavailable,
  fitList: "changes",
  async handler(args, ctx): Promise<DiffReportsAnswer> {
    const by = additive(args.by, ctx.tool);
    const a = await ctx.registry.get(args.handle_a);
    const b = await ctx.registry.get(args.handle_b);
    const range = rangeOf(args);
    if (isRanged(range)) checkRange(ctx.tool, range, [["handle_a", a], ["handle_b", b]]);
    const view = args.device === undefined ? range : { ...range, device: args.device };
    const before = side(ctx.tool, a, view, "handle_a");
    const after = side(ctx.tool, b, view, "handle_b");
    ctx.parts.caveat(ignoredRangeCaveat(before.projection));
    sayHostTimeOfBoth(
      ctx.parts,
      hostTimeOf({ ...ctx, tool: `${ctx.tool} (handle_a)`, report: a }, before.perf),
      hostTimeOf({ ...ctx, tool: `${ctx.tool} (handle_b)`, report: b }, after.perf),
    );
    const valuesA = valuesByOpCode(before.perf.rows, by);
    const valuesB = valuesByOpCode(after.perf.rows, by);
    const changes = opCodeChanges(valuesA, valuesB, by);
    const shown = changes.slice(0, capped(args.limit));
    const totalA = pythonSum([...valuesA.values()].flat());
    const totalB = pythonSum([...valuesB.values()].flat());
    ctx.parts.caveat(subDevicesOfBoth(before.perf, after.perf));
    ctx.parts.caveat(sharedOpCodesCaveat(valuesA, valuesB), deviceCountCaveat(a, b, args.device));
    const moved = shown[0];
    if (moved) {
      nextIf({ parts: ctx.parts, report: b }, {
        tool: "top_ops",
        why: `the rows of ${moved.op_code}, the largest change, in handle_b (after)`,
        arguments: { handle: args.handle_b, op_code: moved.op_code, ...viewArgsOf(args) },
      });
    }
    ctx.parts.cut("changes", {
      total: changes.length,
      returned: shown.length,
      reason: "limit",
      more: "pass a higher limit (at most 100); the totals cover every op code",
    });
    return {
      metric: by,
      before: args.handle_a,
      after: args.handle_b,
      op_code_count: changes.length,
      returned: shown.length,
      changes: shown,
      projection: { before: before.projection, after: after.projection },
      grouped_by: "op_code",
      ...beforeAfter(by, "total_", totalA, totalB),
      delta_total: round3(totalB - totalA),
    };
  },
});

/**
 * The host-time caveat of each side, said once for both when it reads the same of both (a
 * report diffed against itself, or two runs alike), with the note on why such gaps are host
 * time.
 */
function sayHostTimeOfBoth(parts: PartsWriter, before: string | null, after: string | null) {
  if (before === null && after === null) return;
  if (before === after) parts.caveat(`Before and after: ${before}`);
  else {
    if (before !== null) parts.caveat(`Before: ${before}`);
    if (after !== null) parts.caveat(`After: ${after}`);
  }
  parts.note("gaps.host_time");
}

/** `by` when a sum of it means something; a rate or allocation is refused. */
function additive(by: Additive | typeof RATES[number], tool: string): Additive {
  if ((RATES as readonly string[]).includes(by)) {
    throw new Refusal(
      `${tool} cannot sum ${by}: it is a per-operation rate or allocation, so a ` +
        `total or a delta of it is not meaningful; use device_time, op_to_op_gap or ` +
        `total_percent, or rank by ${by} with top_ops`,
    );
  }
  return by as Additive;
}

/**
 * Every op code of either report with its summed metric before and after, largest movement
 * first; equal movements in op-code order, so the answer is deterministic.
 */
function opCodeChanges(
  before: ValuesByOpCode,
  after: ValuesByOpCode,
  by: Additive,
): DiffReportsChange[] {
  const codes = [...new Set([...before.keys(), ...after.keys()])];
  return codes
    .map((op_code): Movement => {
      const x = before.get(op_code);
      const y = after.get(op_code);
      const tx = x ? pythonSum(x) : 0;
      const ty = y ? pythonSum(y) : 0;
      return {
        change: {
          op_code,
          ...beforeAfter(by, "", tx, ty),
          delta: round3(ty - tx),
          count_before: x?.length ?? 0,
          count_after: y?.length ?? 0,
        },
        movement: Math.abs(ty - tx),
      };
    })
    .sort((p, q) =>
      q.movement - p.movement ||
      (p.change.op_code < q.change.op_code ? -1 : p.change.op_code > q.change.op_code ? 1 : 0)
    )
    .map((m) => m.change);
}

/** `<by>_<infix>before` and `<by>_<infix>after`, rounded. */
function beforeAfter(
  by: Additive,
  infix: "" | "total_",
  before: number,
  after: number,
): Partial<Record<`${Additive}_${"" | "total_"}${"before" | "after"}`, number | null>> {
  return {
    [`${by}_${infix}before`]: round3(before),
    [`${by}_${infix}after`]: round3(after),
  };
}

/**
 * Checks one range against both reports before generating either: refused when a report
 * cannot honour it, or when only one of them holds signposts (a window against a whole report
 * would show every row outside the window as a change). A refusal names its report.
 */
function checkRange(tool: string, range: SignpostRange, sides: [string, LoadedReport][]) {
  const ignored: boolean[] = [];
  for (const [label, report] of sides) {
    const table = performanceTable({ tool, report });
    try {
      ignored.push(
        resolveSignpostWindow(
          table,
          range.start_signpost,
          range.end_signpost,
          range.start_occurrence,
        ).ignored,
      );
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

/** Under this share of the op codes in common, a delta compares different workloads. */
const FEW_SHARED = 0.5;

/**
 * The caveat of two reports that share few or none of their op codes: their delta is mostly
 * op codes present on one side only, not a change in the same work.
 */
function sharedOpCodesCaveat(a: ValuesByOpCode, b: ValuesByOpCode): string | null {
  const all = new Set([...a.keys(), ...b.keys()]);
  if (all.size === 0) return null;
  const shared = [...a.keys()].filter((k) => b.has(k)).length;
  if (shared / all.size >= FEW_SHARED) return null;
  return `The reports share ${shared} of their ${all.size} op codes (under ` +
    `${FEW_SHARED * 100} %)${shared === 0 ? ": they ran different workloads" : ""}: the ` +
    "delta is mostly op codes present on one side only (count_before or count_after 0), not a " +
    "change in the same work. Diff captures of the same model, or a window (pass, rows, " +
    "signposts) over the same operations.";
}

/** The caveat of reports with different device counts (merged rows are not like for like). */
function deviceCountCaveat(a: LoadedReport, b: LoadedReport, device?: number): string | null {
  if (device !== undefined) return null;
  const count = (r: LoadedReport) => {
    const read = r.inventory.performance?.csvRead;
    return read?.ok ? listDeviceIds(read.table).length : 0;
  };
  const [na, nb] = [count(a), count(b)];
  if (na === nb) return null;
  return `handle_a holds ${na} device${na === 1 ? "" : "s"} and handle_b ${nb}: merged rows ` +
    "are the slowest device's (collectives averaged), so the delta mixes the change with the " +
    "device count; pass device to compare one device of each.";
}

/** One report over `range`; a refusal names the side (`label`) it came from. */
function side(tool: string, report: LoadedReport, range: ReportView, label: string) {
  return performanceReport({ tool: `${tool} (${label})`, report }, range);
}

/** Each op code's metric values over the rows that have one (keyed by the decorated op code). */
function valuesByOpCode(rows: readonly PerfRow[], by: Additive): ValuesByOpCode {
  const values: ValuesByOpCode = new Map();
  for (const row of rows) {
    const v = row[by];
    if (v === null || !Number.isFinite(v)) continue;
    const key = (row.op_code || row.raw_op_code || "").trim();
    if (key === "") continue;
    let list = values.get(key);
    if (!list) values.set(key, list = []);
    list.push(v);
  }
  return values;
}

/** The caveat when either report spans more than one sub-device. */
function subDevicesOfBoth(a: PerfReport, b: PerfReport): string | null {
  const ids = subDeviceIds([...a.rows, ...b.rows]);
  if (ids.length < 2) return null;
  return `the reports span ${ids.length} sub-devices (${ids.map(String).join(", ")}): operations ` +
    "on different sub-devices can run concurrently, so the summed totals and their delta " +
    "overstate elapsed time.";
}
