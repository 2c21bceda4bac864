/**
 * `operation_detail`: one operation — its input and output tensors with shape, dtype, layout
 * and memory config, what was allocated after it per buffer type, its L1 pressure, the
 * circular buffers its device operations allocated, its error and its likely DRAM fallback.
 *
 * @module
 */
import { pause } from "../kit/work_clock.ts";
import { z } from "zod";
import { type ReportContext, reportTool } from "./tool.ts";
import { atRank, l1Footprints, l1PeakTells } from "./_failure_steps.ts";
import { nextOrSay } from "./_next.ts";
import { Refusal } from "../kit/refusal.ts";
import { handleArg, includeArg, operationIdArg, rankArg } from "./args.ts";
import {
  allocationsByType,
  BUFFER_COLUMNS,
  describeTensor,
  noOperation,
  type Operation,
  operationById,
  operationTensors,
  type Pause,
  pauseOn,
  perBankSizes,
  type ProfilerDb,
  rankCaveat,
  rankFields,
  type RankScope,
  snapshotAtInSteps,
  tensorsByIds,
  tensorSizeUnit,
  type TensorView,
  type TypeAllocation,
} from "../profiler_db/mod.ts";
import { l1PressureOfOperation, type OperationL1Pressure } from "../analysis/l1_pressure_at.ts";
import { STATED_ABSENCES } from "../analysis/absences.ts";
import { type ErrorView, operationErrorField } from "../analysis/run_errors.ts";
import { type FailedAllocation, failedAllocationField } from "../analysis/failed_allocation.ts";
import {
  type CircularBuffers,
  circularBuffersField,
  MAX_CB_ROWS,
  MAX_CB_ROWS_WITH_INCLUDE,
} from "../analysis/circular_buffers.ts";
import { type DramFallback, dramFallbackField } from "../analysis/dram_fallbacks.ts";
import type { IncludeGroup } from "../analysis/include_groups.ts";
import { type OperationLink, operationLink } from "../analysis/operation_link.ts";
import { operationPerfRows, type PerfRowsFields } from "../analysis/operation_perf_rows.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";

const NEEDS = {
  operations: ["operation_id", "name"],
  buffers: BUFFER_COLUMNS,
  tensors: ["tensor_id"],
  input_tensors: ["operation_id", "input_index", "tensor_id"],
  output_tensors: ["operation_id", "output_index", "tensor_id"],
} as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
const RANKED = ["buffers", "tensors", "input_tensors", "output_tensors"];

const input = z.strictObject({
  handle: handleArg,
  operation_id: operationIdArg,
  rank: rankArg,
  include: includeArg,
});

/** One input or output tensor; the description is absent when `tensors` has no row for it. */
interface TensorEntry extends Partial<TensorView> {
  index: number | null;
  tensor_id: number;
}

/** The answer of `operation_detail`; the perf-row fields come from the performance report. */
export interface OperationDetailAnswer extends PerfRowsFields {
  handle: string;
  operation_id: number;
  name: string | null;
  /** Host wall seconds. */
  duration: number | null;
  duration_unit: "host_seconds";
  inputs: TensorEntry[];
  input_count: number;
  outputs: TensorEntry[];
  output_count: number;
  tensor_size_unit: "bytes" | "bytes_per_bank";
  /** What was allocated after it, per buffer type. */
  allocations: Record<string, TypeAllocation>;
  allocation_size_unit: "bytes_per_bank";
  stated_absences: typeof STATED_ABSENCES;
  /** Null without a snapshot or L1 geometry (the caveat says why). */
  l1_pressure: OperationL1Pressure | null;
  /** Absent without a captured graph; null when withheld. */
  circular_buffers?: CircularBuffers | null;
  error: ErrorView | null;
  /** When error is an allocation failure: its figures beside the snapshot after the operation. */
  failed_allocation?: FailedAllocation;
  dram_fallback: DramFallback | null;
  multi_host: boolean;
  rank: number | null;
}

/** The `operation_detail` tool. */
export const operationDetailTool = reportTool({
  name: "operation_detail",
  title: "One operation in detail",
  summary: "One profiler operation: its tensors, what was allocated after it, its L1 " +
    "pressure, circular buffers, error, likely DRAM fallback and perf rows.",
  description:
    "One profiler operation: tensors, memory after it, L1 pressure, circular buffers, error, " +
    "DRAM fallback, linked perf rows.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  async handler(args, ctx): Promise<OperationDetailAnswer> {
    const { pdb, scope, op } = selectOperation(ctx, args.operation_id, args.rank);
    const link = await operationLink(ctx);
    const figures = await operationFigures(
      ctx,
      pdb,
      scope,
      op.operation_id,
      link,
      args.include ?? [],
    );
    ctx.parts.caveat(rankCaveat(scope), ...figures.caveats);
    nextAfterError(ctx, figures.error, scope.rank);
    return detailAnswer(args.handle, scope, op, figures);
  },
});

/** Selects the operation at the rank read; refused when the rank holds no such operation. */
function selectOperation(
  ctx: ReportContext,
  id: number,
  rank: number | undefined,
): { pdb: ProfilerDb; scope: RankScope; op: Operation } {
  const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, rank);
  const op = operationById(pdb, scope, id);
  if (op === null) throw new Refusal(noOperation(id, scope));
  return { pdb, scope, op };
}

