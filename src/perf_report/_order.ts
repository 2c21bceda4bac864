/**
 * Internal: the row order tt-perf-report works in — `df.sort_values("HOST START TS")`.
 * @module
 */

import type { Frame } from "./_frame.ts";
import { compareCodePoints } from "./_python.ts";

/** The column tt-perf-report sorts by. */
export const HOST_START_TS = "HOST START TS";

/**
 * Data-row positions sorted by HOST START TS as pandas sorts them: numbers ascending (text
 * lexicographically when the column is not numeric), missing values last. pandas' default
 * quicksort does not promise an order for equal timestamps; ties keep file order here.
 */
export function hostStartOrder(frame: Frame): number[] {
  const positions = Array.from({ length: frame.length }, (_, i) => i);
  if (!frame.has(HOST_START_TS)) return positions;
  const dtype = frame.dtype(HOST_START_TS);
  const present: number[] = [];
  const missing: number[] = [];
  for (const p of positions) (frame.value(p, HOST_START_TS) === null ? missing : present).push(p);
  if (dtype === "object") {
    present.sort((a, b) =>
      compareCodePoints(frame.raw(a, HOST_START_TS)!, frame.raw(b, HOST_START_TS)!) || a - b
    );
  } else {
    const keys = new Float64Array(frame.length);
    for (const p of present) keys[p] = Number(frame.value(p, HOST_START_TS));
    // A capture is nearly always in host order already: then the order is the file's.
    let sorted = true;
    for (let k = 1; k < present.length && sorted; k++) {
      sorted = keys[present[k - 1]] <= keys[present[k]];
    }
    if (!sorted) present.sort((a, b) => keys[a] - keys[b] || a - b);
  }
  return [...present, ...missing];
}
