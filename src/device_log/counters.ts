/**
 * The Tensix performance counters tt-metal writes into `profile_log_device.csv`: whether a
 * loaded report has them (the rule load_report lists perf_counters by), their one read per
 * handle, and the figures an operation's counters give — each counter's req ÷ ref by group,
 * FPU utilisation, and the instruction threads' state breakdown.
 *
 * How tt-metal writes them (sources cited here and in `_counter_names.ts`):
 * - A counter row is a `TS_DATA` row with timer_id 9090 (`PERF_COUNTER_PROFILER_ID`,
 *   tenstorrent/tt-metal `tt_metal/tools/profiler/perf_counters.hpp`
 *   @ 00d3c16b7efdd49fb6cb8ce458a5d0590131f4e8). The device sends it as a 16-byte
 *   `TS_DATA_16B` packet, which the host maps to marker type `TS_DATA`, and the host puts
 *   `meta_data["counter type"]` (the enum's name), `["ref cnt"]` and `["value"]` into the
 *   row's `meta data` (tt-metal `tt_metal/impl/profiler/profiler.cpp`, index id 583269790).
 *   The CSV writer turns the JSON's commas into `;`; tt-metal's own reader undoes that with
 *   `json.loads(raw.replace(";", ",").replace("'", '"'))` (`tools/tracy/process_ops_logs.py`,
 *   index id 53140530902), which also accepts a numeric counter type from older builds. A
 *   third-party writer's log (index id 71043965277) shows the type column as `TS_DATA_16B`,
 *   so any `TS_DATA…` type is accepted.
 * - tt-metal's own per-op metrics divide `value` by `ref cnt` per core and take min, median,
 *   max and mean over the cores of each (run host ID, trace id counter) — the same grouping
 *   as here, where instances of one run host ID are pooled as well.
 * - Capture is enabled by `TT_METAL_PROFILE_PERF_COUNTERS=<bitmask>` with the device profiler
 *   (`TT_METAL_DEVICE_PROFILER=1`); tt-metal's tracy wrapper sets it from
 *   `--profiler-capture-perf-counters=<groups>` (groups `fpu`, `pack`, `unpack`, `l1_0`,
 *   `l1_1`, `instrn`, `all`; Blackhole adds `l1_2` … `l1_5`), and the BRISC firmware fits the
 *   readout of three groups per run (a fourth overflows it on Blackhole), so more take
 *   `--perf-counter-multipass` (tt-metal
 *   `tech_reports/PerfCounters/perf-counters.md` @ 0183393c65bf4e5d92cd544240471e195007ee18,
 *   which also gives the bitmask: FPU 1, PACK 2, UNPACK 4, L1 banks 8 and 16, INSTRN 32,
 *   Blackhole's further L1 banks 64 … 512, only one L1 bank per run).
 * - Not found in tt-metal's sources: the zone name a counter row carries (this reader does not
 *   use it), and whether an instruction thread's head-of-buffer states exclude one another
 *   (the users' talk measured their sum at 99.78% and calls it undocumented), so the
 *   unaccounted share is given as a derived figure with that assumption stated.
 *
 * @module
 */
import type { CounterSeries, OpCounters } from "./_counter_scan.ts";
import {
  type CounterGroup,
  GROUP_ORDER,
  groupOf,
  INSTRUCTION_CLASSES,
  THREAD_ROLES,
} from "./_counter_names.ts";
import { type RatioStats, ratioStats } from "./_counter_stats.ts";

export type { CounterScan, CounterSeries, OpCounters } from "./_counter_scan.ts";
export type { RatioStats } from "./_counter_stats.ts";
export type { CounterGroup } from "./_counter_names.ts";
export {
  CORE_SPAN,
  COUNTER_COLUMNS,
  CounterLogChanged,
  CounterLogNotUtf8,
  scanCounters,
} from "./_counter_scan.ts";
export { perCore } from "./_counter_stats.ts";
export { GROUP_ORDER, groupOf } from "./_counter_names.ts";

/** How to capture counters, for a refusal. */
export const HOW_TO_CAPTURE = "tt-metal writes them only when the run had the device profiler " +
  "(TT_METAL_DEVICE_PROFILER=1) and TT_METAL_PROFILE_PERF_COUNTERS set to a bitmask of counter " +
  "groups — in current tt-metal FPU 1, PACK 2, UNPACK 4, L1 bank 0 8, L1 bank 1 16, " +
  "INSTRN_THREAD 32 (39 = FPU, pack, unpack and instruction threads; older builds had L1 8 " +
  "and INSTRN 16; three groups per run fit the firmware on Blackhole, one L1 bank at a time) " +
  "— or, through " +
  "tt-metal's tracy wrapper, `python -m tracy --profiler-capture-perf-counters=fpu,pack,unpack` " +
  "(`all` with `--perf-counter-multipass` for every group, in several passes). Counting " +
  "perturbs timing, so capture counters in a separate run from the one timed.";

