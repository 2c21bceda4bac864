/**
 * Internal: predicates and sums tt-perf-report applies to its per-op rows.
 * @module
 */

import { HOST_OP_MARKER } from "./categories.ts";
import { PythonSum } from "./summation.ts";
import type { PerfRow } from "./types.ts";

/** `is_host_op`: the final op code contains `(torch)`. */
export function isHostOp(opCode: string): boolean {
  return opCode.includes(HOST_OP_MARKER);
}

/** `is_signpost_op`: the final op code contains `signpost`. */
export function isSignpostOp(opCode: string): boolean {
  return opCode.includes("signpost");
}

/** `is_matmul_op`: the final op code contains `Matmul`. */
export function isMatmulOp(opCode: string): boolean {
  return opCode.includes("Matmul");
}

/** A row's gap when positive, else 0 (`visible_gap`). */
export function visibleGap(row: Pick<PerfRow, "op_to_op_gap">): number {
  const g = row.op_to_op_gap;
  return g !== null && g > 0 ? g : 0;
}

/** Σ Device Time over the rows that have one (Python `sum`). */
export function summedOpTime(rows: readonly Pick<PerfRow, "device_time">[]): number {
  const sum = new PythonSum();
  for (let i = 0; i < rows.length; i++) {
    const t = rows[i].device_time;
    if (t !== null) sum.add(t);
  }
  return sum.value;
}

/** Σ visible gap (Python `sum`). */
export function gapTime(rows: readonly Pick<PerfRow, "op_to_op_gap">[]): number {
  const sum = new PythonSum();
  for (let i = 0; i < rows.length; i++) sum.add(visibleGap(rows[i]));
  return sum.value;
}

/**
 * Wall-clock busy time (a plain loop): each timed row's busy time when the overlap figures
 * stand (`gateOpen`), else its device time.
 */
export function busyTime(rows: readonly PerfRow[], gateOpen = false): number {
  // A plain left-to-right sum from 0, as `plainSum`.
  let s = 0;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r.device_time === null) continue;
    const busy = r.internal.busy_time_before_gate;
    s += gateOpen && busy !== null ? busy : r.device_time;
  }
  return s;
}
