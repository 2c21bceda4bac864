/**
 * `lower_bounds`: each operation's theoretical lower bound from its shapes and dtypes, and the
 * absolute gap between that and its measured device time, largest gap first — the ranking the
 * users' method starts a deep dive from.
 *
 * @module
 */
import { z } from "zod";
import { derivedOf } from "../kit/derived.ts";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import {
  capped,
  csvDeviceArg,
  handleArg,
  limitArg,
  opCodeFilterArg,
  type RangeArgs,
  rangeArgs,
  viewArgsOf,
} from "./args.ts";
import { nextIf } from "./_next.ts";
import type { ReportContext } from "./tool.ts";
import type { Inventory } from "../session/inventory.ts";
import { type Projection, subDeviceCaveat } from "../analysis/performance.ts";
import { RowCells } from "../analysis/include_groups.ts";
import { tensorSlots } from "../analysis/dram_traffic.ts";
import {
  type BoundSum,
  coresNeededForLimit,
  lowerBoundsUnavailable as cannotAnswer,
  type RowBound,
  rowBounds,
  shapeKey,
  sumBounds,
  type WorkerCoresSource,
} from "../analysis/lower_bounds.ts";
import {
  ARCHITECTURE_NAMES,
  type ArchitectureUsed,
  architectureWarnings,
  boundArchitecture,
  knownArchitecture,
} from "../analysis/architecture.ts";
import { round3, sig3 } from "../kit/rounding.ts";
import {
  cellOf,
  type CsvTable,
  type PerfReport,
  type PerfRow,
  rowIndexOf,
} from "../perf_report/mod.ts";
import { reportOver } from "./_window.ts";
import { type OpFilter, opFilter } from "../analysis/op_filter.ts";

const input = z.strictObject({
  handle: handleArg,
  ...rangeArgs,
  device: csvDeviceArg,
  op_code: opCodeFilterArg,
  group_by: z.enum(["shape", "op"]).default("shape").describe(
    "shape: per op code and shapes; op: per row.",
  ),
  dram_bandwidth_gbps: z.number().positive().optional().describe("GB/s."),
  arch: z.string().optional().describe("Override, e.g. p150."),
  limit: limitArg("Entries"),
});

type GroupBy = z.infer<typeof input>["group_by"];

/** How an operation with a compute model missed its limit. */
export interface GapSplit {
  /** The cores it ran on (tt-perf-report's count: a DRAM-sharded matmul's is substituted). */
  cores_used: number | null;
  compute_at_cores_used_us: number | null;
  /** measured − max(limit, compute at the cores used), where compute binds on those cores. */
  not_kept_busy_us: number | null;
  /** The same residual where DRAM binds on the cores used: DRAM below its bandwidth. */
  dram_not_kept_busy_us: number | null;
  /** max(0, compute at the cores used − limit). */
  too_few_cores_us: number | null;
  cores_needed_for_limit: number | null;
}

/**
 * One entry: a performance row (`id`, group_by op) or the calls of one op code with the same
 * shapes (`count` and the first `ids`, group_by shape), its measured time, limit and gap.
 */
export interface LowerBoundsEntry {
  id?: string;
  count?: number;
  ids?: string[];
  op_code: string;
  /** The op code as top_ops prints it (matmul and conv sizes), when it differs: op_code takes it. */
  label?: string;
  shape: string;
  measured_us: number | null;
  lower_bound_us: number | null;
  gap_us: number | null;
  ratio: number | null;
  limited_by: "none" | "compute" | "dram";
  dram_bytes: number;
  dram_bound_us: number | null;
  /** The compute limit on every worker core; null without a compute model. */
  compute_bound_us: number | null;
  /** tt-perf-report's core count of the rows (null when they differ). */
  cores_used: number | null;
  /** The CSV's CORE COUNT, where tt-perf-report substituted a DRAM-sharded matmul's. */
  csv_core_count?: number | null;
  worker_cores: number | null;
  worker_cores_source: WorkerCoresSource | null;
  /** `too_few_cores`: it ran on under a quarter of the worker cores. */
  findings?: "too_few_cores"[];
  compute_modelled: boolean;
  /** With a compute model: how the gap splits. */
  gap_split?: GapSplit;
  /** Without a compute model: the performance model's ideal time (PM IDEAL), shown only. */
  model_ideal_us?: number | null;
  /**
   * Without a compute model: why the bound is a floor from DRAM alone, the note
   * `lower_bounds.dram_only` (named once in the answer's notes, not said on each entry).
   */
  bound_note?: "dram_only";
  effective_dram_gbps: number | null;
  effective_dram_percent: number | null;
  /** With a bound of 0: why, the note `lower_bounds.zero_bound` (named in the answer's notes). */
  note?: "zero_bound";
  unknown_dram_tensors?: number;
  bound_exceeds_measured?: true;
}

