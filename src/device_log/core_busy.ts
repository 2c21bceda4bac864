/**
 * What each core did inside selected operation instances, from the per-(window, lane) kernel
 * records: a core's busy time is the union of its RISCs' kernel intervals (overlapping RISCs
 * counted once), clipped to each operation's interval; and, for the cores that ran a math
 * kernel, how the operation's interval divides into the five states of the users' method. A
 * core whose kernel time in an operation is unknown (unknown_cores.ts) adds nothing to either
 * and is returned apart. Pure: cycles in, cycles out.
 *
 * @module
 */
import type { OpInstance } from "./op_instances.ts";
import type { KernelWindows, LogLane, UnknownCore } from "./summary.ts";
import { coresByNumber, unknownCoresIn } from "./unknown_cores.ts";

/** A core of one device, by NoC coordinates. */
export interface CoreAt {
  core: number;
  x: number;
  y: number;
}

/** The cores the log recorded on one device, by y then x, and the ones left out of them. */
export interface DeviceCores {
  /** Tensix cores: any row, and neither dispatch nor ethernet. */
  workers: CoreAt[];
  /** Cores with a command-queue zone (they dispatch commands, not compute). */
  dispatch: CoreAt[];
  /** Cores whose every row is an ERISC's. */
  ethernet: CoreAt[];
}

/** The distinct cores the log recorded on `device`, told apart as DeviceCores says. */
export function coresOf(lanes: readonly LogLane[], device: number): DeviceCores {
  const by = new Map<number, CoreAt & { dispatch: boolean; erisc: boolean; other: boolean }>();
  for (const l of lanes) {
    if (l.slot !== device) continue;
    let c = by.get(l.core);
    if (!c) {
      by.set(
        l.core,
        c = { core: l.core, x: l.x, y: l.y, dispatch: false, erisc: false, other: false },
      );
    }
    if (l.dispatch) c.dispatch = true;
    if (l.risc === "ERISC") c.erisc = true;
    else c.other = true;
  }
  const sorted = [...by.values()].sort((a, b) => a.y - b.y || a.x - b.x);
  const at = (c: CoreAt) => ({ core: c.core, x: c.x, y: c.y });
  return {
    workers: sorted.filter((c) => !c.dispatch && c.other).map(at),
    dispatch: sorted.filter((c) => c.dispatch).map(at),
    ethernet: sorted.filter((c) => !c.dispatch && !c.other).map(at),
  };
}

/** Busy time per core over some operations, and the cores it is unknown for. */
export interface CoreBusy {
  /** Busy cycles per core number, summed over the operations where the core's are known. */
  busy: Map<number, number>;
  /** Cores unknown in at least one operation: why (in the first such), how many, which first. */
  unknown: Map<number, { core: UnknownCore; ops: number; firstPerfId: number }>;
}

/**
 * Each core's busy cycles summed over `ops` (keyed by core number): per operation, the union
 * of its lanes' [first, last] kernel intervals inside [kernel start, firmware end]; a core
 * whose kernel time in an operation is unknown is counted apart for that operation.
 *
 * @example
 * ```ts
 * import { busyByCore } from "./core_busy.ts";
 * // One window, one core with two RISCs whose kernels overlap by 5 cycles: 25 busy, not 30.
 * const w = {
 *   rowWindow: new Int32Array([0]), bounded: new Uint8Array([1]), slot: new Int32Array(1),
 *   baseHi: new Float64Array(1), baseLo: new Float64Array(1), length: new Float64Array([100]),
 *   starts: new Int32Array([0, 2]), lane: new Int32Array([0, 1]),
 *   first: new Float64Array([10, 20]), last: new Float64Array([25, 35]),
 *   balance: new Int32Array(2), darkStarts: new Int32Array(2), darkCores: new Int32Array(0),
 * };
 * const lanes = [0, 1].map((i) => ({ slot: 0, x: 1, y: 1, risc: String(i), core: 7, dispatch: false }));
 * const op = { window: 0, kernelStart: 10, fwStart: 0, fwEnd: 100 } as never;
 * if (busyByCore([op], w, lanes).busy.get(7) !== 25) throw new Error();
 * ```
 */
