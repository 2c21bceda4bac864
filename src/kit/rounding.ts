/**
 * How figures are rounded in answers: three decimals as Python's `round(x, 3)` gives them
 * (half to even on the exact binary value, as upstream rounds), and shares to three
 * significant figures so a sliver still reads as one.
 *
 * @module
 */
import { pyFormatFixed } from "./python_format.ts";

/**
 * `x` rounded to three decimals exactly as Python's `round(x, 3)`; null stays null.
 *
 * @example
 * ```ts
 * import { round3 } from "./rounding.ts";
 * if (round3(0.0625) !== 0.062) throw new Error("ties go to even"); // toFixed says 0.063
 * if (round3(1.23456) !== 1.235 || round3(null) !== null) throw new Error();
 * ```
 */
export function round3(x: number | null): number | null {
  if (x === null || !Number.isFinite(x)) return null;
  return Number(pyFormatFixed(x, 3, false));
}

/**
 * `x` to three significant figures; null stays null.
 *
 * @example
 * ```ts
 * import { sig3 } from "./rounding.ts";
 * if (sig3(12.3456) !== 12.3 || sig3(0.00012345) !== 0.000123 || sig3(0) !== 0) throw new Error();
 * ```
 */
export function sig3(x: number | null): number | null {
  if (x === null || !Number.isFinite(x)) return null;
  return Number(x.toPrecision(3));
}

/** `part` as a percentage of `whole` to three significant figures; null when whole is 0. */
export function sharePercent(part: number, whole: number): number | null {
  return whole === 0 ? null : sig3((part / whole) * 100);
}
