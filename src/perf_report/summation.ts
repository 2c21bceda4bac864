/**
 * The exact summation algorithms tt-perf-report's numbers depend on, so that every total,
 * share and stacked statistic is bit-for-bit the value the Python tool computes.
 * @module
 */

/**
 * Python ≥ 3.12 built-in `sum()` of floats: Neumaier compensated summation, with the
 * compensation added only when it is non-zero and finite. An empty input sums to 0.
 */
export function pythonSum(values: Iterable<number>): number {
  const sum = new PythonSum();
  // An array is indexed, not iterated: the same additions without an iterator per call.
  if (Array.isArray(values)) {
    const xs = values as readonly number[];
    for (let i = 0; i < xs.length; i++) sum.add(xs[i]);
  } else for (const x of values) sum.add(x);
  return sum.value;
}

/**
 * {@link pythonSum} taken value by value, so a sum over some rows' field needs no array of
 * the values: `add` each in order, then read `value`.
 *
 * @example
 * ```ts
 * import { PythonSum, pythonSum } from "./summation.ts";
 * const s = new PythonSum();
 * for (const x of [0.1, 0.2, 0.3]) s.add(x);
 * if (s.value !== pythonSum([0.1, 0.2, 0.3])) throw new Error();
 * ```
 */
export class PythonSum {
  #s = 0;
  #c = 0;
  add(x: number): void {
    const s = this.#s;
    const t = s + x;
    if (Math.abs(s) >= Math.abs(x)) this.#c += (s - t) + x;
    else this.#c += (x - t) + s;
    this.#s = t;
  }
  /** The sum of the values added so far. */
  get value(): number {
    const c = this.#c;
    return c !== 0 && Number.isFinite(c) ? this.#s + c : this.#s;
  }
}

/** Plain left-to-right addition from 0 (what a Python `total += x` loop computes). */
export function plainSum(values: Iterable<number>): number {
  const xs = Array.isArray(values) ? values as readonly number[] : [...values];
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

/**
 * pandas' groupby `sum`: Kahan summation in row order over the non-missing values (NaN is
 * skipped), with the compensation reset when it becomes NaN (pandas GH#53606).
 */
export function kahanSum(values: Iterable<number>): { sum: number; count: number } {
  let s = 0;
  let comp = 0;
  let count = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    count++;
    const y = v - comp;
    const t = s + y;
    comp = t - s - y;
    if (Number.isNaN(comp)) comp = 0;
    s = t;
  }
  return { sum: s, count };
}

/** pandas' groupby `mean`: the Kahan sum of the non-missing values over their count (NaN if none). */
export function kahanMean(values: Iterable<number>): number {
  const { sum, count } = kahanSum(values);
  return count === 0 ? NaN : sum / count;
}

/** pandas' groupby `std` (ddof = 1): Welford's algorithm, NaN with fewer than 2 values. */
export function welfordStd(values: Iterable<number>): number {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    n++;
    const old = mean;
    mean += (v - old) / n;
    m2 += (v - mean) * (v - old);
  }
  return n < 2 ? NaN : Math.sqrt(m2 / (n - 1));
}

function pairwise(a: readonly number[], start: number, n: number): number {
  if (n < 8) {
    let res = 0;
    for (let i = 0; i < n; i++) res += a[start + i];
    return res;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    }
    let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwise(a, start, n2) + pairwise(a, start + n2, n - n2);
}

/**
 * numpy's `add.reduce` of a float64 array (pairwise summation, added to the 0.0 identity), as
 * pandas' `Series.sum()` computes it after replacing NaN with 0.
 */
export function numpySum(values: readonly number[]): number {
  const filled = values.map((v) => (Number.isNaN(v) ? 0 : v));
  return 0 + pairwise(filled, 0, filled.length);
}
