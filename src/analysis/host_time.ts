/**
 * Gaps that are host time. tt-perf-report's op-to-op gap is the time from one operation's end
 * to the next one's start as the host saw it: dispatch, program compiles on first calls and
 * Python between operations all land there. On a capture that is not traced, or one whose
 * window takes in the cold first iteration, the gaps dwarf the device time, and an agent
 * ranking operations by gap would chase host time as if it were device work. This says so,
 * with the ratio, how many of the window's operations were their program's first call, and how
 * to read a steady state instead.
 *
 * @module
 */
import { type PerfReport, PythonSum } from "../perf_report/mod.ts";
import { round3, sig3 } from "../kit/rounding.ts";
import { PROGRAM_CACHE_COLUMNS, type ProgramCall } from "./program_calls.ts";

/** The gap and device-time totals of a report's rows. */
export interface GapAndDevice {
  op_to_op_gap_us: number;
  device_time_us: number;
}

/** The summed op-to-op gap and device time of `perf`'s rows (finite values only). */
export function gapAndDevice(perf: PerfReport): GapAndDevice {
  const gap = new PythonSum();
  const device = new PythonSum();
  for (const r of perf.rows) {
    if (r.op_to_op_gap !== null && Number.isFinite(r.op_to_op_gap)) gap.add(r.op_to_op_gap);
    if (r.device_time !== null && Number.isFinite(r.device_time)) device.add(r.device_time);
  }
  return { op_to_op_gap_us: gap.value, device_time_us: device.value };
}

/**
 * How many of the window's device operations were their program's first call (decided over
 * the whole report, as program_cache decides it), or null when the capture records no program
 * hashes.
 */
export function firstCallsIn(
  perf: PerfReport,
  calls: ReadonlyMap<number, ProgramCall>,
  header: readonly string[],
): FirstCalls | null {
  if (!PROGRAM_CACHE_COLUMNS.every((c) => header.includes(c))) return null;
  let first = 0;
  let ops = 0;
  let recorded = 0;
  let misses = 0;
  for (const row of perf.rows) {
    const call = calls.get(row.id);
    if (!call) continue;
    if (call.hit !== null) {
      recorded++;
      if (!call.hit) misses++;
    }
    if (call.hash === null) continue;
    ops++;
    if (!call.repeat) first++;
  }
  return {
    first_calls: first,
    device_ops: ops,
    ...(recorded > 0 ? { cache: { misses, recorded } } : {}),
  };
}

/** First calls by program hash, and the cache misses the CSV recorded (PROGRAM CACHE HIT). */
export interface FirstCalls {
  first_calls: number;
  device_ops: number;
  /** Rows whose PROGRAM CACHE HIT is recorded, and of them those False. */
  cache?: { misses: number; recorded: number };
}

/**
 * The caveat of a window whose op-to-op gaps add up to more than its device time, or null:
 * its figures and what they say of this window (why such gaps are host time is the note
 * `gaps.host_time`, which the tools name beside it). `label` names the report when an answer
 * reads two.
 *
 * @example
 * ```ts
 * import { hostTimeCaveat } from "./host_time.ts";
 * const text = hostTimeCaveat({ op_to_op_gap_us: 9_400_000, device_time_us: 7_300 }, null);
 * if (!text?.includes("1290×") || !text.includes("host-side")) throw new Error(text ?? "none");
 * if (hostTimeCaveat({ op_to_op_gap_us: 10, device_time_us: 700 }, null) !== null) throw new Error();
 * ```
 */
export function hostTimeCaveat(
  totals: GapAndDevice,
  firstCalls: FirstCalls | null,
  label = "",
  steady = SIGNPOSTED_STEADY_STATE,
): string | null {
  const { op_to_op_gap_us: gap, device_time_us: device } = totals;
  if (!(gap > device)) return null;
  const ratio = device > 0 ? `${sig3(gap / device)}× the device time` : "with no device time";
  const compiles = firstCalls?.cache
    ? `${firstCalls.cache.misses} of the ${firstCalls.cache.recorded} device operations here ` +
      `missed the program cache (PROGRAM CACHE HIT False; ${firstCalls.first_calls} are their ` +
      "program's first call), so " +
      (firstCalls.cache.misses > 0
        ? "program compiles are likely much of it."
        : "the gaps are not program compiles: look at dispatch and the host code between " +
          "operations.")
    : firstCalls === null
    ? "The capture records no program hashes, so whether these were first calls (which compile " +
      "their program) is unknown."
    : firstCalls.first_calls === 0
    ? `None of the ${firstCalls.device_ops} device operations here is its program's first call ` +
      "(program_cache), so the gaps are not program compiles: look at dispatch and the host code " +
      "between operations."
    : `${firstCalls.first_calls} of the ${firstCalls.device_ops} device operations here are ` +
      "their program's first call (program_cache counts them), so program compiles are likely " +
      "much of it.";
  return `${label}Op-to-op gaps total ${round3(gap)} µs, ${ratio} (${round3(device)} µs): ` +
    `host-side time, not device work, so rank by device_time here. ${compiles} ${steady}`;
}

/** How to read a steady state when the capture has signposts. */
export const SIGNPOSTED_STEADY_STATE = "For a steady state, read a signposted window over warm " +
  "iterations (start_signpost and end_signpost, with start_occurrence past the cold ones) or " +
  "capture with a metal trace.";

/** How to read a steady state: the warm pass when there is one, else by signposts or rows. */
export function steadyStateAdvice(
  signposts: boolean,
  passes: { warm_pass: number | null; passes: readonly { pass: number }[] },
): string {
  if (passes.warm_pass !== null) {
    return `The capture repeats its operation sequence ${passes.passes.length} times: for a ` +
      `steady state, read pass ${passes.warm_pass} (pass: ${passes.warm_pass}, warm; ` +
      "load_report lists the passes) or capture with a metal trace.";
  }
  if (signposts) return SIGNPOSTED_STEADY_STATE;
  return "For a steady state, read the rows past the cold first calls (start_row/end_row) or " +
    "capture with signposts around warm iterations or a metal trace.";
}
