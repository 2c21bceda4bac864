/**
 * tt-perf-report 6278e268's overlap sweep (`overlap.py`): per device, each op's interval is
 * [FW end / rate − kernel ns, FW end / rate], where rate (cycles per ns) is the median of FW
 * cycles over FW duration; sweeping in start order, the part of an interval an earlier one
 * covers is overlap (below 1 ns it is rounding), the rest is busy time.
 * @module
 */

/** Below one cycle at any clock: touching intervals are rounding, not overlap. */
export const MIN_OVERLAP_NS = 1.0;

/** The columns the sweep reads; without any one of them nothing is annotated. */
export const OVERLAP_REQUIRED_COLUMNS = [
  "DEVICE ID",
  "OP TYPE",
  "DEVICE FW START CYCLE",
  "DEVICE FW END CYCLE",
  "DEVICE FW DURATION [ns]",
  "DEVICE KERNEL DURATION [ns]",
] as const;

/** One row of the sweep's input. Numbers are NaN where the cell is missing or not numeric. */
export interface OverlapInput {
  deviceId: number;
  opType: string | null;
  fwStartCycle: number;
  fwEndCycle: number;
  fwDurationNs: number;
  kernelNs: number;
  /** False where the row's kernel duration is invalid (see `is_invalid_device_duration`). */
  valid: boolean;
}

/** Overlap and busy nanoseconds per input row; null where the row takes no part. */
export interface OverlapResult {
  overlapNs: (number | null)[];
  busyNs: (number | null)[];
}

/** numpy's `median` of a non-empty array (of numbers that are not NaN). */
function median(values: readonly number[]): number {
  const sorted = Float64Array.from(values).sort(); // numeric, ascending
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function cyclesPerNs(rows: readonly OverlapInput[], positions: readonly number[]): number | null {
  const ratios: number[] = [];
  for (const i of positions) {
    const r = rows[i];
    if (r.fwEndCycle > r.fwStartCycle && r.fwDurationNs > 0) {
      ratios.push((r.fwEndCycle - r.fwStartCycle) / r.fwDurationNs);
    }
  }
  if (ratios.length === 0) return null;
  const ratio = median(ratios);
  return Number.isFinite(ratio) && ratio > 0 ? ratio : null;
}

/**
 * `annotate_overlap` over rows in frame order. `columnsPresent` is false when the CSV lacks
 * one of {@link OVERLAP_REQUIRED_COLUMNS}, in which case nothing is annotated.
 */
export function annotateOverlap(
  rows: readonly OverlapInput[],
  columnsPresent = true,
): OverlapResult {
  const overlapNs: (number | null)[] = new Array(rows.length).fill(null);
  const busyNs: (number | null)[] = new Array(rows.length).fill(null);
  if (!columnsPresent) return { overlapNs, busyNs };
  // Each device's usable rows, in frame order.
  const byDevice = new Map<number, number[]>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const usable = r.opType === "tt_dnn_device" && r.valid && !Number.isNaN(r.deviceId) &&
      !Number.isNaN(r.fwStartCycle) && !Number.isNaN(r.fwEndCycle) &&
      !Number.isNaN(r.kernelNs) && r.kernelNs >= 0;
    if (!usable) continue;
    const list = byDevice.get(r.deviceId);
    if (list) list.push(i);
    else byDevice.set(r.deviceId, [i]);
  }
  const devices = [...byDevice.keys()].sort((a, b) => a - b);
  for (const device of devices) {
    const positions = byDevice.get(device)!;
    const rate = cyclesPerNs(rows, positions);
    if (rate === null) continue;
    const ends = positions.map((i) => rows[i].fwEndCycle / rate);
    const starts = positions.map((i, k) => ends[k] - rows[i].kernelNs);
    const order = positions.map((_, k) => k);
    // Sorted by start, ties in frame order: rows nearly always start in frame order already.
    let inOrder = true;
    for (let k = 1; k < starts.length && inOrder; k++) inOrder = starts[k - 1] <= starts[k];
    if (!inOrder) order.sort((a, b) => starts[a] - starts[b] || a - b);
    let coveredUntil = -Infinity;
    for (const k of order) {
      const kernel = rows[positions[k]].kernelNs;
      let overlap = Math.min(kernel, Math.max(0, coveredUntil - starts[k]));
      if (overlap < MIN_OVERLAP_NS) overlap = 0;
      busyNs[positions[k]] = kernel - overlap;
      overlapNs[positions[k]] = overlap;
      coveredUntil = Math.max(coveredUntil, ends[k]);
    }
  }
  return { overlapNs, busyNs };
}
