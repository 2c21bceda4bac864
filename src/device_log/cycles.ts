/**
 * Exact cycle counts. A device's cycle counter is read as `hi × 10⁹ + lo` (two safe integers),
 * because real timestamps sit near 10¹³ while synthetic ones run past 2⁵³, where a plain
 * `number` would round. Only differences — durations and spans, which are small — ever become
 * plain numbers.
 *
 * @module
 */

/** `hi × 10⁹ + lo`, with `0 ≤ lo < 10⁹`. */
export interface Cycles {
  hi: number;
  lo: number;
}

/** The base of the low part. */
export const LOW_BASE = 1e9;

/**
 * Reads a cycle count as the performance CSV or the device log writes it: decimal digits,
 * optionally followed by a zero fraction (`76536748840.0`, as pandas re-writes integer columns).
 * Anything else — blank, negative, a real fraction, an exponent — is not a cycle count: null.
 *
 * @example
 * ```ts
 * import { cyclesBetween, parseCycles } from "./cycles.ts";
 * const a = parseCycles("9007199254740993")!; // 2^53 + 1: a double would round it
 * const b = parseCycles("9007199254740990.0")!;
 * if (cyclesBetween(b, a) !== 3 || parseCycles("1e13") !== null) throw new Error();
 * ```
 */
export function parseCycles(text: string): Cycles | null {
  const m = /^\s*(\d+)(?:\.0*)?\s*$/.exec(text);
  if (!m) return null;
  const digits = m[1].replace(/^0+(?=\d)/, "");
  if (digits.length > 24) return null;
  const cut = Math.max(0, digits.length - 9);
  return { hi: cut === 0 ? 0 : Number(digits.slice(0, cut)), lo: Number(digits.slice(cut)) };
}

/**
 * Whether `hi × 10⁹ + lo` is 2⁶⁴ or more — no 64-bit cycle counter reads that, so such a
 * count is out of range, not a time.
 *
 * @example
 * ```ts
 * import { beyond64Bits, parseCycles } from "./cycles.ts";
 * const max = parseCycles("18446744073709551615")!;
 * const over = parseCycles("18446744073709551616")!;
 * if (beyond64Bits(max.hi, max.lo) || !beyond64Bits(over.hi, over.lo)) throw new Error();
 * ```
 */
export function beyond64Bits(hi: number, lo: number): boolean {
  return hi > TWO_64_HI || (hi === TWO_64_HI && lo >= TWO_64_LO);
}

/** 2⁶⁴ = 18446744073 × 10⁹ + 709551616. */
const TWO_64_HI = 18446744073;
const TWO_64_LO = 709551616;

/**
 * `to − from` in cycles: exact whenever the difference is below 2⁵³ (about 104 days at 1 GHz).
 */
export function cyclesBetween(from: Cycles, to: Cycles): number {
  return (to.hi - from.hi) * LOW_BASE + (to.lo - from.lo);
}