/** One counter of a group, over every sample. */
export interface CounterFigure {
  name: string;
  stats: RatioStats;
}

/** A group's counters, in the order the log first gave them. */
export interface GroupFigures {
  group: CounterGroup;
  counters: CounterFigure[];
}

/** One state of an instruction thread: the class at its buffer's head, or stalled. */
export interface ThreadState {
  state: string;
  counter: string;
  stats: RatioStats;
}

/** An instruction thread's state breakdown, from the INSTRN_THREAD group alone. */
export interface ThreadStates {
  thread: number;
  role: string;
  states: ThreadState[];
  /** State counters the log lacks (XSEARCH is never read on Blackhole, so not needed). */
  missing: string[];
  /** Σ of the states' pooled ratios. */
  accounted: number | null;
  /** 1 − accounted, when every needed state is present and accounted ≤ 1; else null. */
  unaccounted: number | null;
}

/** What the counters of one or more operations give, pooled over their samples. */
export interface CounterFigures {
  /** Operations pooled. */
  operations: number;
  /** Instances (replays) over those operations. */
  instances: number;
  /** Distinct cores per operation, summed. */
  cores: number;
  fpu: RatioStats | null;
  threads: ThreadStates[];
  groups: GroupFigures[];
  /** Rows that repeated a counter for the same core and instance, summed into its sample. */
  repeats: number;
  /** RISCs that wrote the rows. */
  riscs: string[];
}

/** Counter states of an instruction thread, in the order answers give them. */
const STATES: readonly [string, string][] = [
  ...INSTRUCTION_CLASSES.map((c) =>
    [c === "FPU" ? "MATH" : c, `${c}_INSTRN_AVAILABLE_`] as [
      string,
      string,
    ]
  ),
  ["STALLED", "THREAD_STALLS_"],
];

/**
 * The figures of `ops` pooled: every counter's ratios over all their (core, instance)
 * samples, grouped; FPU utilisation (FPU_COUNTER ÷ its ref); each instruction thread's states.
 */
export function counterFigures(ops: readonly OpCounters[]): CounterFigures {
  const names: string[] = [];
  const byName = new Map<string, CounterSeries[]>();
  for (const op of ops) {
    for (const s of op.series.values()) {
      let list = byName.get(s.name);
      if (!list) {
        byName.set(s.name, list = []);
        names.push(s.name);
      }
      list.push(s);
    }
  }
  const stats = new Map(names.map((n) => [n, ratioStats(byName.get(n)!)]));
  const groups: GroupFigures[] = [];
  for (const group of GROUP_ORDER) {
    const counters = names.filter((n) => groupOf(n) === group)
      .map((name) => ({ name, stats: stats.get(name)! }));
    if (counters.length > 0) groups.push({ group, counters });
  }
  const threads: ThreadStates[] = [];
  for (let t = 0; t < 3; t++) {
    const states: ThreadState[] = [];
    const missing: string[] = [];
    for (const [state, prefix] of STATES) {
      const counter = `${prefix}${t}`;
      const s = stats.get(counter);
      if (s && s.samples > 0) states.push({ state, counter, stats: s });
      else if (state !== "XSEARCH") missing.push(counter);
    }
    if (states.length === 0) continue;
    const accounted = states.reduce((n, s) => n + (s.stats.pooled ?? 0), 0);
    threads.push({
      thread: t,
      role: THREAD_ROLES[t],
      states,
      missing,
      accounted,
      unaccounted: missing.length === 0 && accounted <= 1 ? 1 - accounted : null,
    });
  }
  const cores = ops.reduce((n, op) => {
    const set = new Set<number>();
    for (const s of op.series.values()) for (const c of s.core) set.add(c);
    return n + set.size;
  }, 0);
  const fpu = stats.get("FPU_COUNTER");
  return {
    operations: ops.length,
    instances: ops.reduce((n, op) => n + op.replays.length, 0),
    cores,
    fpu: fpu && fpu.samples > 0 ? fpu : null,
    threads,
    groups,
    repeats: ops.reduce((n, op) => n + op.repeats, 0),
    riscs: [...new Set(ops.flatMap((op) => [...op.riscs]))].sort(),
  };
}

/** The cycles an operation's counters ran: Σref of FPU_COUNTER, else of its widest counter. */
export function countedCycles(op: OpCounters): number {
  const fpu = op.series.get("FPU_COUNTER");
  if (fpu) return fpu.ref.reduce((a, b) => a + b, 0);
  let best = 0;
  for (const s of op.series.values()) best = Math.max(best, s.ref.reduce((a, b) => a + b, 0));
  return best;
}