/** Every entry's times summed, over `rows` rows bounded. */
export interface LowerBoundsTotals {
  measured_us: number | null;
  lower_bound_us: number | null;
  gap_us: number | null;
  /** Σ not_kept_busy_us and too_few_cores_us over the entries with a compute model. */
  not_kept_busy_us: number | null;
  dram_not_kept_busy_us: number | null;
  too_few_cores_us: number | null;
  rows: number;
}

/** The architecture the bounds divide by. */
export interface BoundArchitecture {
  name: string;
  source: ArchitectureUsed["source"];
  worker_cores: number;
  /** tt-perf-report's messages about the architecture or core budget, when it printed any. */
  tt_perf_report_warnings?: string[];
}

/** The answer of `lower_bounds`. */
export interface LowerBoundsAnswer {
  handle: string;
  group_by: GroupBy;
  architecture: BoundArchitecture;
  dram_bandwidth_gbps: number;
  dram_bandwidth_from: string;
  entry_count: number;
  returned: number;
  entries: LowerBoundsEntry[];
  totals: LowerBoundsTotals;
  /**
   * What this answer's bounds assume beyond what every bound does (the note
   * `lower_bounds.assumptions`): tensors not counted, bounds above the measured time. Absent
   * when nothing does.
   */
  assumptions?: string[];
  projection: Projection;
  /** The op_code filter applied: what it matched. */
  op_filter?: OpFilter["said"];
}

/** The `lower_bounds` tool. */
export const lowerBounds = reportTool({
  name: "lower_bounds",
  title: "Gap to the theoretical limit",
  summary: "Rank operations by the absolute gap between their measured device time and a " +
    "theoretical lower bound computed from their shapes and dtypes.",
  description: "Each operation's gap to its theoretical limit, largest first; a matmul's gap " +
    "splits into cores not kept busy and too few.",
  input,
  reads: ["performance_csv"],
  cannotAnswer,
  fitList: "entries",
  handler(args, ctx): LowerBoundsAnswer {
    const { report } = ctx;
    const why = cannotAnswer(report.inventory);
    if (why) throw new Refusal(`${ctx.tool} cannot answer for ${args.handle}: ${why}`);
    const { perf, projection } = reportOver(ctx, args);
    const table = csvTable(ctx.tool, report.inventory);
    if (args.arch !== undefined && knownArchitecture(args.arch) === null) {
      throw new Refusal(
        `arch ${JSON.stringify(args.arch)} is not an architecture tt-perf-report models; ` +
          `pass one of ${ARCHITECTURE_NAMES.join(", ")}`,
      );
    }
    const arch = boundArchitecture(report.inventory, table, perf, args.arch);
    const bandwidth = args.dram_bandwidth_gbps ?? arch.spec.dram_bandwidth_gb_s;
    const filter = args.op_code === undefined ? null : opFilter(ctx.tool, perf.rows, args.op_code);
    const bounds = boundedRows(table, perf, filter?.rows ?? null, arch, bandwidth);
    const sums = derivedOf(
      bounds,
      `sums:${args.group_by}`,
      () => sumBounds(bounds, args.group_by === "op" ? (b) => String(b.row.id) : shapeKey),
    );
    const shown = largestGapsFirst(sums).slice(0, capped(args.limit));
    ctx.parts.caveat(subDeviceCaveat(perf));
    if (arch.source === "assumed") {
      ctx.parts.assume("architecture", {
        assumed: arch.spec.name,
        why: arch.why!,
        override: "pass arch (e.g. p150, wormhole_b0) or dram_bandwidth_gbps",
      });
    }
    if (shown[0]) nextAfter(ctx, shown[0], args);
    ctx.parts.cut("entries", {
      total: sums.length,
      returned: shown.length,
      reason: "limit",
      more: "pass a higher limit (at most 100), or narrow the rows with op_code, a pass or a range",
    });
    const entries = shown.map((s) => entry(s, bandwidth, args.group_by, table));
    ctx.parts.note("lower_bounds.method", "lower_bounds.assumptions");
    for (const e of entries) {
      if (e.bound_note === "dram_only") ctx.parts.note("lower_bounds.dram_only");
      if (e.note === "zero_bound") ctx.parts.note("lower_bounds.zero_bound");
    }
    const particular = derivedOf(sums, "assumptions", () =>
      assumptions(
        sums.reduce((n, s) => n + s.unknown_tensors, 0),
        sums.filter((s) => s.lower_bound_us > s.measured_us).length,
      ));
    return {
      handle: args.handle,
      group_by: args.group_by,
      architecture: architectureOf(arch, perf),
      dram_bandwidth_gbps: bandwidth,
      dram_bandwidth_from: args.dram_bandwidth_gbps === undefined
        ? `architecture (${arch.spec.name})`
        : "argument",
      entry_count: sums.length,
      returned: shown.length,
      entries,
      totals: derivedOf(sums, "totals", () => totalsOf(sums, bounds.length)),
      ...(particular.length > 0 ? { assumptions: particular } : {}),
      projection,
      ...(filter ? { op_filter: filter.said } : {}),
    };
  },
});

