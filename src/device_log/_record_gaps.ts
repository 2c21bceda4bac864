/**
 * Internal: where a core's record went dark. A RISC that wrote a kernel start with no end in
 * one operation's window and nothing in the windows after it, until its next row (if any),
 * stopped recording there — its profiler buffer filled, or the log was cut — so in every
 * operation of its device in between, the core's kernel time is unknown, not idle. Only the
 * lanes with such a start are looked at, so a log that paired everything costs one pass.
 *
 * @module
 */
import { LOW_BASE } from "./cycles.ts";

/** The window records the gaps are found from (a part of KernelWindows). */
export interface GapInput {
  bounded: Uint8Array;
  baseHi: Float64Array;
  baseLo: Float64Array;
  slot: Int32Array;
  starts: Int32Array;
  lane: Uint16Array | Int32Array;
  balance: Int32Array;
}

/**
 * Per window, the cores whose record had stopped before it, as KernelWindows.darkStarts and
 * darkCores. `coreOf` gives a lane's core number.
 *
 * @example
 * ```ts
 * import { recordGaps } from "./_record_gaps.ts";
 * // Three windows on slot 0; lane 0 (core 5) starts a kernel in window 0 and is not seen
 * // again until window 2, so it is dark in window 1 only.
 * const g = recordGaps({
 *   bounded: new Uint8Array([1, 1, 1]), baseHi: new Float64Array(3),
 *   baseLo: new Float64Array([0, 100, 200]), slot: new Int32Array(3),
 *   starts: new Int32Array([0, 1, 1, 2]), lane: new Int32Array([0, 0]),
 *   balance: new Int32Array([1, 0]),
 * }, () => 5);
 * if ([...g.darkStarts].join() !== "0,0,1,1" || g.darkCores[0] !== 5) throw new Error();
 * ```
 */
export function recordGaps(
  w: GapInput,
  coreOf: (lane: number) => number,
): { darkStarts: Int32Array; darkCores: Int32Array } {
  const windows = w.starts.length - 1;
  const none = { darkStarts: new Int32Array(windows + 1), darkCores: new Int32Array(0) };
  // The lanes that wrote an unpaired start in a bounded window.
  const stopped = new Set<number>();
  for (let v = 0; v < windows; v++) {
    if (!w.bounded[v]) continue;
    for (let k = w.starts[v]; k < w.starts[v + 1]; k++) {
      if (w.balance[k] > 0) stopped.add(w.lane[k]);
    }
  }
  if (stopped.size === 0) return none;
  // Each such lane's bounded windows, with its balance in each.
  const seen = new Map<number, { win: number; bal: number }[]>();
  for (let v = 0; v < windows; v++) {
    if (!w.bounded[v]) continue;
    for (let k = w.starts[v]; k < w.starts[v + 1]; k++) {
      const lane = w.lane[k];
      if (!stopped.has(lane)) continue;
      let list = seen.get(lane);
      if (!list) seen.set(lane, list = []);
      list.push({ win: v, bal: w.balance[k] });
    }
  }
  // Each slot's bounded windows in start order, and each window's rank there.
  const order = new Map<number, number[]>();
  for (let v = 0; v < windows; v++) {
    if (!w.bounded[v]) continue;
    let list = order.get(w.slot[v]);
    if (!list) order.set(w.slot[v], list = []);
    list.push(v);
  }
  const before = (a: number, b: number) =>
    (w.baseHi[a] - w.baseHi[b]) * LOW_BASE + (w.baseLo[a] - w.baseLo[b]) || a - b;
  const rank = new Int32Array(windows);
  for (const list of order.values()) {
    list.sort(before);
    list.forEach((v, r) => (rank[v] = r));
  }
  // Per slot, at each rank: cores going dark (+1) and coming back (−1).
  const events = new Map<number, Map<number, [number, number][]>>();
  const at = (slot: number, r: number, core: number, d: number) => {
    let bySlot = events.get(slot);
    if (!bySlot) events.set(slot, bySlot = new Map());
    let list = bySlot.get(r);
    if (!list) bySlot.set(r, list = []);
    list.push([core, d]);
  };
  for (const [lane, list] of seen) {
    list.sort((a, b) => rank[a.win] - rank[b.win]);
    const core = coreOf(lane);
    for (let i = 0; i < list.length; i++) {
      if (list[i].bal <= 0) continue;
      const slot = w.slot[list[i].win];
      const from = rank[list[i].win] + 1;
      const to = i + 1 < list.length ? rank[list[i + 1].win] : Infinity;
      if (from >= to) continue;
      at(slot, from, core, 1);
      if (to !== Infinity) at(slot, to, core, -1);
    }
  }
  const perWindow: (number[] | undefined)[] = new Array(windows);
  let total = 0;
  for (const [slot, bySlot] of events) {
    const list = order.get(slot)!;
    const dark = new Map<number, number>();
    for (let r = 0; r < list.length; r++) {
      for (const [core, d] of bySlot.get(r) ?? []) {
        const n = (dark.get(core) ?? 0) + d;
        if (n > 0) dark.set(core, n);
        else dark.delete(core);
      }
      if (dark.size > 0) {
        perWindow[list[r]] = [...dark.keys()].sort((a, b) => a - b);
        total += dark.size;
      }
    }
  }
  const darkStarts = new Int32Array(windows + 1);
  const darkCores = new Int32Array(total);
  let n = 0;
  for (let v = 0; v < windows; v++) {
    darkStarts[v] = n;
    for (const c of perWindow[v] ?? []) darkCores[n++] = c;
  }
  darkStarts[windows] = n;
  return { darkStarts, darkCores };
}
