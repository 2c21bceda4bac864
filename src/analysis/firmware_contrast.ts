/**
 * device_timeline's contrast between op intervals and firmware intervals (DEVICE FW START to
 * END CYCLE): the firmware tails tt-perf-report's device time leaves out, and what the
 * firmware sums show of a window, said only as the numbers bear it out.
 *
 * @module
 */
import type { Coverage } from "../device_log/mod.ts";
import { round3 } from "../kit/rounding.ts";
import { type DeviceSelection, usOf } from "./device_ops.ts";

/** Σ over the placed operations of their last kernel end → DEVICE FW END CYCLE. */
export function firmwareTails(sel: DeviceSelection): number {
  const w = sel.windows;
  let sum = 0;
  for (const op of sel.ops.ops) {
    if (op.kernelStart === null) continue;
    let last = -Infinity;
    for (let k = w.starts[op.window]; k < w.starts[op.window + 1]; k++) {
      if (w.last[k] > last) last = w.last[k];
    }
    sum += Math.max(0, op.fwEnd - op.fwStart - last);
  }
  return sum;
}

/** What the firmware sums show of this window, in sentences true of these figures. */
export function firmwareReading(
  ops: Coverage,
  fw: Coverage,
  sharedPairs: number,
  clock: number,
): string {
  const heads = usOf(fw.intervalSum - ops.intervalSum, clock);
  const ratio = round3(fw.intervalSum / ops.busy)!;
  return [
    `firmware.interval_sum exceeds op_interval_sum by ${heads} µs: each operation's firmware ` +
    "head, from DEVICE FW START CYCLE to its first kernel start.",
    fw.overlappingPairs > 0
      ? `${fw.overlappingPairs} pair${
        fw.overlappingPairs > 1 ? "s" : ""
      } of firmware intervals overlap (${usOf(fw.overlapCycles, clock)} µs; ${sharedPairs} of ` +
        "the pairs checked on a core that ran both): a core receives the next launch before " +
        "the previous operation's last core is done, so a firmware-interval sum counts that " +
        "time twice."
      : "No two firmware intervals overlap here, so their sum counts no time twice.",
    ratio > 1
      ? `Their sum overstates busy time (sum_to_busy_ratio ${ratio}).`
      : ratio < 1
      ? `Their sum is below busy time (sum_to_busy_ratio ${ratio}): the gaps between ` +
        "operations hold more time than the firmware heads add."
      : "Their sum equals busy time (sum_to_busy_ratio 1).",
  ].join(" ");
}
