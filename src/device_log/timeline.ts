/**
 * The device timeline of a window, as the users' method measures it: device busy time runs
 * from the first operation's start to the last one's end, and splits exactly into operation
 * intervals and the gaps between them. Summing firmware intervals instead counts twice the
 * time neighbouring operations overlap on the same cores (a core receives the next launch
 * before the previous operation's last core reports done); the contrast is computed too, so
 * an answer shows how far that sum is off. Pure: cycles in, cycles out.
 *
 * @module
 */
import type { OpInstance } from "./op_instances.ts";
import type { KernelWindows, LogLane } from "./summary.ts";
import { medianOfSorted } from "./_median.ts";

/** A placed interval of one operation instance. */
export interface Span {
  start: number;
  end: number;
  op: OpInstance;
}

/** One gap: the time between the latest end so far and the next start. */
export interface Gap {
  cycles: number;
  before: OpInstance;
  after: OpInstance;
}

/** How a set of intervals covers the device's time. */
export interface Coverage {
  spans: number;
  /** First start → last end. */
  busy: number;
  /** Σ (end − start). */
  intervalSum: number;
  /** Σ gaps; with no overlap, intervalSum + gapSum = busy. */
  gapSum: number;
  /** busy − intervalSum − gapSum: 0 without overlap, minus the overlapped time with it. */
  residual: number;
  /** Pairs of intervals that overlap (each pair once). */
  overlappingPairs: number;
  /** Σ over those pairs of the time both ran. */
  overlapCycles: number;
  /** Gaps in start order. */
  gaps: Gap[];
  /** The first overlapping pairs, for a closer look (at most `keepPairs`). */
  pairs: [Span, Span][];
}

/**
 * How `spans` cover the timeline. Overlapping pairs are counted in a sweep over start order,
 * each pair once however many intervals are open at a time; up to `keepPairs` of them are
 * also returned, for a closer look.
 *
 * @example
 * ```ts
 * import { coverage } from "./timeline.ts";
 * const op = {} as never;
 * const c = coverage([{ start: 0, end: 10, op }, { start: 15, end: 20, op }]);
 * if (c.busy !== 20 || c.intervalSum !== 15 || c.gapSum !== 5 || c.residual !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function coverage(spans: readonly Span[], keepPairs = 0): Coverage {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const gaps: Gap[] = [];
  const pairs: [Span, Span][] = [];
  let intervalSum = 0;
  let gapSum = 0;
  let overlappingPairs = 0;
  let overlapCycles = 0;
  let latest: Span | null = null;
  // Ends of the intervals seen so far, counted and summed by rank: each interval's overlaps with
  // all earlier ones come from two prefix sums, so even a capture whose every interval overlaps
  // every other costs n log n, not n².
  const ends = Float64Array.from(sorted, (s) => s.end).sort();
  const counts = new Fenwick(ends.length);
  const sums = new Fenwick(ends.length);
  let total = 0;
  // The open intervals themselves, kept only while pairs are still wanted.
  let open: Span[] | null = keepPairs > 0 ? [] : null;
  for (const s of sorted) {
    intervalSum += s.end - s.start;
    if (latest !== null && s.start > latest.end) {
      gaps.push({ cycles: s.start - latest.end, before: latest.op, after: s.op });
      gapSum += s.start - latest.end;
    }
    // Earlier intervals ending after this one starts overlap it, for min(their end, its end)
    // − its start each. (A zero-length interval overlaps nothing.)
    if (s.end > s.start) {
      const afterStart = below(ends, s.start, true);
      const fromEnd = below(ends, s.end, false);
      const overlapping = total - counts.prefix(afterStart);
      const endingInside = counts.prefix(fromEnd) - counts.prefix(afterStart);
      const sumInside = sums.prefix(fromEnd) - sums.prefix(afterStart);
      overlappingPairs += overlapping;
      overlapCycles += sumInside + (overlapping - endingInside) * s.end - overlapping * s.start;
      if (open !== null) {
        open = open.filter((o) => o.end > s.start);
        for (const o of open) {
          if (pairs.length >= keepPairs) break;
          pairs.push([o, s]);
        }
        if (pairs.length >= keepPairs) open = null;
        else open.push(s);
      }
      counts.add(fromEnd, 1);
      sums.add(fromEnd, s.end);
      total++;
    }
    if (latest === null || s.end > latest.end) latest = s;
  }
  const busy = sorted.length === 0 ? 0 : latest!.end - sorted[0].start;
  return {
    spans: sorted.length,
    busy,
    intervalSum,
    gapSum,
    residual: busy - intervalSum - gapSum,
    overlappingPairs,
    overlapCycles,
    gaps,
    pairs,
  };
}

/** Counts and sums by rank (a Fenwick tree): add at a rank, total below a rank. */
class Fenwick {
  readonly #tree: Float64Array;

  constructor(size: number) {
    this.#tree = new Float64Array(size + 1);
  }

