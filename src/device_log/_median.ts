/**
 * Internal: the median the device-log figures use — the middle value, or the mean of the two
 * middle ones for an even count.
 *
 * @module
 */

/**
 * The median of values already sorted, or null for none.
 *
 * @example
 * ```ts
 * import { medianOfSorted } from "./_median.ts";
 * if (medianOfSorted([1, 2, 4, 9]) !== 3 || medianOfSorted([]) !== null) throw new Error();
 * ```
 */
export function medianOfSorted(sorted: ArrayLike<number>): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const m = n >> 1;
  return n % 2 === 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}