/**
 * The next step from the largest gap: how its kernel time fell across its cores (core_spread,
 * when the handle has a device log), else its rows' configuration and advice.
 */
function nextAfter(
  ctx: ReportContext,
  s: BoundSum,
  args: { handle: string; device?: number } & RangeArgs,
): void {
  const label = s.label;
  const group = s.ids.length > 1 ? `${label}'s ${s.ids.length} calls` : `row ${s.ids[0]}`;
  const pick = s.ids.length > 1 ? { op_code: label } : { perf_id: String(s.ids[0]) };
  if (
    nextIf(ctx, {
      tool: "core_spread",
      why: `the largest gap: how ${group} spread across their cores`,
      arguments: { handle: args.handle, ...pick },
    })
  ) return;
  nextIf(ctx, {
    tool: "top_ops",
    why: `the largest gap: ${group} with their configuration and tt-perf-report's advice`,
    arguments: {
      handle: args.handle,
      op_code: label,
      include: ["config", "advice"],
      ...viewArgsOf(args),
    },
  });
}

/** The parsed CSV, which cannotAnswer has already found readable. */
function csvTable(tool: string, inv: Inventory): CsvTable {
  const read = inv.performance!.csvRead!;
  if (!read.ok) throw new Refusal(`${tool}: the performance CSV cannot be read`);
  return read.table;
}

/** The architecture block of the answer. */
function architectureOf(arch: ArchitectureUsed, perf: PerfReport): BoundArchitecture {
  const warnings = arch.source === "performance_csv" ? architectureWarnings(perf) : [];
  return {
    name: arch.spec.name,
    source: arch.source,
    worker_cores: arch.spec.worker_cores,
    ...(warnings.length > 0 ? { tt_perf_report_warnings: warnings } : {}),
  };
}

/**
 * Every row of `perf` that can be bounded (of `rows` alone, when given), against `arch` at
 * `bandwidth` GB/s: the whole report's bounds are made once and kept with it.
 */
function boundedRows(
  table: CsvTable,
  perf: PerfReport,
  rows: readonly PerfRow[] | null,
  arch: ArchitectureUsed,
  bandwidth: number,
): RowBound[] {
  const all = derivedOf(
    perf,
    `row-bounds:${JSON.stringify(arch.spec)}:${bandwidth}`,
    () =>
      rowBounds(perf, {
        spec: arch.spec,
        dramBandwidthGbps: bandwidth,
        cells: new RowCells(table),
        slots: tensorSlots(table.header),
      }),
  );
  if (rows === null) return all;
  const kept = new Set(rows);
  return all.filter((b) => kept.has(b.row));
}

/** `sums` by the gap between measured time and bound, largest first; ties by first id. */
function largestGapsFirst(sums: readonly BoundSum[]): BoundSum[] {
  return derivedOf(sums, "largest-gaps-first", () =>
    sums
      .map((s) => ({ s, gap: s.measured_us - s.lower_bound_us }))
      .sort((a, b) => b.gap - a.gap || a.s.ids[0] - b.s.ids[0])
      .map(({ s }) => s));
}

