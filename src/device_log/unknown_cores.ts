/**
 * The cores whose kernel time in one operation the device log cannot tell: a kernel zone of
 * theirs inside the operation's window that did not pair (`unpaired`), or a record that had
 * stopped mid-kernel in an earlier operation (`record_stopped`: a filled profiler buffer, or a
 * log cut short). Their spans and busy time are unknown — never 0, never idle.
 *
 * @module
 */
import type { KernelWindows, UnknownCore, UnknownWhy } from "./summary.ts";

/** What a lane must say of itself: its core, by number and NoC coordinates. */
export interface CoreOfLane {
  core: number;
  x: number;
  y: number;
}

/**
 * The cores of window `w` whose kernel time is unknown, by core number: unpaired ones first,
 * then those whose record had stopped (a core both ways counts as unpaired).
 *
 * @example
 * ```ts
 * import { unknownCoresIn } from "./unknown_cores.ts";
 * // Window 0: core 7's lane started a kernel that never ended; core 8's paired.
 * const w = {
 *   starts: new Int32Array([0, 2]), lane: new Int32Array([0, 1]),
 *   balance: new Int32Array([1, 0]),
 *   darkStarts: new Int32Array([0, 0]), darkCores: new Int32Array(0),
 * } as never;
 * const lanes = [{ core: 7, x: 1, y: 1 }, { core: 8, x: 2, y: 1 }];
 * const unknown = unknownCoresIn(0, w, lanes);
 * if (unknown.get(7)?.why !== "unpaired" || unknown.has(8)) throw new Error();
 * ```
 */
export function unknownCoresIn(
  w: number,
  windows: KernelWindows,
  lanes: readonly CoreOfLane[],
  coreAt?: ReadonlyMap<number, CoreOfLane>,
): Map<number, UnknownCore> {
  const out = new Map<number, UnknownCore>();
  const put = (c: CoreOfLane, why: UnknownWhy) => {
    if (!out.has(c.core)) out.set(c.core, { core: c.core, x: c.x, y: c.y, why });
  };
  for (let k = windows.starts[w]; k < windows.starts[w + 1]; k++) {
    if (windows.balance[k] !== 0) put(lanes[windows.lane[k]], "unpaired");
  }
  const a = windows.darkStarts[w];
  const b = windows.darkStarts[w + 1];
  if (a < b) {
    const byCore = coreAt ?? coresByNumber(lanes);
    for (let k = a; k < b; k++) {
      const c = byCore.get(windows.darkCores[k]);
      if (c) put(c, "record_stopped");
    }
  }
  return out;
}

/** Each core's coordinates, by core number. */
export function coresByNumber(lanes: readonly CoreOfLane[]): Map<number, CoreOfLane> {
  const m = new Map<number, CoreOfLane>();
  for (const l of lanes) if (!m.has(l.core)) m.set(l.core, l);
  return m;
}

/** Unknown cores in NoC order (y, then x), unpaired ones first. */
export function sortUnknown(cores: Iterable<UnknownCore>): UnknownCore[] {
  return [...cores].sort((a, b) =>
    (a.why === b.why ? 0 : a.why === "unpaired" ? -1 : 1) || a.y - b.y || a.x - b.x
  );
}

/** How many of `cores` are unknown for each reason. */
export function countWhy(cores: Iterable<UnknownCore>): Record<UnknownWhy, number> {
  const n = { unpaired: 0, record_stopped: 0 };
  for (const c of cores) n[c.why]++;
  return n;
}
