/**
 * `memory_profile`: memory footprint per operation, keyed by buffer type and ranked within
 * each type, with each type's largest footprint, the device's L1 geometry, and l1_pressure
 * ranking operations by the smallest largest free block — a floor, never the peak.
 *
 * @module
 */
import { z } from "zod";
import { type ReportContext, reportTool } from "./tool.ts";
import { atRank, l1PeakTells, nextToFailedOperation } from "./_failure_steps.ts";
import { nextOrSay } from "./_next.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg, rankArg } from "./args.ts";
import {
  BUFFER_COLUMNS,
  BUFFER_TYPES_SORTED,
  type DeviceBlock,
  deviceBlock,
  devicesAt,
  geometryDiffers,
  operationNames,
  type ProfilerDb,
  rankCaveat,
  rankFields,
  type RankScope,
  unattributable,
} from "../profiler_db/mod.ts";
import { type MemorySummary, memorySummary } from "../analysis/memory_summary.ts";
import type { Footprint, TypeFootprints } from "../analysis/footprints.ts";
import type { RankedPressure } from "../analysis/l1_pressure_at.ts";
import {
  L1_PRESSURE_CAVEAT,
  type L1Pressure,
  present as withPercentages,
} from "../analysis/l1_pressure.ts";
import { FLOOR_NOTE, STATED_ABSENCES } from "../analysis/absences.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";
import { runFailure, type RunFailureField, runFailureField } from "../analysis/run_failure.ts";

const NEEDS = { operations: ["operation_id", "name"], buffers: BUFFER_COLUMNS } as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
const RANKED = ["buffers"];

const input = z.strictObject({
  handle: handleArg,
  buffer_type: z.string().optional().describe("DRAM, L1, L1_SMALL, SYSTEM_MEMORY, TRACE."),
  limit: limitArg("Operations per buffer type, and in the l1_pressure ranking,"),
  rank: rankArg,
});

/** One operation's footprint of one buffer type. */
interface FootprintEntry {
  operation_id: number;
  name: string | null;
  /** Bytes per bank on its most loaded device. */
  size: number;
  device_id: number | null;
}

/** One buffer type's footprints. */
interface TypeMemory {
  /** The largest footprint (0 when none is above 0). */
  peak: number;
  operations_at_peak: number;
  operation_count: number;
  returned: number;
  /** The largest footprints, largest first. */
  operations: FootprintEntry[];
}

/** One operation of the l1_pressure ranking, on its most constrained device. */
interface PressureEntry extends L1Pressure {
  operation_id: number;
  name: string | null;
}

/** The l1_pressure ranking: smallest largest free block first. */
interface PressureRanking {
  ranking: PressureEntry[];
  operation_count: number;
  returned: number;
  size_unit: "bytes_per_bank";
  free_space_precision: "upper_bound";
}

/** The answer of `memory_profile`. */
export interface MemoryProfileAnswer {
  handle: string;
  /** The buffer type asked for, upper-cased; null for every type. */
  buffer_type: string | null;
  memory_by_buffer_type: Record<string, TypeMemory>;
  buffer_types_present: string[];
  size_unit: "bytes_per_bank";
  /** Null when the devices table cannot be attributed to the rank. */
  device: DeviceBlock | null;
  /** Null when the devices give no L1 geometry (the caveat says why). */
  l1_pressure: PressureRanking | null;
  note: string;
  stated_absences: typeof STATED_ABSENCES;
  multi_host: boolean;
  rank: number | null;
  /** When the run recorded a failure on an operation: where, with which error. */
  run_failure?: RunFailureField;
}

/** The `memory_profile` tool. */
export const memoryProfileTool = reportTool({
  name: "memory_profile",
  title: "Memory footprint per operation",
  summary: "Memory footprint per operation from the buffers live after each one, ranked per " +
    "buffer type, with L1 pressure: a floor without circular buffers.",
  description:
    "Memory footprint per operation and buffer type, with L1 pressure: a floor, not the peak, " +
    "since circular buffers and intra-operation tensors never reach the buffers table (for " +
    "out-of-memory, l1_peak).",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  async handler(args, ctx): Promise<MemoryProfileAnswer> {
    const type = askedType(args.buffer_type);
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const limit = capped(args.limit);
    const summary = await memorySummary(pdb, scope, ctx.progress);
    const selected = selectFootprints(summary, type, limit);
    const figures = memoryFigures(pdb, scope, summary, selected, limit);
    ctx.parts.caveat(rankCaveat(scope), ...figures.caveats);
    const failed = failure(ctx, pdb, scope);
    return { ...memoryAnswer(args.handle, type, scope, summary, selected, figures), ...failed };
  },
});

/**
 * `run_failure` when the run failed on an operation, naming the tools that give the peak this
 * answer cannot and the failed request's figures.
 */
function failure(
  ctx: ReportContext,
  pdb: ProfilerDb,
  scope: RankScope,
): { run_failure?: RunFailureField } {
  const f = runFailure(pdb, scope);
  if (f === null) return {};
  if (f.allocation_failure && l1PeakTells(f.allocation_failure.buffer_type)) {
    nextOrSay(ctx, {
      tool: "l1_peak",
      why: "the L1 peak with circular buffers and intermediates, which these footprints leave out",
      arguments: atRank(ctx.report.handle, scope.rank),
    });
  }
  nextToFailedOperation(ctx, scope.rank, f.operation_id);
  return {
    run_failure: runFailureField(
      f,
      "footprints are the buffers recorded after each operation, a floor of what it held",
    ),
  };
}

