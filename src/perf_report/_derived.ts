/**
 * Internal: tt-perf-report's derived columns (`add_derived_columns`: Total % and Bound) and
 * the overlap re-attribution an id range triggers (`reattribute_overlap`).
 * @module
 */

import { gapTime, summedOpTime, visibleGap } from "./_rows.ts";
import type { OverlapInput, OverlapResult } from "./overlap.ts";
import type { PerfRow } from "./types.ts";
import { rowIdOf } from "./row_id.ts";

/** Share of peak at which a matmul counts as DRAM- or FLOP-bound. */
export const BOUND_THRESHOLD_PERCENT = 65;

/**
 * Total % = (Device Time + visible gap) / (Σ Device Time + Σ visible gap) × 100, both sums
 * Python's `sum`; null when the row has neither or the total is 0. Bound for full-model rows
 * with both percentages; host ops get `HOST` and lose their device time.
 */
export function addDerivedColumns(rows: PerfRow[]): void {
  const total = summedOpTime(rows) + gapTime(rows);
  for (const r of rows) {
    const time = r.device_time ?? 0;
    r.total_percent = total !== 0 ? ((time + visibleGap(r)) / total) * 100 : null;
    if (r.device_time === null && r.op_to_op_gap === null) r.total_percent = null;
    if (r.bound_analysis === "full") {
      const dram = r.dram_percent;
      const flops = r.flops_percent;
      if (dram !== null && flops !== null) {
        const t = BOUND_THRESHOLD_PERCENT;
        r.bound = dram >= t && flops >= t
          ? "BOTH"
          : dram >= t
          ? "DRAM"
          : flops >= t
          ? "FLOP"
          : "SLOW";
      }
    } else if (r.is_host_op) {
      r.bound = "HOST";
      r.device_time = null;
    }
  }
}

/**
 * Re-runs the overlap sweep over the pre-merge rows behind the kept ops only, and gives each
 * kept op the overlap of its own row, capped at its device time.
 */
export function reattributeOverlap(
  rows: PerfRow[],
  preMerge: readonly OverlapInput[],
  preMergePositions: readonly number[],
  sweep: (inputs: OverlapInput[]) => OverlapResult,
): void {
  const kept = new Set<number>();
  for (const r of rows) for (const id of r.merged_ids ?? [r.id]) kept.add(id);
  const inputs = preMerge.map((input, i) => ({
    ...input,
    valid: input.valid && kept.has(preMergePositions[i] + 2),
  }));
  const result = sweep(inputs);
  const overlapById = new Map<number, number | null>();
  preMergePositions.forEach((pos, i) => overlapById.set(rowIdOf(pos), result.overlapNs[i]));
  for (const r of rows) {
    const overlapNs = overlapById.get(r.id) ?? null;
    if (r.device_time === null || overlapNs === null) {
      r.internal.overlap_before_gate = null;
      r.internal.busy_time_before_gate = null;
      continue;
    }
    const timeNs = r.device_time * 1000;
    const capped = Math.min(overlapNs, timeNs);
    r.internal.overlap_before_gate = capped ? capped / 1000 : null;
    r.internal.busy_time_before_gate = (timeNs - capped) / 1000;
  }
}
