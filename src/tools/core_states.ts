/**
 * `core_states`: inside one operation (or every instance of an op code), where the cores that
 * computed spent the operation's interval — not yet started, started but before the math
 * kernel, the math kernel, write-back after math, and waiting for the other cores — summed
 * over the instances, with the instance nearest the median shown on its own.
 *
 * @module
 */
import { z } from "zod";
import { nextIf } from "./_next.ts";
import { type ReportContext, reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { deviceArg, handleArg, opCodeArg, perfIdArg } from "./args.ts";
import {
  type DeviceSelection,
  deviceSelection,
  placementCaveats,
  selectOps,
  type Timed,
  timed,
  unpairedStartCaveat,
  usOf,
} from "../analysis/device_ops.ts";
import { timelineUnavailable } from "../session/device_log.ts";
import {
  type CoreStates,
  countWhy,
  instanceStates,
  MATH_RISC,
  median,
  noStates,
  type OpInstance,
  type UnknownCore,
  type UnknownWhy,
} from "../device_log/mod.ts";
import { round3 } from "../kit/rounding.ts";

const input = z.strictObject({
  handle: handleArg,
  perf_id: perfIdArg,
  op_code: opCodeArg,
  device: deviceArg,
});

/** One state's core-time (summed over cores): core-cycles, core-µs and share of the whole. */
export interface StateFigure {
  core_cycles: number;
  core_us: number;
  share_percent: number | null;
}

/** Core-instances whose states are unknown, by reason, with the first few named. */
export interface UnknownCoreStates {
  core_instances: number;
  unpaired: number;
  record_stopped: number;
  examples: { perf_id: number; core_x: number; core_y: number; why: UnknownWhy }[];
}

/** The five states' figures. */
export type StateFigures = Record<keyof CoreStates, StateFigure>;

/** The instance whose interval is nearest the median, on its own. */
export interface MedianInstance extends Timed<"interval"> {
  perf_id: number;
  computing_cores: number;
  states: StateFigures;
}

/** The answer of `core_states`. */
export interface CoreStatesAnswer {
  handle: string;
  device: number;
  clock_mhz: number;
  selection: string;
  instances: number;
  computing_core_intervals: number;
  /** Null when no computing core was measured (every core unknown: see unknown_cores). */
  states: StateFigures | null;
  median_instance: MedianInstance | null;
  unknown_cores: UnknownCoreStates;
}

/** One instance's states summed over its computing cores, and its unknown cores. */
interface InstanceStates {
  op: OpInstance;
  cores: number;
  states: CoreStates;
  unknown: UnknownCore[];
}

/** The selected instances placed in the log, and those with a computing core. */
interface Selected {
  what: string;
  placed: InstanceStates[];
  computing: InstanceStates[];
}

/** The `core_states` tool. */
export const coreStates = reportTool({
  name: "core_states",
  title: "States of computing cores",
  summary: "Inside one operation or an op code's instances: the share of the interval its " +
    "computing cores spent before, in, after math and waiting.",
  description:
    "Inside an operation or op code: its computing cores' time before, in and after the math " +
    "kernel, and waiting for the others.",
  input,
  reads: ["performance_csv", "device_log"],
  cannotAnswer: timelineUnavailable,
  async handler(args, ctx): Promise<CoreStatesAnswer> {
    if ((args.perf_id === undefined) === (args.op_code === undefined)) {
      throw new Refusal("core_states takes exactly one of perf_id and op_code");
    }
    const sel = await deviceSelection(ctx, {}, args.device);
    const selected = selectInstances(ctx, sel, args.perf_id, args.op_code);
    ctx.parts.caveat(
      ...placementCaveats(sel),
      leftOutCaveat(selected),
      unknownCaveat(selected),
      unpairedStartCaveat(selected.placed.map((p) => p.op)),
    );
    const pick = args.perf_id !== undefined ? { perf_id: args.perf_id } : { op_code: args.op_code };
    const on = { handle: args.handle, ...pick, device: sel.ops.device };
    const counters = nextIf(ctx, {
      tool: "perf_counters",
      why: "the Tensix counters of the same operations: what held the math kernel back",
      arguments: on,
    });
    if (!counters) {
      nextIf(ctx, {
        tool: "core_utilisation",
        why: "which of the same operations' cores idled, barely ran or were saturated",
        arguments: on,
      });
    }
    ctx.parts.note("core_states.states");
    return answerOf(args.handle, sel, selected);
  },
});

/**
 * The instances `perfId` or `opCode` names, each with its computing cores' states; refuses
 * when none had a core with a math kernel.
 */
function selectInstances(
  ctx: ReportContext,
  sel: DeviceSelection,
  perfId: number | string | undefined,
  opCode: string | undefined,
): Selected {
  const { ops, what } = selectOps(ctx, sel, perfId, opCode);
  const placed = ops.filter((o) => o.kernelStart !== null).map((op) => ({
    op,
    ...instanceStates(op, sel.windows, sel.log.lanes),
  }));
  const computing = placed.filter((p) => p.cores > 0);
  // With unknown cores the answer says so (every state null) rather than refusing.
  if (computing.length === 0 && !placed.some((p) => p.unknown.length > 0)) {
    throw new Refusal(
      `core_states: no core of ${what} on device ${sel.ops.device} ran a math kernel ` +
        `(a ${MATH_RISC} kernel zone in the device log), so there is no compute phase to ` +
        "divide the interval around",
    );
  }
  return { what, placed, computing };
}

/** The answer: the states summed over the computing instances, and the median one alone. */
function answerOf(handle: string, sel: DeviceSelection, selected: Selected): CoreStatesAnswer {
  const { computing } = selected;
  const clock = sel.clockMhz;
  const total = noStates();
  let coreIntervals = 0;
  for (const p of computing) {
    add(total, p.states);
    coreIntervals += p.cores * length(p.op);
  }
  const nearest = computing.length > 0 ? nearestMedian(computing) : null;
  return {
    handle,
    device: sel.ops.device,
    clock_mhz: clock,
    selection: selected.what,
    instances: computing.length,
    computing_core_intervals: computing.reduce((n, p) => n + p.cores, 0),
    states: nearest === null ? null : stateFigures(total, coreIntervals, clock),
    median_instance: nearest === null ? null : {
      perf_id: nearest.op.perfId,
      ...timed("interval", length(nearest.op), clock),
      computing_cores: nearest.cores,
      states: stateFigures(nearest.states, nearest.cores * length(nearest.op), clock),
    },
    unknown_cores: unknownOf(selected.placed),
  };
}

/** The instance whose interval is nearest the median (the first of equals). */
function nearestMedian(computing: readonly InstanceStates[]): InstanceStates {
  const mid = median(computing.map((p) => length(p.op)))!;
  return computing.reduce((best, p) =>
    Math.abs(length(p.op) - mid) < Math.abs(length(best.op) - mid) ? p : best
  );
}

/** Why some placed instances are not in the figures, or null. */
function leftOutCaveat({ placed, computing }: Selected): string | null {
  const without = placed.length - computing.length;
  return without > 0
    ? `${without} of the ${placed.length} instances had no core with a math kernel and are ` +
      "left out."
    : null;
}

/** The core-instances whose states are unknown, counted by reason, the first few named. */
function unknownOf(placed: readonly InstanceStates[]): UnknownCoreStates {
  const all = placed.flatMap((p) => p.unknown.map((c) => ({ op: p.op, c })));
  const n = countWhy(all.map((x) => x.c));
  return {
    core_instances: all.length,
    unpaired: n.unpaired,
    record_stopped: n.record_stopped,
    examples: all.slice(0, 5).map(({ op, c }) => ({
      perf_id: op.perfId,
      core_x: c.x,
      core_y: c.y,
      why: c.why,
    })),
  };
}

/** What the caveat says of cores left out as unknown, or null. */
function unknownCaveat({ placed, computing }: Selected): string | null {
  const n = placed.reduce((k, p) => k + p.unknown.length, 0);
  if (n > 0 && computing.length === 0) {
    return `Every core the log holds for the selection is unknown (${n} core-instances: ` +
      "unknown_cores says why), so no state is measured: states and median_instance are " +
      "null, not 0.";
  }
  return n > 0
    ? `${n} core-instance${n > 1 ? "s are" : " is"} unknown (unknown_cores says why) and left ` +
      "out of the states: the log does not say when their kernels ran, so the shares are of " +
      "the cores it measured."
    : null;
}

function length(op: OpInstance): number {
  return op.fwEnd - op.kernelStart!;
}

function add(into: CoreStates, s: CoreStates) {
  for (const k of Object.keys(into) as (keyof CoreStates)[]) into[k] += s[k];
}

function stateFigures(s: CoreStates, whole: number, clock: number): StateFigures {
  const figure = (cycles: number): StateFigure => ({
    core_cycles: cycles,
    core_us: usOf(cycles, clock),
    share_percent: whole > 0 ? round3((100 * cycles) / whole) : null,
  });
  return {
    not_started: figure(s.not_started),
    before_math: figure(s.before_math),
    math: figure(s.math),
    after_math: figure(s.after_math),
    waiting_for_others: figure(s.waiting_for_others),
  };
}
