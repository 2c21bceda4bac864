/**
 * `lower_bounds`: each operation's theoretical lower bound from its shapes and dtypes, and the
 * absolute gap between that and its measured device time, largest gap first — the ranking the
 * users' method starts a deep dive from.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg, rangeArgs } from "./args.ts";
import type { Inventory } from "../session/inventory.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import { performanceReport, type Projection, subDeviceCaveat } from "../analysis/performance.ts";
import { RowCells } from "../analysis/include_groups.ts";
import { tensorSlots } from "../analysis/dram_traffic.ts";
import {
  type BoundSum,
  METHOD,
  type RowBound,
  rowBounds,
  shapeKey,
  sumBounds,
} from "../analysis/lower_bounds.ts";
import { round3, sig3 } from "../kit/figures.ts";
import type { PerfReport } from "../perf_report/types.ts";
import type { LoadedReport } from "../session/registry.ts";

const input = z.strictObject({
  handle: handleArg,
  ...rangeArgs,
  group_by: z.enum(["shape", "op"]).default("shape").describe(
    "shape (default): one entry per op code with the same tensor shapes, dtypes, layouts and " +
      "memory, summed over its calls (a different shape is a different operation); op: one entry " +
      "per performance row.",
  ),
  dram_bandwidth_gbps: z.number().positive().optional().describe(
    "DRAM bandwidth to bound against, GB/s (default: the architecture's, as tt-perf-report " +
      "models it — Wormhole 288, Blackhole 512).",
  ),
  limit: limitArg("Entries"),
});

/** Why the report cannot be bounded, or null. */
function cannotAnswer(inv: Inventory): string | null {
  const csv = performanceCsvUnavailable(inv);
  if (csv) return csv;
  const read = inv.performance!.csvRead;
  if (!read?.ok) return "the performance CSV cannot be read";
  const slots = tensorSlots(read.table.header);
  if (slots.length === 0) {
    return "the performance CSV has no tensor memory columns (INPUT_0_MEMORY …)";
  }
  if (!read.table.header.includes("INPUT_0_DATATYPE")) {
    return "the performance CSV has no tensor dtype columns";
  }
  const shapes = ["INPUT_0_Y", "INPUT_0_Y_PAD[LOGICAL]"];
  if (!shapes.some((c) => read.table.header.includes(c))) {
    return "the performance CSV has no tensor shape columns (INPUT_0_Y_PAD[LOGICAL] …), so no " +
      "tensor's bytes can be counted";
  }
  return null;
}

type GroupBy = z.infer<typeof input>["group_by"];

/** A matmul's compute time with the cores it used, and the cores and bandwidth it needed. */
export interface MatmulSplit {
  cores_used: number | null;
  compute_with_cores_used_us: number | null;
  cores_needed_for_dram_bound: number | null;
  effective_dram_gbps: number | null;
  effective_dram_percent: number | null;
}

/**
 * One entry: a performance row (`id`, group_by op) or the calls of one op code with the same
 * shapes (`count` and the first `ids`, group_by shape), its measured time, bound and gap.
 */
export interface LowerBoundsEntry {
  id?: string;
  count?: number;
  ids?: string[];
  op_code: string;
  shape: string;
  measured_us: number | null;
  lower_bound_us: number | null;
  gap_us: number | null;
  ratio: number | null;
  limited_by: "none" | "compute" | "dram";
  dram_bytes: number;
  dram_bound_us: number | null;
  compute_bound_us: number | null;
  note?: string;
  unknown_dram_tensors?: number;
  bound_exceeds_measured?: true;
  matmul_split?: MatmulSplit;
}

/** Every entry's times summed, over `rows` rows bounded. */
export interface LowerBoundsTotals {
  measured_us: number | null;
  lower_bound_us: number | null;
  gap_us: number | null;
  rows: number;
}