/** What the answer says about the operation, with the caveat parts after the rank's. */
interface OperationFigures {
  inputs: { count: number; listed: TensorEntry[] };
  outputs: { count: number; listed: TensorEntry[] };
  tensorSizeUnit: OperationDetailAnswer["tensor_size_unit"];
  allocations: Record<string, TypeAllocation>;
  l1Pressure: OperationL1Pressure | null;
  perf: PerfRowsFields;
  error: ErrorView | null;
  circularBuffers: { present: boolean; value: CircularBuffers | null };
  dramFallback: DramFallback | null;
  caveats: (string | null)[];
}

/**
 * Computes the figures of operation `id`: its tensors, what was allocated after it, its L1
 * pressure, its perf rows by `link` (with `include`'s groups), its error, its circular buffers and its
 * likely DRAM fallback, each with its caveat part.
 */
async function operationFigures(
  ctx: ReportContext,
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
  link: OperationLink,
  include: readonly IncludeGroup[],
): Promise<OperationFigures> {
  // Each figure may scan a large table once: the event loop is let in between two, and a
  // cancelled call stops there.
  const between = async () => {
    await pause();
    ctx.signal.throwIfAborted();
  };
  // The reads of the large tables go in rowid steps with the loop let in between two.
  const steps = pauseOn(ctx.signal);
  const snapshot = await snapshotAtInSteps(pdb, scope, id, steps);
  await between();
  const inputs = await tensorsOf(pdb, scope, id, "input", perBankSizes(snapshot), steps);
  await between();
  const outputs = await tensorsOf(pdb, scope, id, "output", perBankSizes(snapshot), steps);
  await between();
  const pressure = l1PressureOfOperation(pdb, scope, id, snapshot);
  const groups = [...new Set(include)];
  const perf = operationPerfRows(ctx.report, link, id, scope.rank, groups);
  await between();
  const error = operationErrorField(pdb, scope, id);
  const cap = groups.length > 0 ? MAX_CB_ROWS_WITH_INCLUDE : MAX_CB_ROWS;
  const cbs = await circularBuffersField(pdb, scope, id, cap, ctx.signal);
  await between();
  const fallback = await dramFallbackField(pdb, scope, id, steps);
  return {
    inputs,
    outputs,
    tensorSizeUnit: tensorSizeUnit(pdb),
    allocations: allocationsByType(snapshot),
    l1Pressure: pressure.l1_pressure,
    perf: perf.fields,
    error: error.error,
    circularBuffers: { present: cbs.present, value: cbs.circular_buffers },
    dramFallback: fallback.dram_fallback,
    caveats: [pressure.caveat, cbs.caveat, error.caveat, fallback.caveat, perf.caveat],
  };
}

/** Builds the answer from the operation and its figures. */
function detailAnswer(
  handle: string,
  scope: RankScope,
  op: Operation,
  figures: OperationFigures,
): OperationDetailAnswer {
  return {
    handle,
    operation_id: op.operation_id,
    name: op.name,
    duration: op.duration,
    duration_unit: "host_seconds",
    inputs: figures.inputs.listed,
    input_count: figures.inputs.count,
    outputs: figures.outputs.listed,
    output_count: figures.outputs.count,
    tensor_size_unit: figures.tensorSizeUnit,
    allocations: figures.allocations,
    allocation_size_unit: "bytes_per_bank",
    stated_absences: STATED_ABSENCES,
    l1_pressure: figures.l1Pressure,
    ...(figures.circularBuffers.present ? { circular_buffers: figures.circularBuffers.value } : {}),
    error: figures.error,
    ...failedAllocation(figures),
    dram_fallback: figures.dramFallback,
    ...figures.perf,
    ...rankFields(scope),
  };
}

/** `failed_allocation` when the operation's error is an allocation failure. */
function failedAllocation(f: OperationFigures): { failed_allocation?: FailedAllocation } {
  const field = failedAllocationField(f.error, f.l1Pressure, f.allocations);
  return field === null ? {} : { failed_allocation: field };
}

/** For a failed operation: the tools that say what held the memory it could not get. */
function nextAfterError(ctx: ReportContext, error: ErrorView | null, rank: number | null) {
  const f = error?.allocation_failure;
  if (!error || !f) return;
  const at = atRank(ctx.report.handle, rank);
  if (l1PeakTells(f.buffer_type)) {
    const peak = nextOrSay(ctx, {
      tool: "l1_peak",
      why: "what held L1 across the run, circular buffers included, which this operation's " +
        "snapshot does not show",
      arguments: at,
    });
    if (!peak) l1Footprints(ctx, at);
  } else {
    ctx.parts.next({
      tool: "memory_profile",
      why: `which operations held the most ${f.buffer_type}`,
      arguments: { buffer_type: f.buffer_type, ...at },
    });
  }
  ctx.parts.next({
    tool: "dram_fallbacks",
    why: "whether a retry after this failure placed its output in DRAM",
    arguments: at,
  });
}

/** An operation's tensors on one side: the first listed, described, and the count. */
async function tensorsOf(
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
  side: "input" | "output",
  sizes: (key: string) => number | null,
  pause: Pause,
): Promise<{ count: number; listed: TensorEntry[] }> {
  const { count, listed } = await operationTensors(pdb, scope, id, side, pause);
  const found = tensorsByIds(pdb, scope, listed.map((t) => t.tensor_id));
  return {
    count,
    listed: listed.map(({ index, tensor_id }) => {
      const t = found.get(tensor_id);
      return t ? { index, tensor_id, ...describeTensor(pdb, t, sizes) } : { index, tensor_id };
    }),
  };
}
