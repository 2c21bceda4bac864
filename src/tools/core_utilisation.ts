/**
 * `core_utilisation`: per core of one device, the share of a selection's time it spent in a
 * kernel — the union of its RISCs' kernel intervals inside the selected operation intervals —
 * classed idle / near_zero / active / saturated, or unknown where the log cannot tell (an
 * unpaired kernel zone, a record that stopped), as a histogram and as a map of the chip in NoC
 * coordinates, with the mean over the cores whose busy time is known.
 *
 * @module
 */
import { z } from "zod";
import { nextIf } from "./_next.ts";
import { type ReportContext, reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import {
  deviceArg,
  handleArg,
  opCodeArg,
  perfIdArg,
  rangeArgs,
  rangeOf,
  viewArgsOf,
} from "./args.ts";
import {
  type DeviceSelection,
  deviceSelection,
  placementCaveats,
  selectOps,
  type Timed,
  timed,
  unpairedStartCaveat,
} from "../analysis/device_ops.ts";
import type { Projection } from "../analysis/performance.ts";
import { timelineUnavailable } from "../session/device_log.ts";
import { cellOf, rowIndexOf } from "../perf_report/mod.ts";
import {
  busyByCore,
  type CoreAt,
  coresOf,
  coverage,
  type DeviceCores,
  type OpInstance,
  opSpans,
  type UnknownWhy,
} from "../device_log/mod.ts";
import { round3, sig3 } from "../kit/rounding.ts";
import { ignoredRangeCaveat } from "../analysis/performance.ts";

/** Below this share a core that ran a kernel is near_zero (%). */
export const NEAR_ZERO_PERCENT = 0.5;
/** From this share up a core is saturated (%). */
export const SATURATED_PERCENT = 95;
/** The largest grid drawn (a Blackhole chip is 17 × 12). */
export const MAX_GRID_CELLS = 1024;
/** Example cores named per class. */
export const EXAMPLES = 5;

const input = z.strictObject({
  handle: handleArg,
  perf_id: perfIdArg,
  op_code: opCodeArg,
  ...rangeArgs,
  device: deviceArg,
});

/** A core named as an example of its class. */
export interface ExampleCore {
  x: number;
  y: number;
  percent: number;
}

/** A core whose utilisation is unknown, named as an example. */
export interface UnknownExample {
  x: number;
  y: number;
  percent: null;
  why: UnknownWhy;
  /** The first selected operation it is unknown in, and in how many. */
  perf_id: number;
  operations: number;
}

/** One utilisation class: how many cores, and the first few. */
export interface CoreClass {
  cores: number;
  examples: ExampleCore[];
}

/** The four measured classes by name, and the cores the log cannot tell. */
export type CoreClasses =
  & Record<"idle" | "near_zero" | "active" | "saturated", CoreClass>
  & { unknown: { cores: number; examples: UnknownExample[] } };

/** One 5 % bin of the histogram. */
export interface HistogramBin {
  from: number;
  to: number;
  cores: number;
}

/** The chip's grid in NoC coordinates: a cell per core, utilisation % or null. */
export interface UtilisationGrid {
  x_from: number;
  x_to: number;
  y_from: number;
  y_to: number;
  rows: (number | "unknown" | null)[][];
}

/** The worker core counts the CSV and the log give. */
export interface WorkerCores {
  available_worker_core_count: number | null;
  log_max_compute_cores: number | null;
}

/** The answer of `core_utilisation`. */
export interface CoreUtilisationAnswer extends Timed<"interval"> {
  handle: string;
  device: number;
  clock_mhz: number;
  selection: string;
  operations: number;
  interval_is: string;
  cores_in_log: number;
  left_out_of_cores_in_log: { dispatch_cores: number; ethernet_cores: number };
  worker_cores: WorkerCores;
  mean_utilisation_percent: number | null;
  /** The cores the mean is over: those in the log whose busy time is known. */
  mean_utilisation_over: { cores: number; unknown_left_out: number };
  classes: CoreClasses;
  histogram: HistogramBin[];
  grid: UtilisationGrid | { withheld: string };
  projection: Projection;
}

/** The selected operations placed on the device's clock. */
interface Selected {
  what: string;
  placed: OpInstance[];
  /** Whether perf_id or op_code chose them (else the whole window). */
  byOps: boolean;
}

/** What the answer's figures are computed from. */
interface Figures {
  interval: number;
  recorded: DeviceCores;
  cores: Figure[];
}

/** The `core_utilisation` tool. */
export const coreUtilisation = reportTool({
  name: "core_utilisation",
  title: "Per-core utilisation",
  summary: "Which cores of one device did nothing, barely ran, or were saturated over an " +
    "operation, an op code or a window, on a NoC-coordinate grid.",
  description:
    "Which cores idled, barely ran or were saturated over an operation, op code or window, " +
    "on a NoC-coordinate grid.",
  input,
  reads: ["performance_csv", "device_log"],
  cannotAnswer: timelineUnavailable,
  async handler(args, ctx): Promise<CoreUtilisationAnswer> {
    const range = rangeOf(args);
    if (args.perf_id !== undefined && args.op_code !== undefined) {
      throw new Refusal("core_utilisation takes perf_id or op_code, not both");
    }
    const sel = await deviceSelection(ctx, range, args.device);
    const selected = selectPlaced(ctx, sel, args.perf_id, args.op_code);
    const figures = figuresOf(sel, selected);
    ctx.parts.caveat(ignoredRangeCaveat(sel.projection));
    ctx.parts.caveat(
      ...placementCaveats(sel),
      workerCountCaveat(sel, selected, figures),
      unknownCaveat(figures),
      unpairedStartCaveat(selected.placed),
    );
    const pick = args.perf_id !== undefined
      ? { perf_id: args.perf_id }
      : args.op_code !== undefined
      ? { op_code: args.op_code }
      : null;
    if (pick) {
      nextIf(ctx, {
        tool: "core_states",
        why: "inside the same operations' cores: time before, in and after the math kernel",
        arguments: { handle: args.handle, ...pick, device: sel.ops.device },
      });
    } else {
      nextIf(ctx, {
        tool: "device_timeline",
        why: "the window's busy time split into op intervals and the gaps between them",
        arguments: { handle: args.handle, ...viewArgsOf(args), device: sel.ops.device },
      });
    }
    ctx.parts.note("core_utilisation.busy");
    return answerOf(args.handle, sel, selected, figures);
  },
});

/** The operations `perfId` or `opCode` names (or all), those placed; refuses when none is. */
function selectPlaced(
  ctx: ReportContext,
  sel: DeviceSelection,
  perfId: number | string | undefined,
  opCode: string | undefined,
): Selected {
  const { ops, what } = selectOps(ctx, sel, perfId, opCode);
  const placed = ops.filter((o) => o.kernelStart !== null);
  if (placed.length === 0) {
    throw new Refusal(
      `core_utilisation: ${what} has no kernel zone in the device log on device ` +
        `${sel.ops.device}, so no interval can be placed`,
    );
  }
  return { what, placed, byOps: perfId !== undefined || opCode !== undefined };
}

/**
 * The selection's interval (the operations' intervals summed, or the device's busy time over
 * the window) and each recorded worker core's busy time and share of it.
 */
function figuresOf(sel: DeviceSelection, { placed, byOps }: Selected): Figures {
  const cov = coverage(opSpans(placed));
  const interval = byOps ? cov.intervalSum : cov.busy;
  const { busy, unknown } = busyByCore(placed, sel.windows, sel.log.lanes);
  const recorded = coresOf(sel.log.lanes, sel.ops.device);
  const cores = recorded.workers.map((c): Figure => {
    const u = unknown.get(c.core);
    if (u) {
      return {
        ...c,
        busy: null,
        percent: null,
        why: u.core.why,
        perfId: u.firstPerfId,
        ops: u.ops,
      };
    }
    const b = busy.get(c.core) ?? 0;
    return { ...c, busy: b, percent: (100 * b) / interval };
  });
  return { interval, recorded, cores };
}

/** The answer: the interval, the core counts, the mean, the classes, histogram and grid. */
function answerOf(
  handle: string,
  sel: DeviceSelection,
  { what, placed, byOps }: Selected,
  { interval, recorded, cores }: Figures,
): CoreUtilisationAnswer {
  let sum = 0;
  let known = 0;
  for (const f of cores) {
    if (f.busy === null) continue;
    sum += f.busy;
    known++;
  }
  return {
    handle,
    device: sel.ops.device,
    clock_mhz: sel.clockMhz,
    selection: what,
    operations: placed.length,
    ...timed("interval", interval, sel.clockMhz),
    interval_is: byOps ? "sum of the selected operations' intervals" : "device busy time",
    cores_in_log: cores.length,
    left_out_of_cores_in_log: {
      dispatch_cores: recorded.dispatch.length,
      ethernet_cores: recorded.ethernet.length,
    },
    worker_cores: workerCores(sel, placed),
    mean_utilisation_percent: known === 0 ? null : round3((100 * sum) / known / interval),
    mean_utilisation_over: { cores: known, unknown_left_out: cores.length - known },
    classes: classify(cores),
    histogram: histogram(cores),
    grid: grid(cores),
    projection: sel.projection,
  };
}

/** Why the mean is over fewer (or more) cores than the CSV's worker count, or null. */
function workerCountCaveat(
  sel: DeviceSelection,
  { placed }: Selected,
  { cores }: Figures,
): string | null {
  const counted = workerCountFor(sel, placed);
  return counted !== null && counted !== cores.length
    ? `The log recorded ${cores.length} cores on device ${sel.ops.device} while the ` +
      `performance CSV gives ${counted} available worker cores: a core that ran nothing ` +
      "for the whole capture writes no row, and harvested columns and the cores reserved " +
      "for dispatch have none to write; the mean is over the cores the log recorded."
    : null;
}

/** A core's busy time and share, or — unknown — why, where first and in how many operations. */
type Figure =
  & CoreAt
  & (
    | { busy: number; percent: number }
    | { busy: null; percent: null; why: UnknownWhy; perfId: number; ops: number }
  );

/** What the caveat says of cores whose busy time is unknown, or null. */
function unknownCaveat({ cores }: Figures): string | null {
  const unknown = cores.filter((f) => f.busy === null).length;
  if (unknown === 0) return null;
  return unknown === cores.length
    ? `Every one of the ${unknown} cores is unknown: a kernel zone of it did not pair, or its ` +
      "record had stopped, in a selected operation, so no utilisation is measured and the mean " +
      "is null — not 0 and not idle."
    : `${unknown} of the ${cores.length} cores ${unknown > 1 ? "are" : "is"} unknown ` +
      "(classes.unknown says why): their " +
      "busy time cannot be measured, so they are in no other class, the histogram or the mean.";
}

function classify(figures: readonly Figure[]): CoreClasses {
  const out: CoreClasses = {
    idle: { cores: 0, examples: [] },
    near_zero: { cores: 0, examples: [] },
    active: { cores: 0, examples: [] },
    saturated: { cores: 0, examples: [] },
    unknown: { cores: 0, examples: [] },
  };
  for (const f of figures) {
    if (f.busy === null) {
      out.unknown.cores++;
      if (out.unknown.examples.length < EXAMPLES) {
        out.unknown.examples.push({
          x: f.x,
          y: f.y,
          percent: null,
          why: f.why,
          perf_id: f.perfId,
          operations: f.ops,
        });
      }
      continue;
    }
    const cls = f.busy === 0
      ? "idle"
      : f.percent < NEAR_ZERO_PERCENT
      ? "near_zero"
      : f.percent < SATURATED_PERCENT
      ? "active"
      : "saturated";
    const c = out[cls];
    c.cores++;
    if (c.examples.length < EXAMPLES) {
      c.examples.push({ x: f.x, y: f.y, percent: sig3(f.percent)! });
    }
  }
  return out;
}

function histogram(figures: readonly Figure[]): HistogramBin[] {
  const bins = Array.from({ length: 20 }, (_, i) => ({ from: 5 * i, to: 5 * i + 5, cores: 0 }));
  for (const f of figures) {
    if (f.busy === null || f.busy === 0 || f.percent < NEAR_ZERO_PERCENT) continue;
    bins[Math.min(19, Math.floor(f.percent / 5))].cores++;
  }
  return bins;
}

function grid(figures: readonly Figure[]): UtilisationGrid | { withheld: string } {
  const xs = figures.map((f) => f.x);
  const ys = figures.map((f) => f.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if ((x1 - x0 + 1) * (y1 - y0 + 1) > MAX_GRID_CELLS) {
    return {
      withheld: `the recorded cores span NoC x ${x0}–${x1} and y ${y0}–${y1}, more than ` +
        `${MAX_GRID_CELLS} cells: not a chip's grid`,
    };
  }
  const rows: (number | "unknown" | null)[][] = [];
  for (let y = y0; y <= y1; y++) rows.push(new Array(x1 - x0 + 1).fill(null));
  for (const f of figures) {
    rows[f.y - y0][f.x - x0] = f.percent === null ? "unknown" : sig3(f.percent);
  }
  return { x_from: x0, x_to: x1, y_from: y0, y_to: y1, rows };
}

/** AVAILABLE WORKER CORE COUNT of the selected rows when they agree, else null. */
function workerCountFor(sel: DeviceSelection, ops: readonly OpInstance[]): number | null {
  const col = sel.table.header.findIndex((h) => h.trim() === "AVAILABLE WORKER CORE COUNT");
  if (col < 0) return null;
  const seen = new Set(ops.map((o) => Number(cellOf(sel.table, rowIndexOf(o.perfId), col).trim())));
  if (seen.size !== 1) return null;
  const [n] = seen;
  return Number.isInteger(n) && n > 0 ? n : null;
}

function workerCores(sel: DeviceSelection, ops: readonly OpInstance[]): WorkerCores {
  const max = Number(sel.log.capture["Max Compute Cores"]);
  return {
    available_worker_core_count: workerCountFor(sel, ops),
    log_max_compute_cores: Number.isInteger(max) && max > 0 ? max : null,
  };
}
