/**
 * Internal: the figures perf_counters gives per operation (or per pooled op code) — each
 * counter as a percentage of its ref, the instruction threads' states, the lowest-FPU cores —
 * and the caveats of a counter scan, as the answer spells them.
 *
 * @module
 */
import {
  CORE_SPAN,
  type CounterFigures,
  type CounterGroup,
  type CounterScan,
  type OpCounters,
  perCore,
  type RatioStats,
} from "../device_log/mod.ts";
import { round3 } from "../kit/rounding.ts";

/** The most cores a one-operation answer lists. */
export const MAX_CORES = 16;

/** One counter's figures over its samples, as percentages of ref. */
export interface CounterStats {
  pooled_pct: number | null;
  median_pct: number | null;
  min_pct: number | null;
  max_pct: number | null;
  mean_pct: number | null;
  samples: number;
  req_sum: number;
  ref_sum: number;
}

/** One state of an instruction thread. */
export interface ThreadStateEntry {
  state: string;
  counter: string;
  pooled_pct: number | null;
  median_pct: number | null;
}

/** An instruction thread's state breakdown. */
export interface ThreadEntry {
  thread: number;
  role: string;
  states: ThreadStateEntry[];
  accounted_pct: number | null;
  unaccounted_pct: number | null;
  missing?: string[];
}

/** One group's counters. */
export interface GroupEntry {
  group: CounterGroup;
  ref_cycles_median: number | null;
  counters: ({ counter: string } & CounterStats)[];
}

/** The figures of one operation, or of several pooled. */
export interface CounterEntry {
  /** Present when more than one operation is pooled. */
  operations?: number;
  instances: number;
  cores: number;
  ref_cycles_median: number | null;
  ref_us_median: number | null;
  fpu_utilisation: CounterStats | null;
  instruction_threads: ThreadEntry[];
  groups: GroupEntry[];
  riscs: string[];
  caveat?: string;
}

/** One of an operation's cores with the lowest FPU utilisation. */
export interface LowFpuCore {
  core_x: number;
  core_y: number;
  fpu_utilisation_pct: number | null;
  ref_cycles_median: number | null;
  instances: number;
}

const pct = (x: number | null) => (x === null ? null : round3(100 * x));

/** One counter's stats as the answer gives them: percentages of ref, rounded. */
function counterOut(s: RatioStats): CounterStats {
  return {
    pooled_pct: pct(s.pooled),
    median_pct: pct(s.median),
    min_pct: pct(s.min),
    max_pct: pct(s.max),
    mean_pct: pct(s.mean),
    samples: s.samples,
    req_sum: s.reqSum,
    ref_sum: s.refSum,
  };
}

/** The figures of one operation, or of several pooled. */
export function entry(f: CounterFigures, clock: number | null): CounterEntry {
  const refMedian = f.fpu?.refMedian ?? f.groups[0]?.counters[0]?.stats.refMedian ?? null;
  const caveats = entryCaveats(f);
  return {
    ...(f.operations > 1 ? { operations: f.operations } : {}),
    instances: f.instances,
    cores: f.cores,
    ref_cycles_median: refMedian,
    ref_us_median: refMedian === null || clock === null ? null : round3(refMedian / clock),
    fpu_utilisation: f.fpu ? counterOut(f.fpu) : null,
    instruction_threads: f.threads.map((t) => ({
      thread: t.thread,
      role: t.role,
      states: t.states.map((s) => ({
        state: s.state,
        counter: s.counter,
        pooled_pct: pct(s.stats.pooled),
        median_pct: pct(s.stats.median),
      })),
      accounted_pct: pct(t.accounted),
      unaccounted_pct: pct(t.unaccounted),
      ...(t.missing.length > 0 ? { missing: t.missing } : {}),
    })),
    groups: f.groups.map((g) => ({
      group: g.group,
      ref_cycles_median: g.counters[0].stats.refMedian,
      counters: g.counters.map((c) => ({ counter: c.name, ...counterOut(c.stats) })),
    })),
    riscs: f.riscs,
    ...(caveats.length > 0 ? { caveat: caveats.join(" ") } : {}),
  };
}

function entryCaveats(f: CounterFigures): string[] {
  const out: string[] = [];
  const all = f.groups.flatMap((g) => g.counters);
  const over = all.reduce((n, c) => n + c.stats.overOne, 0);
  if (over > 0) {
    out.push(
      `${over} samples counted more than their ref: a ref cnt that wrapped (older tt-metal kept ` +
        "it in 25 or 28 bits, about 25 or 200 ms at 1.35 GHz) or counters read outside their " +
        "window; their ratios are not utilisations.",
    );
  }
  const zero = all.reduce((n, c) => n + c.stats.zeroRef, 0);
  if (zero > 0) out.push(`${zero} samples had ref cnt 0 and are left out of every figure.`);
  if (f.repeats > 0) {
    out.push(
      `${f.repeats} counter rows repeated a counter already read for the same core and ` +
        "instance; each was added to that sample's req and ref.",
    );
  }
  if (!f.fpu) out.push("No FPU_COUNTER was recorded (the FPU group was not enabled).");
  return out;
}

/** The cores of one operation with the lowest FPU utilisation, for a one-operation answer. */
export function lowestCores(op: OpCounters): { lowest_fpu_cores?: LowFpuCore[] } {
  const fpu = op.series.get("FPU_COUNTER");
  if (!fpu) return {};
  const cores = perCore(fpu).sort((a, b) => (a.ratio ?? -1) - (b.ratio ?? -1) || a.core - b.core);
  return {
    lowest_fpu_cores: cores.slice(0, MAX_CORES).map((c) => ({
      core_x: Math.floor(c.core / CORE_SPAN),
      core_y: c.core % CORE_SPAN,
      fpu_utilisation_pct: pct(c.ratio),
      ref_cycles_median: c.ref,
      instances: c.instances,
    })),
  };
}

/** The caveats of the scan itself: rows unread, counters named by number, rows left out. */
export function scanCaveats(scan: CounterScan): string[] {
  const out: string[] = [];
  if (scan.bad > 0) {
    out.push(
      `${scan.bad} counter rows could not be read (a slot, core or run host ID that is not a ` +
        `whole number, or meta data without counter type, ref cnt and value); the first: ` +
        `${JSON.stringify(scan.firstBad)}.`,
    );
  }
  if (scan.numericNames > 0) {
    out.push(
      `${scan.numericNames} counter rows name their counter by number, as older tt-metal wrote ` +
        "it; numbering changed between versions, so they are listed as #<n> in group unknown.",
    );
  }
  if (scan.otherTypes > 0) {
    out.push(`${scan.otherTypes} zone rows mentioning "counter type" were not counter rows.`);
  }
  if (scan.outsideOps > 0) {
    out.push(
      `${scan.outsideOps} counter rows had run host ID 0, which belongs to no operation, and ` +
        "are left out, as tt-metal leaves them out.",
    );
  }
  return out;
}
