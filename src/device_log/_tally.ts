/**
 * Internal: the tally of one slice of the device log — a run of whole lines, the whole data
 * part or a share of it read on another core. Per zone and RISC it counts rows, paired
 * durations and what was left out; starts and ends pair per lane — `(slot, x, y, RISC)` — on
 * the same zone and run host ID, innermost first, across any read-buffer boundary.
 *
 * A slice cannot know what came before it, so an end that finds no start here is kept, in
 * order, with the starts still open at the slice's end: the merge pairs them across slices
 * exactly as one pass over the whole file would (`_merge.ts`).
 *
 * @module
 */
import type { ByteInterner } from "./_intern.ts";
import { type Lane, Lanes, type SliceStat } from "./_lanes.ts";

export type { SliceStat } from "./_lanes.ts";
import { BAD_NUMBER, BAD_RANGE, PHASE_END, PHASE_START, type RowSink } from "./_fields.ts";
import { LOW_BASE } from "./cycles.ts";
import { MAX_OPEN_PER_LANE } from "./summary.ts";

/** Receives every kernel row, for core_spread: +1 for a start, −1 for an end, 0 otherwise. */
export interface KernelSink {
  kernel(lane: Lane, run: number, hi: number, lo: number, delta: number): void;
}

/** Rows left out, with the slice-local line of the first. */
export interface SliceLeftOut {
  count: number;
  kernel: number;
  short: number;
  notNumber: number;
  /** Rows whose cycle count is 2⁶⁴ or more. */
  outOfRange: number;
  firstLine: number;
}

/** Counts the rows the scanner hands over. */
export class ZoneTally implements RowSink {
  readonly lanes = new Lanes();
  /** Stats by zone, then RISC; `order` keeps first-seen order. */
  #stats: (SliceStat | undefined)[][] = [];
  readonly order: SliceStat[] = [];
  #isKernel: boolean[] = [];
  readonly #paired: boolean;
  readonly #zones: ByteInterner;
  readonly #kernels: KernelSink | null;
  badRows: SliceLeftOut = {
    count: 0,
    kernel: 0,
    short: 0,
    notNumber: 0,
    outOfRange: 0,
    firstLine: 0,
  };
  unnamedRows = 0;

  constructor(paired: boolean, zones: ByteInterner, kernels: KernelSink | null) {
    this.#paired = paired;
    this.#zones = zones;
    this.#kernels = kernels;
  }

  row(
    slot: number,
    x: number,
    y: number,
    risc: number,
    zone: number,
    phase: number,
    run: number,
    hi: number,
    lo: number,
  ): void {
    const lane = this.lanes.get(slot, x, y, risc);
    let stat = lane.stats[zone];
    if (stat === undefined) {
      stat = lane.stats[zone] = this.#stat(zone, risc);
      lane.zonesSeen.push(zone);
    }
    if (this.#kernels !== null && this.#kernelZone(zone)) {
      this.#kernels.kernel(
        lane,
        run,
        hi,
        lo,
        phase === PHASE_START ? 1 : phase === PHASE_END ? -1 : 0,
      );
    }
    if (!this.#paired) {
      stat.occurrences++;
      return;
    }
    if (phase === PHASE_START) {
      const n = lane.openCount;
      if (n >= MAX_OPEN_PER_LANE) {
        stat.dropped++;
        return;
      }
      const open = lane.open;
      const k = 4 * n;
      open[k] = zone;
      open[k + 1] = run;
      open[k + 2] = hi;
      open[k + 3] = lo;
      lane.openCount = n + 1;
    } else if (phase === PHASE_END) {
      const open = lane.open;
      const n = lane.openCount;
      let i = n - 1;
      while (i >= 0 && (open[4 * i] !== zone || open[4 * i + 1] !== run)) i--;
      if (i < 0) {
        // No start in this slice: kept for the merge, which looks in the slices before.
        lane.endZone.push(zone);
        lane.endRun.push(run);
        lane.endHi.push(hi);
        lane.endLo.push(lo);
        return;
      }
      const k = 4 * i;
      const d = (hi - open[k + 2]) * LOW_BASE + (lo - open[k + 3]);
      // Not the innermost: the ones inside it close up over it.
      if (i !== n - 1) open.copyWithin(k, k + 4, 4 * n);
      lane.openCount = n - 1;
      if (d < 0) stat.backwards++;
      else {
        stat.occurrences++;
        stat.total += d;
      }
    }
  }

  bad(line: number, zone: number, why: number): void {
    const b = this.badRows;
    if (b.count === 0) b.firstLine = line;
    b.count++;
    if (why === BAD_NUMBER) b.notNumber++;
    else if (why === BAD_RANGE) b.outOfRange++;
    else b.short++;
    if (zone >= 0 && this.#kernelZone(zone)) b.kernel++;
  }

  unnamed(): void {
    this.unnamedRows++;
  }

  #stat(zone: number, risc: number): SliceStat {
    let byRisc = this.#stats[zone];
    if (byRisc === undefined) this.#stats[zone] = byRisc = [];
    let s = byRisc[risc];
    if (s === undefined) {
      // `total` starts as -0, a double: a sum of cycles passes 2³¹ early in a large log, and a
      // field first held as a small integer would then throw away the compiled scan loop this
      // is inlined into (an overflow deoptimisation) at a random point of the first read. The
      // merge adds it to a +0, so no -0 reaches an answer.
      s = { zone, risc, occurrences: 0, total: -0, backwards: 0, dropped: 0 };
      byRisc[risc] = s;
      this.order.push(s);
    }
    return s;
  }

  #kernelZone(zone: number): boolean {
    let k = this.#isKernel[zone];
    if (k === undefined) this.#isKernel[zone] = k = this.#zones.names[zone].endsWith("-KERNEL");
    return k;
  }
}