/** The answer of `lower_bounds`. */
export interface LowerBoundsAnswer {
  handle: string;
  group_by: GroupBy;
  dram_bandwidth_gbps: number;
  dram_bandwidth_from: string;
  entry_count: number;
  returned: number;
  entries: LowerBoundsEntry[];
  totals: LowerBoundsTotals;
  assumptions: string[];
  method: typeof METHOD;
  projection: Projection;
}

/** The `lower_bounds` tool. */
export const lowerBounds = reportTool({
  name: "lower_bounds",
  title: "Gap to the theoretical limit",
  summary: "Rank operations by the absolute gap between their measured device time and a " +
    "theoretical lower bound computed from their shapes and dtypes.",
  description:
    "Rank operations by the absolute gap between their measured device time and a theoretical " +
    "lower bound computed from their shapes and dtypes: the larger of DRAM time (bytes of the " +
    "tensors in DRAM, tile-exact, ÷ DRAM bandwidth) and compute time (FLOPs ÷ cores used × peak " +
    "at the math fidelity; matmul and conv only). ratio is shown, never used to rank. For " +
    "matmuls also the split: compute time with the cores used, cores needed to reach the DRAM " +
    "bound, and the effective DRAM bandwidth achieved. method states every formula and " +
    "assumptions what was and was not counted.",
  input,
  reads: ["performance_csv"],
  cannotAnswer,
  handler(args, ctx): LowerBoundsAnswer {
    const { report } = ctx;
    const why = cannotAnswer(report.inventory);
    if (why) throw new Refusal(`${ctx.tool} cannot answer for ${args.handle}: ${why}`);
    const range = { start_signpost: args.start_signpost, end_signpost: args.end_signpost };
    const { perf, projection } = performanceReport(ctx, range);
    const bandwidth = args.dram_bandwidth_gbps ?? perf.arch.dram_bandwidth_gb_s;
    const bounds = boundedRows(ctx.tool, report, perf, bandwidth);
    const sums = sumBounds(bounds, args.group_by === "op" ? (b) => String(b.row.id) : shapeKey);
    const shown = largestGapsFirst(sums).slice(0, capped(args.limit));
    ctx.parts.caveat(subDeviceCaveat(perf));
    return {
      handle: args.handle,
      group_by: args.group_by,
      dram_bandwidth_gbps: bandwidth,
      dram_bandwidth_from: args.dram_bandwidth_gbps === undefined
        ? `architecture (${perf.arch.name})`
        : "argument",
      entry_count: sums.length,
      returned: shown.length,
      entries: shown.map((s) => entry(s, bandwidth, args.group_by)),
      totals: totalsOf(sums, bounds.length),
      assumptions: assumptions(
        sums.reduce((n, s) => n + s.unknown_tensors, 0),
        sums.filter((s) => s.lower_bound_us > s.measured_us).length,
      ),
      method: METHOD,
      projection,
    };
  },
});

/** Every row of `perf` that can be bounded, with its bound at `bandwidth` GB/s. */
function boundedRows(
  tool: string,
  report: LoadedReport,
  perf: PerfReport,
  bandwidth: number,
): RowBound[] {
  const read = report.inventory.performance!.csvRead!;
  if (!read.ok) throw new Refusal(`${tool}: the performance CSV cannot be read`);
  return rowBounds(perf, {
    dramBandwidthGbps: bandwidth,
    cells: new RowCells(read.table),
    slots: tensorSlots(read.table.header),
  });
}

/** `sums` by the gap between measured time and bound, largest first; ties by first id. */
function largestGapsFirst(sums: readonly BoundSum[]): BoundSum[] {
  return sums
    .map((s) => ({ s, gap: s.measured_us - s.lower_bound_us }))
    .sort((a, b) => b.gap - a.gap || a.s.ids[0] - b.s.ids[0])
    .map(({ s }) => s);
}

