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
  // An array is indexed, not iterated: the same additions without an iterator per call.
  const xs = Array.isArray(values) ? values as readonly number[] : [...values];
  let s = 0;
  let c = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    const t = s + x;
    if (Math.abs(s) >= Math.abs(x)) c += (s - t) + x;
    else c += (x - t) + s;
    s = t;
  }
  if (c !== 0 && Number.isFinite(c)) s += c;
  return s;
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