/** The measured times, limits and split summed over every entry. */
function totalsOf(sums: readonly BoundSum[], rows: number): LowerBoundsTotals {
  const total = (f: (s: BoundSum) => number) => sums.reduce((n, s) => n + f(s), 0);
  const measured = total((s) => s.measured_us);
  const bound = total((s) => s.lower_bound_us);
  const split = sums.filter((s) => s.split !== null);
  return {
    measured_us: round3(measured),
    lower_bound_us: round3(bound),
    gap_us: round3(measured - bound),
    not_kept_busy_us: split.length === 0
      ? null
      : round3(split.reduce((n, s) => n + s.split!.not_kept_busy_us, 0)),
    dram_not_kept_busy_us: split.length === 0
      ? null
      : round3(split.reduce((n, s) => n + s.split!.dram_not_kept_busy_us, 0)),
    too_few_cores_us: split.length === 0
      ? null
      : round3(split.reduce((n, s) => n + s.split!.too_few_cores_us, 0)),
    rows,
  };
}

/** One entry as answered: its limit and gap, split when it has a compute model. */
function entry(
  s: BoundSum,
  bandwidth: number,
  groupBy: GroupBy,
  table: CsvTable,
): LowerBoundsEntry {
  const achieved = s.measured_us > 0 ? s.dram_bytes / (s.measured_us * 1e-6) / 1e9 : null;
  return {
    ...(groupBy === "op"
      ? { id: String(s.ids[0]) }
      : { count: s.ids.length, ids: s.ids.slice(0, 10).map(String) }),
    op_code: s.op_code,
    ...(s.label !== s.op_code ? { label: s.label } : {}),
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
    cores_used: s.cores,
    ...csvCores(s, table),
    worker_cores: s.worker_cores,
    worker_cores_source: s.worker_cores_source,
    ...(s.cores !== null && s.worker_cores !== null && s.cores < s.worker_cores / 4
      ? { findings: ["too_few_cores" as const] }
      : {}),
    compute_modelled: s.compute_modelled,
    ...(s.split === null
      ? (s.compute_modelled
        ? {}
        : { model_ideal_us: round3(s.model_ideal_us), bound_note: "dram_only" as const })
      : { gap_split: gapSplit(s) }),
    effective_dram_gbps: achieved === null ? null : sig3(achieved),
    effective_dram_percent: achieved === null ? null : sig3((achieved / bandwidth) * 100),
    ...(s.lower_bound_us === 0 ? { note: "zero_bound" as const } : {}),
    ...(s.unknown_tensors > 0 ? { unknown_dram_tensors: s.unknown_tensors } : {}),
    ...(s.lower_bound_us > s.measured_us ? { bound_exceeds_measured: true as const } : {}),
  };
}

/** How the gap of an entry with a compute model splits. */
function gapSplit(s: BoundSum): GapSplit {
  const needed = coresNeededForLimit(s);
  return {
    cores_used: s.cores,
    compute_at_cores_used_us: round3(s.split!.compute_at_cores_used_us),
    not_kept_busy_us: round3(s.split!.not_kept_busy_us),
    dram_not_kept_busy_us: round3(s.split!.dram_not_kept_busy_us),
    too_few_cores_us: round3(s.split!.too_few_cores_us),
    cores_needed_for_limit: needed === null ? null : sig3(needed),
  };
}

/** The CSV's CORE COUNT of the entry's first row, when tt-perf-report's count differs. */
function csvCores(s: BoundSum, table: CsvTable): { csv_core_count?: number | null } {
  const col = table.header.indexOf("CORE COUNT");
  if (col < 0 || s.cores === null) return {};
  const csv = Number(cellOf(table, rowIndexOf(s.ids[0]), col).trim() || NaN);
  if (csv === s.cores) return {};
  return { csv_core_count: Number.isFinite(csv) ? csv : null };
}

/**
 * What this answer's bounds assume beyond the note every bound rests on: how many tensors went
 * uncounted and how many bounds exceed the measured time.
 */
function assumptions(unknown: number, exceeding: number): string[] {
  return [
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