/** The measured times and bounds summed over every entry. */
function totalsOf(sums: readonly BoundSum[], rows: number): LowerBoundsTotals {
  const total = (f: (s: BoundSum) => number) => sums.reduce((n, s) => n + f(s), 0);
  const measured = total((s) => s.measured_us);
  const bound = total((s) => s.lower_bound_us);
  return {
    measured_us: round3(measured),
    lower_bound_us: round3(bound),
    gap_us: round3(measured - bound),
    rows,
  };
}

/** One entry as answered, with its matmul split when it is a modelled matmul. */
function entry(s: BoundSum, bandwidth: number, groupBy: GroupBy): LowerBoundsEntry {
  return {
    ...(groupBy === "op"
      ? { id: String(s.ids[0]) }
      : { count: s.ids.length, ids: s.ids.slice(0, 10).map(String) }),
    op_code: s.op_code,
    shape: s.shape,
    measured_us: round3(s.measured_us),
    lower_bound_us: round3(s.lower_bound_us),
    gap_us: round3(s.measured_us - s.lower_bound_us),
    ratio: s.lower_bound_us > 0 ? sig3(s.measured_us / s.lower_bound_us) : null,
    limited_by: s.lower_bound_us === 0
      ? "none"
      : (s.compute_bound_us ?? 0) > s.dram_bound_us
      ? "compute"
      : "dram",
    dram_bytes: s.dram_bytes,
    dram_bound_us: round3(s.dram_bound_us),
    compute_bound_us: round3(s.compute_bound_us),
    ...(s.lower_bound_us === 0
      ? { note: "no tensor in DRAM and no compute model: the bound is 0, not a measurement" }
      : {}),
    ...(s.unknown_tensors > 0 ? { unknown_dram_tensors: s.unknown_tensors } : {}),
    ...(s.lower_bound_us > s.measured_us ? { bound_exceeds_measured: true as const } : {}),
    ...(s.is_matmul && s.flop_count !== null && s.peak_tflops_per_core !== null
      ? { matmul_split: matmulSplit(s, s.flop_count, s.peak_tflops_per_core, bandwidth) }
      : {}),
  };
}

/** A matmul's split: compute with the cores used, cores needed, DRAM bandwidth achieved. */
function matmulSplit(
  s: BoundSum,
  flopCount: number,
  peakTflopsPerCore: number,
  bandwidth: number,
): MatmulSplit {
  const perCore = peakTflopsPerCore * 1e12;
  return {
    cores_used: s.cores,
    compute_with_cores_used_us: round3(s.compute_bound_us),
    cores_needed_for_dram_bound: s.dram_bound_us > 0
      ? sig3(flopCount / ((s.dram_bound_us * 1e-6) * perCore))
      : null,
    effective_dram_gbps: s.measured_us > 0
      ? sig3(s.dram_bytes / (s.measured_us * 1e-6) / 1e9)
      : null,
    effective_dram_percent: s.measured_us > 0
      ? sig3((s.dram_bytes / (s.measured_us * 1e-6) / 1e9 / bandwidth) * 100)
      : null,
  };
}

/** What the bound assumes, with how many tensors went uncounted and bounds exceed the time. */
function assumptions(unknown: number, exceeding: number): string[] {
  return [
    "Every input and output tensor whose memory is DRAM is read or written exactly once; tensors in L1 cost no DRAM time.",
    "Intermediate traffic (circular-buffer spills, re-reads, halo exchanges) and dispatch are not counted, so the bound is a floor.",
    "Compute bounds exist only for ops tt-perf-report models (matmul, conv), at the cores the op ran on and its math fidelity; other ops are bounded by DRAM alone.",
    "The measured time is tt-perf-report's device time (the device kernel duration; for a collective, the mean over devices).",
    ...(unknown > 0
      ? [
        `${unknown} DRAM tensor(s) had no usable shape or dtype and were not counted: those bounds are too low.`,
      ]
      : []),
    ...(exceeding > 0
      ? [
        `${exceeding} entr${
          exceeding === 1 ? "y's" : "ies'"
        } bound exceeds the measured time (bound_exceeds_measured): an assumption does not hold for it.`,
      ]
      : []),
  ];
}