/** The buffer type asked for, upper-cased; null for every type; refused when unknown. */
function askedType(bufferType: string | undefined): string | null {
  const asked = bufferType?.trim() ?? "";
  const type = asked === "" ? null : asked.toUpperCase();
  if (type !== null && !BUFFER_TYPES_SORTED.includes(type)) {
    throw new Refusal(
      `unknown buffer_type '${asked}'; expected one of ${BUFFER_TYPES_SORTED.join(", ")}`,
    );
  }
  return type;
}

/** The buffer types reported and the largest footprints listed under each. */
interface Selection {
  /** The types the report holds. */
  present: string[];
  /** Each type reported, with its first `limit` footprints. */
  listed: Map<string, Footprint[]>;
}

/**
 * Selects the rows: the types reported (the one asked for, else every type the report holds)
 * and the largest footprints of each, up to `limit`; refused when the report holds buffers
 * but none of the type asked for.
 */
function selectFootprints(summary: MemorySummary, type: string | null, limit: number): Selection {
  const present = [...summary.byType.keys()];
  if (type !== null && present.length > 0 && !present.includes(type)) {
    throw new Refusal(`no ${type} buffers in this report; it holds ${present.join(", ")}`);
  }
  const types = type === null ? present : [type];
  return {
    present,
    listed: new Map(types.map((t) => [t, (summary.byType.get(t)?.top ?? []).slice(0, limit)])),
  };
}

/** What the answer computes besides the footprints, with the caveat parts it needs. */
interface MemoryFigures {
  /** The device block, or null when the devices cannot be attributed to the rank. */
  device: DeviceBlock | null;
  /** The tightest operations, or null when l1_pressure cannot be given. */
  pressure: { operations: number; ranked: RankedPressure[] } | null;
  /** The names of every operation listed. */
  names: Map<number, string | null>;
  /** The caveat parts after the rank's, in order. */
  caveats: (string | null)[];
}

/**
 * Computes the figures: the device's L1 geometry, the l1_pressure ranking up to `limit`, the
 * names of the operations listed, and the caveat parts saying where a figure is missing or
 * bounded.
 */
function memoryFigures(
  pdb: ProfilerDb,
  scope: RankScope,
  summary: MemorySummary,
  selected: Selection,
  limit: number,
): MemoryFigures {
  const device = deviceFigure(pdb, scope);
  const pressure = "why" in summary.pressure ? null : {
    operations: summary.pressure.operations,
    ranked: summary.pressure.top.slice(0, limit),
  };
  const names = operationNames(pdb, scope, [
    ...[...selected.listed.values()].flat().map((f) => f.operation_id),
    ...(pressure?.ranked ?? []).map((r) => r.operation_id),
  ]);
  return {
    device: device.block,
    pressure,
    names,
    caveats: [
      summary.operations === 0
        ? "The buffers table holds no rows here, so no footprint is recorded."
        : null,
      device.caveat,
      ...("why" in summary.pressure
        ? [summary.pressure.why]
        : [L1_PRESSURE_CAVEAT, strayCaveat(summary.pressure.strayDevices)]),
    ],
  };
}

/** The device block, or null with why when the devices cannot be attributed to the rank. */
function deviceFigure(
  pdb: ProfilerDb,
  scope: RankScope,
): { block: DeviceBlock | null; caveat: string | null } {
  const why = unattributable(pdb, scope, ["devices"]);
  if (why !== null) return { block: null, caveat: `device is withheld: ${why}.` };
  const devices = devicesAt(pdb, scope);
  return {
    block: deviceBlock(devices),
    caveat: devices.length > 1 && geometryDiffers(devices)
      ? `The devices differ in L1 geometry; device gives device ${devices[0].device_id}'s.`
      : null,
  };
}

/** The caveat part for L1 buffers on devices without L1 geometry, or null. */
function strayCaveat(stray: readonly number[]): string | null {
  if (stray.length === 0) return null;
  return `L1 buffers on device${stray.length > 1 ? "s" : ""} ${
    stray.join(", ")
  } are left out of l1_pressure: the devices table gives no L1 geometry for them.`;
}

/** Builds the answer: each type's footprints and the l1_pressure ranking, named. */
function memoryAnswer(
  handle: string,
  type: string | null,
  scope: RankScope,
  summary: MemorySummary,
  selected: Selection,
  figures: MemoryFigures,
): MemoryProfileAnswer {
  const name = (id: number) => figures.names.get(id) ?? null;
  const ofType = ([t, listed]: [string, Footprint[]]) =>
    [t, typeMemory(summary.byType.get(t), listed, name)] as const;
  return {
    handle,
    buffer_type: type,
    memory_by_buffer_type: Object.fromEntries([...selected.listed].map(ofType)),
    buffer_types_present: selected.present,
    size_unit: "bytes_per_bank",
    device: figures.device,
    l1_pressure: figures.pressure === null ? null : {
      ranking: figures.pressure.ranked.map((p) => ({
        operation_id: p.operation_id,
        name: name(p.operation_id),
        ...withPercentages(p),
      })),
      operation_count: figures.pressure.operations,
      returned: figures.pressure.ranked.length,
      size_unit: "bytes_per_bank",
      free_space_precision: "upper_bound",
    },
    note: FLOOR_NOTE,
    stated_absences: STATED_ABSENCES,
    ...rankFields(scope),
  };
}

/** One buffer type's entry: its peak and its largest footprints, named. */
function typeMemory(
  all: TypeFootprints | undefined,
  listed: readonly Footprint[],
  name: (id: number) => string | null,
): TypeMemory {
  return {
    peak: all?.peak ?? 0,
    operations_at_peak: all?.atPeak ?? 0,
    operation_count: all?.operations ?? 0,
    returned: listed.length,
    operations: listed.map((f) => ({
      operation_id: f.operation_id,
      name: name(f.operation_id),
      size: f.size,
      device_id: f.device_id,
    })),
  };
}
