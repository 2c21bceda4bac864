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

/** numpy's `median` of a non-empty array. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function cyclesPerNs(rows: OverlapInput[]): number | null {
  const ratios = rows
    .filter((r) => r.fwEndCycle > r.fwStartCycle && r.fwDurationNs > 0)
    .map((r) => (r.fwEndCycle - r.fwStartCycle) / r.fwDurationNs);
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
  const overlapNs: (number | null)[] = rows.map(() => null);
  const busyNs: (number | null)[] = rows.map(() => null);
  if (!columnsPresent) return { overlapNs, busyNs };
  const usable = rows.map((r) =>
    r.opType === "tt_dnn_device" && r.valid && !Number.isNaN(r.deviceId) &&
    !Number.isNaN(r.fwStartCycle) && !Number.isNaN(r.fwEndCycle) &&
    !Number.isNaN(r.kernelNs) && r.kernelNs >= 0
  );
  const devices = [...new Set(rows.filter((_, i) => usable[i]).map((r) => r.deviceId))]
    .sort((a, b) => a - b);
  for (const device of devices) {
    const positions = rows.map((_, i) => i).filter((i) => usable[i] && rows[i].deviceId === device);
    const rate = cyclesPerNs(positions.map((i) => rows[i]));
    if (rate === null) continue;
    const ends = positions.map((i) => rows[i].fwEndCycle / rate);
    const starts = positions.map((i, k) => ends[k] - rows[i].kernelNs);
    const order = positions.map((_, k) => k).sort((a, b) => starts[a] - starts[b] || a - b);
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
