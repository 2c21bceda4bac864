/**
 * `top_ops`: the costliest operations of a performance report by one metric, over the whole
 * report or a signpost window, read exactly as tt-perf-report reports them.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { capped, handleArg, limitArg, rangeArgs } from "./args.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import {
  isRanged,
  performanceReport,
  performanceTable,
  subDeviceCaveat,
  timingCaveat,
} from "../analysis/performance.ts";
import { round3 } from "../kit/figures.ts";
import { pythonSum } from "../perf_report/summation.ts";
import type { PerfRow } from "../perf_report/types.ts";
import { operationIdOf, operationLink, operationLinkBlock } from "../analysis/operation_link.ts";
import { INCLUDE_GROUPS } from "../analysis/include_groups.ts";
import { MAX_DETAILED_ROWS, rowDetail } from "../analysis/row_detail.ts";

/** The metrics rows can be ranked by, with the row field each reads. */
const METRICS = {
  device_time: (r: PerfRow) => r.device_time,
  op_to_op_gap: (r: PerfRow) => r.op_to_op_gap,
  total_percent: (r: PerfRow) => r.total_percent,
  flops: (r: PerfRow) => r.flops,
  dram: (r: PerfRow) => r.dram,
  cores: (r: PerfRow) => r.cores,
} as const;

/** Metrics a sum over rows means something for. */
const ADDITIVE = new Set(["device_time", "op_to_op_gap", "total_percent"]);

const input = z.strictObject({
  handle: handleArg,
  by: z.enum(["device_time", "op_to_op_gap", "total_percent", "flops", "dram", "cores"])
    .default("device_time")
    .describe(
      "device_time (µs), op_to_op_gap (µs before the op), total_percent (share of device time " +
        "plus gaps), flops (TFLOPs), dram (GB/s) or cores (core count).",
    ),
  limit: limitArg("Rows"),
  ...rangeArgs,
  include: z.array(z.enum(INCLUDE_GROUPS)).optional().describe(
    "Add the fields that say why each operation took its time: config (fidelity, datatypes, " +
      "memory, block sizes), utilisation (DRAM, FLOPs, perf-model times), noc, riscs (per-RISC " +
      "kernel times, CB waits), cores (per-core spread, launch skew), dispatch, cache (program " +
      "hash, cache hit), kernels, advice (tt-perf-report's), flags (the performance view's " +
      "heuristic flags with their evidence). Rows are then capped at 25.",
  ),
});

/** The `top_ops` tool. */
export const topOps = reportTool({
  name: "top_ops",
  title: "Costliest operations",
  description:
    "Rank a performance report's operations by one metric, highest first, as tt-perf-report " +
    "computes it: devices merged (the slowest device's row; collectives averaged), host ops and " +
    "signposts kept, the whole report unless start_signpost/end_signpost narrow it. A row without " +
    "a value for the metric is left out of the ranking. Each row's id is its line in the " +
    "performance CSV, not a profiler id: pass a row's operation_id (set when the handle holds " +
    "both reports and they link; operation_link says how) to operation_detail or " +
    "operation_provenance, never its id. A null bound is not a clean bill of health: " +
    "bound_analysis says whether a roofline model ran at all (full for matmuls, flops_only for " +
    "convolutions, none otherwise). Totals are given only for device_time, op_to_op_gap and " +
    "total_percent, summed over every row read, not just those returned.",
  input,
  reads: ["performance_csv"],
  cannotAnswer: performanceCsvUnavailable,
  async handler(args, ctx) {
    const { report } = ctx;
    const range = { start_signpost: args.start_signpost, end_signpost: args.end_signpost };
    const { perf, projection } = performanceReport(ctx, range);
    const metric = METRICS[args.by];
    const groups = [...new Set(args.include ?? [])];
    const link = operationLink(report);
    const detail = groups.length > 0 ? rowDetail(report, perf, groups) : null;
    const cap = detail ? Math.min(capped(args.limit), MAX_DETAILED_ROWS) : capped(args.limit);
    const ranked = perf.rows
      .map((row) => ({ row, value: metric(row) }))
      .filter((x): x is { row: PerfRow; value: number } =>
        x.value !== null && Number.isFinite(x.value)
      )
      .sort((a, b) => b.value - a.value) // stable: ties keep report order
      .slice(0, cap);
    const answer: Record<string, unknown> = {
      handle: args.handle,
      metric: args.by,
      op_count: perf.rows.length,
      returned: ranked.length,
      ops: ranked.map(({ row, value }) => {
        const out: Record<string, unknown> = {
          id: String(row.id),
          op_code: row.op_code || row.raw_op_code,
          [args.by]: args.by === "cores" ? value : round3(value),
          cores: row.cores,
          bound: row.bound === "" ? null : row.bound,
          bound_analysis: row.bound_analysis,
          op_category: row.op_category,
          device: row.device === null ? null : String(row.device),
          sub_device_id: row.sub_device_id === null ? null : String(row.sub_device_id),
          op_type: row.op_type,
          operation_id: operationIdOf(link, row.id),
        };
        detail?.decorate(row, out);
        return out;
      }),
      projection,
      ...detail?.answerKeys(perf.rows),
    };
    if (ADDITIVE.has(args.by)) {
      const values = perf.rows.map(metric).filter((v): v is number =>
        v !== null && Number.isFinite(v)
      );
      answer[`${args.by}_total`] = round3(pythonSum(values));
      const caveat = subDeviceCaveat(perf);
      if (caveat) answer.caveat = caveat;
    }
    Object.assign(answer, timingCaveat(performanceTable(ctx), perf));
    const whole = report.inventory.performance?.whole?.rows ?? perf.rows;
    answer.operation_link = operationLinkBlock(report, link, whole, { ranged: isRanged(range) });
    return answer;
  },
});