  add(rank: number, value: number): void {
    for (let i = rank + 1; i < this.#tree.length; i += i & -i) this.#tree[i] += value;
  }

  /** The total at ranks below `rank`. */
  prefix(rank: number): number {
    let t = 0;
    for (let i = rank; i > 0; i -= i & -i) t += this.#tree[i];
    return t;
  }
}

/** How many of the sorted values are below `x` (or, with `orEqual`, not above it). */
function below(sorted: ArrayLike<number>, x: number, orEqual: boolean): number {
  let a = 0;
  let b = sorted.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (sorted[m] < x || (orEqual && sorted[m] === x)) a = m + 1;
    else b = m;
  }
  return a;
}

/** The operation intervals of `ops`: earliest kernel start → firmware end; unplaced ones skipped. */
export function opSpans(ops: readonly OpInstance[]): Span[] {
  return ops.filter((o) => o.kernelStart !== null)
    .map((op) => ({ start: op.kernelStart!, end: op.fwEnd, op }));
}

/** The firmware intervals of `ops`: DEVICE FW START → END CYCLE. */
export function firmwareSpans(ops: readonly OpInstance[]): Span[] {
  return ops.map((op) => ({ start: op.fwStart, end: op.fwEnd, op }));
}

/** The median of some numbers in any order, or null for none. */
export function median(values: readonly number[]): number | null {
  return medianOfSorted(Float64Array.from(values).sort());
}

/** Interval time summed per key, largest first (ties by key). */
export function sumBy(
  spans: readonly Span[],
  key: (op: OpInstance) => string,
): { key: string; count: number; cycles: number }[] {
  const by = new Map<string, { key: string; count: number; cycles: number }>();
  for (const s of spans) {
    const k = key(s.op);
    let e = by.get(k);
    if (!e) by.set(k, e = { key: k, count: 0, cycles: 0 });
    e.count++;
    e.cycles += s.end - s.start;
  }
  return [...by.values()].sort((a, b) =>
    b.cycles - a.cycles || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  );
}

/** One repetition of the window and its busy time. */
export interface Iteration {
  /** What marks it: a signpost's occurrence number, or a trace replay session id. */
  label: string;
  ops: number;
  busy: number;
}

/**
 * Splits the placed `spans` into repetitions: at each occurrence of `marker` when the rows
 * in order hold one more than once (`position` gives a row's place in that order), else by
 * trace replay session. Spans before the first marker, or outside any replay, belong to none.
 */
export function iterations(
  spans: readonly Span[],
  markers: readonly number[],
  position: (op: OpInstance) => number,
): { by: "signpost" | "trace_replay"; list: Iteration[]; outside: number } | null {
  const groups = new Map<string, Span[]>();
  let outside = 0;
  let by: "signpost" | "trace_replay";
  if (markers.length >= 2) {
    by = "signpost";
    for (const s of spans) {
      // The last marker before the span's row (markers are in report order).
      const k = below(markers, position(s.op), false) - 1;
      if (k < 0) outside++;
      else push(groups, String(k + 1), s);
    }
  } else {
    by = "trace_replay";
    for (const s of spans) {
      if (s.op.replay === null) outside++;
      else push(groups, s.op.replay, s);
    }
    if (groups.size < 2) return null;
  }
  const list = [...groups].map(([label, ss]) => {
    let start = Infinity;
    let end = -Infinity;
    for (const s of ss) {
      start = Math.min(start, s.start);
      end = Math.max(end, s.end);
    }
    return { label, ops: ss.length, busy: end - start, start };
  }).sort((a, b) => a.start - b.start)
    .map(({ label, ops, busy }) => ({ label, ops, busy }));
  return { by, list, outside };
}

function push(m: Map<string, Span[]>, k: string, s: Span) {
  const a = m.get(k);
  if (a) a.push(s);
  else m.set(k, [s]);
}

/** Positions (in report order) of the most repeated signpost, when one repeats. */
export function markerPositions(rows: readonly { is_signpost: boolean; raw_op_code: string }[]) {
  const at = new Map<string, number[]>();
  rows.forEach((r, i) => {
    if (!r.is_signpost) return;
    const a = at.get(r.raw_op_code);
    if (a) a.push(i);
    else at.set(r.raw_op_code, [i]);
  });
  let best: number[] = [];
  for (const a of at.values()) if (a.length > best.length) best = a;
  return best.length >= 2 ? best : [];
}

/**
 * Of overlapping firmware intervals, the pairs in which one core ran both operations, and
 * the time they overlapped: the double counting a firmware-interval sum commits.
 */
export function sharingACore(
  pairs: readonly [Span, Span][],
  windows: KernelWindows,
  lanes: readonly LogLane[],
): { pairs: number; cycles: number } {
  const coresOf = new Map<number, Set<number>>();
  const cores = (w: number) => {
    let set = coresOf.get(w);
    if (!set) {
      set = new Set();
      for (let k = windows.starts[w]; k < windows.starts[w + 1]; k++) {
        set.add(lanes[windows.lane[k]].core);
      }
      coresOf.set(w, set);
    }
    return set;
  };
  let n = 0;
  let cycles = 0;
  for (const [a, b] of pairs) {
    const other = cores(b.op.window);
    for (const c of cores(a.op.window)) {
      if (other.has(c)) {
        n++;
        cycles += Math.min(a.end, b.end) - b.start;
        break;
      }
    }
  }
  return { pairs: n, cycles };
}
