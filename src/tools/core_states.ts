/**
 * `core_states`: inside one operation (or every instance of an op code), where the cores that
 * computed spent the operation's interval — not yet started, started but before the math
 * kernel, the math kernel, write-back after math, and waiting for the other cores — summed
 * over the instances, with the instance nearest the median shown on its own.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { handleArg } from "./args.ts";
import {
  deviceSelection,
  placementCaveats,
  selectOps,
  timed,
  usOf,
} from "../analysis/device_ops.ts";
import { timelineUnavailable } from "../session/device_log.ts";
import { type CoreStates, instanceStates, MATH_RISC, noStates } from "../device_log/core_busy.ts";
import type { OpInstance } from "../device_log/op_instances.ts";
import { median } from "../device_log/timeline.ts";
import { round3 } from "../kit/figures.ts";
import { deviceArg } from "./args.ts";
import { opCodeArg } from "./args.ts";
import { perfIdArg } from "./args.ts";

const input = z.strictObject({
  handle: handleArg,
  perf_id: perfIdArg,
  op_code: opCodeArg,
  device: deviceArg,
});

const NOTE = "For each core that ran a math kernel (a TRISC_1 kernel zone), the operation's " +
  "interval — from the first kernel start on any core to the last core's firmware end — " +
  "divides into five states: not_started (until this core's first kernel start), before_math " +
  "(until its math kernel starts), math (the math kernel), after_math (math end to this " +
  "core's last kernel end: the writer's write-back, BRISC), waiting_for_others (until the " +
  "last core is done). share_percent is each state's cycles ÷ (computing cores × interval), " +
  "summed over the instances; the five add to 100.";

/** The `core_states` tool. */
export const coreStates = reportTool({
  name: "core_states",
  title: "Where computing cores spent an operation",
  description:
    "Inside one operation (perf_id) or every instance of an op code on one device: the share of " +
    "the operation's interval its computing cores (those with a math kernel) spent not yet " +
    "started, before the math kernel, in the math kernel, writing back after it, and waiting " +
    "for the other cores, summed over instances, with the instance nearest the median shown " +
    "alone. Reads profile_log_device.csv with the performance CSV.",
  input,
  reads: ["performance_csv", "device_log"],
  cannotAnswer: timelineUnavailable,
  async handler(args, ctx) {
    if ((args.perf_id === undefined) === (args.op_code === undefined)) {
      throw new Refusal("core_states takes exactly one of perf_id and op_code");
    }
    const { report } = ctx;
    const sel = await deviceSelection(ctx, {}, args.device);
    const { ops, what } = selectOps(ctx, sel, args.perf_id, args.op_code);
    const clock = sel.clockMhz;
    const per = ops.filter((o) => o.kernelStart !== null).map((op) => ({
      op,
      ...instanceStates(op, sel.windows, sel.log.lanes),
    }));
    const computing = per.filter((p) => p.cores > 0);
    if (computing.length === 0) {
      throw new Refusal(
        `core_states: no core of ${what} on device ${sel.ops.device} ran a math kernel ` +
          `(a ${MATH_RISC} kernel zone in the device log), so there is no compute phase to ` +
          "divide the interval around",
      );
    }
    const total = noStates();
    let coreIntervals = 0;
    for (const p of computing) {
      add(total, p.states);
      coreIntervals += p.cores * length(p.op);
    }
    const mid = median(computing.map((p) => length(p.op)))!;
    const nearest = computing.reduce((best, p) =>
      Math.abs(length(p.op) - mid) < Math.abs(length(best.op) - mid) ? p : best
    );
    const answer: Record<string, unknown> = {
      handle: args.handle,
      device: sel.ops.device,
      clock_mhz: clock,
      selection: what,
      instances: computing.length,
      computing_core_intervals: computing.reduce((n, p) => n + p.cores, 0),
      states: stateFigures(total, coreIntervals, clock),
      median_instance: {
        perf_id: nearest.op.perfId,
        ...timed("interval", length(nearest.op), clock),
        computing_cores: nearest.cores,
        states: stateFigures(nearest.states, nearest.cores * length(nearest.op), clock),
      },
      note: NOTE,
    };
    const caveats = placementCaveats(sel);
    const without = per.length - computing.length;
    if (without > 0) {
      caveats.push(
        `${without} of the ${per.length} instances had no core with a math kernel and are ` +
          "left out.",
      );
    }
    if (caveats.length > 0) answer.caveat = caveats.join(" ");
    return answer;
  },
});

function length(op: OpInstance): number {
  return op.fwEnd - op.kernelStart!;
}

function add(into: CoreStates, s: CoreStates) {
  for (const k of Object.keys(into) as (keyof CoreStates)[]) into[k] += s[k];
}

function stateFigures(s: CoreStates, whole: number, clock: number) {
  return Object.fromEntries(
    (Object.keys(s) as (keyof CoreStates)[]).map((k) => [k, {
      cycles: s[k],
      us: usOf(s[k], clock),
      share_percent: whole > 0 ? round3((100 * s[k]) / whole) : null,
    }]),
  );
}
