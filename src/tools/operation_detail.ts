/**
 * `operation_detail`: one operation — its input and output tensors with shape, dtype, layout
 * and memory config, what was allocated after it per buffer type, its L1 pressure, the
 * circular buffers its device operations allocated, its error and its likely DRAM fallback.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { handleArg } from "./args.ts";
import { operationIdArg, rankArg } from "./args.ts";
import type { ProfilerDb } from "../profiler_db/connection.ts";
import { joinCaveats, rankCaveat, rankFields, type RankScope } from "../profiler_db/rank.ts";
import { noOperation, operationById } from "../profiler_db/operations.ts";
import {
  describeTensor,
  MAX_TENSORS,
  operationTensors,
  tensorsByIds,
  tensorSizeUnit,
} from "../profiler_db/tensors.ts";
import {
  allocationsByType,
  BUFFER_COLUMNS,
  perBankSizes,
  snapshotAt,
} from "../profiler_db/buffers.ts";
import { l1PressureOfOperation } from "../profiler_db/l1_pressure_at.ts";
import { STATED_ABSENCES } from "../profiler_db/absences.ts";
import { operationErrorField } from "../profiler_db/errors.ts";
import {
  circularBuffersField,
  MAX_CB_ROWS,
  MAX_CB_ROWS_WITH_INCLUDE,
} from "../profiler_db/circular_buffers.ts";
import { dramFallbackField } from "../profiler_db/dram_fallbacks.ts";
import { INCLUDE_GROUPS } from "../analysis/include_groups.ts";
import { operationLink } from "../analysis/operation_link.ts";
import { MAX_PERF_ROWS, operationPerfRows } from "../analysis/operation_perf_rows.ts";
import { openAtRank } from "../session/profiler_db.ts";
import { cannotAnswerFrom } from "../session/profiler_db.ts";

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
  include: z.array(z.enum(INCLUDE_GROUPS)).optional().describe(
    "When the handle also holds the performance report: add these field groups (as top_ops " +
      "takes them) to each of perf_rows, which is then capped at 25.",
  ),
});

/** The `operation_detail` tool. */
export const operationDetailTool = reportTool({
  name: "operation_detail",
  title: "One operation in detail",
  description:
    "One profiler operation: its host duration (seconds), its input and output tensors (at " +
    `most ${MAX_TENSORS} each, with counts) with shape, dtype, layout, memory config (whether ` +
    "interleaved or sharded, and the shard grid and shape), buffer type and size; what was " +
    "allocated after it per buffer type (buffers and bytes per bank on the most loaded " +
    "device; never summed across types); and its l1_pressure: fullness_pct, free_segments, " +
    "largest_free_block and largest_free_pct on the most constrained device. Read " +
    "tensor_size_unit: sizes are whole-tensor bytes only where the report records them. When the " +
    "handle also holds the performance report and the two link (operation_link says how), " +
    `perf_rows lists the rows it launched (at most ${MAX_PERF_ROWS}, with perf_row_count): ` +
    "device_time in µs and device_time_share_percent of report_device_time_total; device_time, " +
    "its share and slowest_perf_id cover every row. A perf row's id is a CSV line, never an " +
    "operation_id. circular_buffers lists, per device operation of its captured graph, the " +
    "circular buffers it allocated (bytes on each core, i.e. bytes_per_bank; core range, core " +
    `and device counts; at most ${MAX_CB_ROWS} rows, ${MAX_CB_ROWS_WITH_INCLUDE} with include), ` +
    "each entry's max_bytes_per_core, and counts of launches whose buffers the graph did not " +
    "record (cached relaunches: unknown, not zero) and of buffers not listed; absent without a " +
    "captured graph, null when withheld. error is the operation's attached error as errors " +
    "reports it, and dram_fallback its likely L1-to-DRAM fallback as dram_fallbacks infers it " +
    "(each null when it has none; a caveat says when null is not a finding).",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  async handler(args, ctx) {
    const { report } = ctx;
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const op = operationById(pdb, scope, args.operation_id);
    if (op === null) throw new Refusal(noOperation(args.operation_id, scope));
    const snapshot = snapshotAt(pdb, scope, op.operation_id);
    const inputs = tensorsOf(pdb, scope, op.operation_id, "input", perBankSizes(snapshot));
    const outputs = tensorsOf(pdb, scope, op.operation_id, "output", perBankSizes(snapshot));
    const pressure = l1PressureOfOperation(pdb, scope, op.operation_id, snapshot);
    const include = [...new Set(args.include ?? [])];
    const perf = operationPerfRows(
      report,
      operationLink(report),
      op.operation_id,
      scope.rank,
      include,
    );
    const error = operationErrorField(pdb, scope, op.operation_id);
    const cbs = circularBuffersField(
      pdb,
      scope,
      op.operation_id,
      include.length > 0 ? MAX_CB_ROWS_WITH_INCLUDE : MAX_CB_ROWS,
    );
    const fallback = dramFallbackField(pdb, scope, op.operation_id);
    const caveat = joinCaveats([
      rankCaveat(scope),
      pressure.caveat,
      cbs.caveat,
      error.caveat,
      fallback.caveat,
      perf.caveat,
    ]);
    return {
      handle: args.handle,
      operation_id: op.operation_id,
      name: op.name,
      duration: op.duration,
      duration_unit: "host_seconds",
      inputs: inputs.listed,
      input_count: inputs.count,
      outputs: outputs.listed,
      output_count: outputs.count,
      tensor_size_unit: tensorSizeUnit(pdb),
      allocations: allocationsByType(snapshot),
      allocation_size_unit: "bytes_per_bank",
      stated_absences: STATED_ABSENCES,
      l1_pressure: pressure.l1_pressure,
      ...(cbs.present ? { circular_buffers: cbs.circular_buffers } : {}),
      error: error.error,
      dram_fallback: fallback.dram_fallback,
      ...perf.fields,
      ...rankFields(scope),
      ...(caveat ? { caveat } : {}),
    };
  },
});

function tensorsOf(
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
  side: "input" | "output",
  sizes: (key: string) => number | null,
): { count: number; listed: Record<string, unknown>[] } {
  const { count, listed } = operationTensors(pdb, scope, id, side);
  const found = tensorsByIds(pdb, scope, listed.map((t) => t.tensor_id));
  return {
    count,
    listed: listed.map(({ index, tensor_id }) => {
      const t = found.get(tensor_id);
      return t ? { index, tensor_id, ...describeTensor(pdb, t, sizes) } : { index, tensor_id };
    }),
  };
}