export function busyByCore(
  ops: readonly OpInstance[],
  windows: KernelWindows,
  lanes: readonly LogLane[],
): CoreBusy {
  const busy = new Map<number, number>();
  const unknown: CoreBusy["unknown"] = new Map();
  const coreAt = coresByNumber(lanes);
  for (const op of ops) {
    if (op.kernelStart === null) continue;
    const lo = op.kernelStart - op.fwStart;
    const hi = op.fwEnd - op.fwStart;
    const notKnown = unknownCoresIn(op.window, windows, lanes, coreAt);
    for (const [core, c] of notKnown) {
      const had = unknown.get(core);
      if (had) had.ops++;
      else unknown.set(core, { core: c, ops: 1, firstPerfId: op.perfId });
    }
    for (const [core, spans] of coreSpans(op.window, windows, lanes)) {
      if (notKnown.has(core)) continue;
      busy.set(core, (busy.get(core) ?? 0) + unionLength(spans, lo, hi));
    }
  }
  return { busy, unknown };
}

/** Per core of a window: its lanes' [first, last] pairs, flattened. */
function coreSpans(
  w: number,
  windows: KernelWindows,
  lanes: readonly LogLane[],
): Map<number, number[]> {
  const by = new Map<number, number[]>();
  for (let k = windows.starts[w]; k < windows.starts[w + 1]; k++) {
    const core = lanes[windows.lane[k]].core;
    const a = by.get(core);
    if (a) a.push(windows.first[k], windows.last[k]);
    else by.set(core, [windows.first[k], windows.last[k]]);
  }
  return by;
}

/** The length of the union of [a, b) pairs, each clipped to [lo, hi]. */
function unionLength(flat: number[], lo: number, hi: number): number {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const a = Math.max(flat[i], lo);
    const b = Math.min(flat[i + 1], hi);
    if (b > a) pairs.push([a, b]);
  }
  pairs.sort((p, q) => p[0] - q[0]);
  let total = 0;
  let curA = -Infinity;
  let curB = -Infinity;
  for (const [a, b] of pairs) {
    if (a > curB) {
      if (curB > curA) total += curB - curA;
      curA = a;
      curB = b;
    } else if (b > curB) curB = b;
  }
  if (curB > curA) total += curB - curA;
  return total;
}

/** The five states, in cycles, in the order they occur on a computing core. */
export interface CoreStates {
  /** Operation start (the first kernel start on any core) → this core's first kernel start. */
  not_started: number;
  /** This core's first kernel start → its math kernel's start. */
  before_math: number;
  /** The math kernel (TRISC_1's kernel zone). */
  math: number;
  /** Math kernel end → this core's last kernel end (the writer's write-back, BRISC). */
  after_math: number;
  /** This core's last kernel end → the operation's end (the last core's done). */
  waiting_for_others: number;
}

/** The math thread, whose kernel zone marks the compute phase. */
export const MATH_RISC = "TRISC_1";

/** Zero states, to sum into. */
export function noStates(): CoreStates {
  return { not_started: 0, before_math: 0, math: 0, after_math: 0, waiting_for_others: 0 };
}

/**
 * One operation instance's states summed over its computing cores (cores with a math
 * kernel), and how many there were; the five always add to cores × the op interval. Cores
 * whose kernel time in it is unknown are left out of both and returned apart.
 */
export function instanceStates(
  op: OpInstance,
  windows: KernelWindows,
  lanes: readonly LogLane[],
): { cores: number; states: CoreStates; unknown: UnknownCore[] } {
  const states = noStates();
  if (op.kernelStart === null) return { cores: 0, states, unknown: [] };
  const start = op.kernelStart - op.fwStart;
  const end = op.fwEnd - op.fwStart;
  const unknown = unknownCoresIn(op.window, windows, lanes);
  const per = new Map<number, { first: number; last: number; mFirst: number; mLast: number }>();
  for (let k = windows.starts[op.window]; k < windows.starts[op.window + 1]; k++) {
    const lane = lanes[windows.lane[k]];
    if (unknown.has(lane.core)) continue;
    const f = windows.first[k];
    const l = windows.last[k];
    let c = per.get(lane.core);
    if (!c) per.set(lane.core, c = { first: f, last: l, mFirst: NaN, mLast: NaN });
    else {
      c.first = Math.min(c.first, f);
      c.last = Math.max(c.last, l);
    }
    if (lane.risc === MATH_RISC) {
      c.mFirst = Number.isNaN(c.mFirst) ? f : Math.min(c.mFirst, f);
      c.mLast = Number.isNaN(c.mLast) ? l : Math.max(c.mLast, l);
    }
  }
  let cores = 0;
  for (const c of per.values()) {
    if (Number.isNaN(c.mFirst)) continue;
    cores++;
    const last = Math.min(Math.max(c.last, c.mLast), end);
    states.not_started += c.first - start;
    states.before_math += c.mFirst - c.first;
    states.math += c.mLast - c.mFirst;
    states.after_math += last - c.mLast;
    states.waiting_for_others += end - last;
  }
  return { cores, states, unknown: [...unknown.values()] };
}
