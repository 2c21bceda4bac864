/**
 * Internal: the arithmetic on counter samples — each sample's req ÷ ref, and their median,
 * extremes, mean and pooled ratio (Σreq ÷ Σref) over cores and instances, optionally over
 * several operations at once.
 *
 * @module
 */
import type { CounterSeries } from "./_counter_scan.ts";
import { medianOfSorted } from "./_median.ts";

/** A counter's ratios over its samples. */
export interface RatioStats {
  /** Samples with a positive ref (each one core in one instance of one operation). */
  samples: number;
  /** Samples whose ref was 0, left out of every figure. */
  zeroRef: number;
  /** Samples whose req exceeded their ref (impossible unless the ref count wrapped). */
  overOne: number;
  reqSum: number;
  refSum: number;
  /** Σreq ÷ Σref, or null without samples. */
  pooled: number | null;
  median: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** The median of the samples' refs, in cycles. */
  refMedian: number | null;
}

/**
 * The ratios of every sample of `series` (one counter, possibly of several operations).
 *
 * @example
 * ```ts
 * import { ratioStats } from "./_counter_stats.ts";
 * const s = { name: "FPU_COUNTER", req: [700, 900, 0], ref: [1000, 1000, 0], core: [1, 2, 3],
 *   instance: [0, 0, 0] };
 * const r = ratioStats([s]);
 * if (r.samples !== 2 || r.zeroRef !== 1 || r.pooled !== 0.8 || r.median !== 0.8) throw new Error();
 * ```
 */
export function ratioStats(series: readonly CounterSeries[]): RatioStats {
  const ratios: number[] = [];
  const refs: number[] = [];
  let zeroRef = 0;
  let overOne = 0;
  let reqSum = 0;
  let refSum = 0;
  for (const s of series) {
    for (let i = 0; i < s.req.length; i++) {
      const req = s.req[i];
      const ref = s.ref[i];
      if (ref <= 0) {
        zeroRef++;
        continue;
      }
      if (req > ref) overOne++;
      reqSum += req;
      refSum += ref;
      ratios.push(req / ref);
      refs.push(ref);
    }
  }
  ratios.sort((a, b) => a - b);
  refs.sort((a, b) => a - b);
  const n = ratios.length;
  return {
    samples: n,
    zeroRef,
    overOne,
    reqSum,
    refSum,
    pooled: refSum > 0 ? reqSum / refSum : null,
    median: medianOfSorted(ratios),
    min: n > 0 ? ratios[0] : null,
    max: n > 0 ? ratios[n - 1] : null,
    mean: n > 0 ? ratios.reduce((a, b) => a + b, 0) / n : null,
    refMedian: medianOfSorted(refs),
  };
}

/** Per core of `series`: its pooled ratio over its instances, and its median ref. */
export function perCore(
  series: CounterSeries,
): { core: number; ratio: number | null; ref: number | null; instances: number }[] {
  const by = new Map<number, { req: number; ref: number; refs: number[] }>();
  for (let i = 0; i < series.req.length; i++) {
    const c = series.core[i];
    let e = by.get(c);
    if (!e) by.set(c, e = { req: 0, ref: 0, refs: [] });
    e.req += series.req[i];
    e.ref += series.ref[i];
    e.refs.push(series.ref[i]);
  }
  return [...by].map(([core, e]) => ({
    core,
    ratio: e.ref > 0 ? e.req / e.ref : null,
    ref: medianOfSorted(e.refs.sort((a, b) => a - b)),
    instances: e.refs.length,
  }));
}
