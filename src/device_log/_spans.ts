/**
 * Internal: core_spread's side of the one pass. Every performance CSV row with a call count
 * and a device owns a window — its DEVICE FW START to END CYCLE — on the device whose PCIe
 * slot is its DEVICE ID; each kernel row of the log lands in the window of its run host ID
 * and slot that contains its cycle, so trace replays that share a call count stay apart. A
 * row without firmware cycles takes every kernel row of its call count and device.
 *
 * Per (window, lane) only the first and last kernel cycle are kept, as offsets from the
 * window's start, with a count of kernel starts less ends (a zone that did not pair there
 * leaves it non-zero), in typed-array blocks: memory grows with the cores and RISCs that ran
 * each operation, never with the rows.
 *
 * @module
 */
import type { CsvTable } from "../perf_report/csv_table.ts";
import type { ByteInterner } from "./_intern.ts";
import { groupKey, type Lane } from "./_lanes.ts";
import type { KernelSink } from "./_tally.ts";
import { type Cycles, LOW_BASE, parseCycles } from "./cycles.ts";
import { coalesce, type EntryBlock, EntryStore } from "./_entries.ts";
import { pause, WorkClock } from "../kit/work_clock.ts";
import type { CoreSpanFigures, KernelWindows, OperationSpans, RowSpans } from "./summary.ts";
import { coreFigures } from "./_core_figures.ts";
import { recordGaps } from "./_record_gaps.ts";
import { coresByNumber } from "./unknown_cores.ts";

export { SLOWEST_CORES } from "./_core_figures.ts";

interface Group {
  /** The PCIe slot of its rows. */
  slot: number;
  /** Windows with firmware cycles, by start. */
  windows: number[];
  /** The window every kernel row of the group falls in, for rows without firmware cycles. */
  pool: number;
  rows: number[];
  kernelRows: number;
}

/** What one slice placed, for the merge. */
export interface SpanSlice {
  /** The slice's entries, lanes by the slice's numbers, pool offsets from the slice's bases. */
  blocks: EntryBlock[];
  /** The base each pool window's offsets are from (its first kernel row in the slice). */
  pools: { win: number; hi: number; lo: number }[];
  groupKeys: (number | string)[];
  groupKernelRows: number[];
  kernelRowsWithoutRow: number;
}

/** Places the log's kernel rows in the performance rows' windows. */
export class SpanRecorder implements KernelSink {
  kernelRowsWithoutRow = 0;
  #groups = new Map<number | string, Group>();
  #baseHi: number[] = [];
  #baseLo: number[] = [];
  #endHi: number[] = [];
  #endLo: number[] = [];
  #based: boolean[] = [];
  #bounded: boolean[] = [];
  /** Table rows whose window each is (rows with identical windows share one). */
  #rowWindow = new Map<number, { win: number; group: Group }>();
  #entries = new EntryStore();
  #rowCount: number;

  constructor(table: CsvTable) {
    this.#rowCount = table.rows.length;
    const col = (name: string) => table.header.findIndex((h) => h.trim() === name);
    const [gcc, dev, fwStart, fwEnd] = [
      "GLOBAL CALL COUNT",
      "DEVICE ID",
      "DEVICE FW START CYCLE",
      "DEVICE FW END CYCLE",
    ].map(col);
    if (gcc < 0 || dev < 0) return;
    const shared = new Map<string, number>();
    table.rows.forEach((cells, index) => {
      const run = wholeNumber(cells[gcc] ?? "");
      const slot = wholeNumber(cells[dev] ?? "");
      if (run === null || slot === null) return;
      const key = groupKey(slot, run);
      let group = this.#groups.get(key);
      if (!group) {
        this.#groups.set(key, group = { slot, windows: [], pool: -1, rows: [], kernelRows: 0 });
      }
      group.rows.push(index);
      const start = fwStart < 0 ? null : parseCycles(cells[fwStart] ?? "");
      const end = fwEnd < 0 ? null : parseCycles(cells[fwEnd] ?? "");
      let win: number;
      if (start && end && (end.hi - start.hi) * LOW_BASE + (end.lo - start.lo) >= 0) {
        const id = `${key}|${start.hi}|${start.lo}|${end.hi}|${end.lo}`;
        const known = shared.get(id);
        if (known !== undefined) win = known;
        else {
          win = this.#window(start, end);
          shared.set(id, win);
          group.windows.push(win);
        }
      } else {
        if (group.pool < 0) group.pool = this.#window(null, null);
        win = group.pool;
      }
      this.#rowWindow.set(index, { win, group });
    });
    for (const g of this.#groups.values()) {
      g.windows.sort((a, b) =>
        (this.#baseHi[a] - this.#baseHi[b]) * LOW_BASE + (this.#baseLo[a] - this.#baseLo[b])
      );
    }
  }

  kernel(lane: Lane, run: number, hi: number, lo: number, delta: number): void {
    let g: Group | null;
    if (lane.spRun === run) g = lane.spGroup as Group | null;
    else {
      g = this.#groups.get(groupKey(lane.slot, run)) ?? null;
      lane.spRun = run;
      lane.spGroup = g;
      lane.spWin = -1;
      lane.spEntry = -1;
      lane.spPoolEntry = -1;
    }
    if (g === null) {
      this.kernelRowsWithoutRow++;
      return;
    }
    g.kernelRows++;
    if (g.windows.length > 0) {
      const w = lane.spWin;
      if (w >= 0 && this.#inside(w, hi, lo)) {
        this.#entries.touch(lane.spEntry, this.#off(w, hi, lo), delta);
      } else {
        const found = this.#find(g, hi, lo);
        if (found >= 0) {
          lane.spWin = found;
          lane.spEntry = this.#entries.add(found, lane.id, this.#off(found, hi, lo), delta);
        }
      }
    }
    const p = g.pool;
    if (p >= 0) {
      if (!this.#based[p]) {
        this.#baseHi[p] = hi;
        this.#baseLo[p] = lo;
        this.#based[p] = true;
      }
      const off = this.#off(p, hi, lo);
      if (lane.spPoolEntry < 0) lane.spPoolEntry = this.#entries.add(p, lane.id, off, delta);
      else this.#entries.touch(lane.spPoolEntry, off, delta);
    }
  }

  /** What this slice placed, as plain arrays, for the merge (lanes by their slice number). */
  exportSlice(): SpanSlice {
    const out: SpanSlice = {
      blocks: this.#entries.blocks,
      pools: [],
      groupKeys: [],
      groupKernelRows: [],
      kernelRowsWithoutRow: this.kernelRowsWithoutRow,
    };
    for (let w = 0; w < this.#bounded.length; w++) {
      if (!this.#bounded[w] && this.#based[w]) {
        out.pools.push({ win: w, hi: this.#baseHi[w], lo: this.#baseLo[w] });
      }
    }
    for (const [key, g] of this.#groups) {
      if (g.kernelRows === 0) continue;
      out.groupKeys.push(key);
      out.groupKernelRows.push(g.kernelRows);
    }
    return out;
  }

  /**
   * Adds what another slice placed (built from the same CSV, so windows match); `laneMap`
   * turns its lane numbers into this recorder's.
   */
  absorb(slice: SpanSlice, laneMap: Int32Array): void {
    const shift = new Map<number, number>(); // pool window → offset from the slice's base to ours
    for (const p of slice.pools) {
      if (!this.#based[p.win]) {
        this.#baseHi[p.win] = p.hi;
        this.#baseLo[p.win] = p.lo;
        this.#based[p.win] = true;
      }
      shift.set(p.win, (p.hi - this.#baseHi[p.win]) * LOW_BASE + (p.lo - this.#baseLo[p.win]));
    }
    // The blocks are the merge's now: renumber their lanes and rebase pool offsets in place.
    for (const b of slice.blocks) {
      for (let j = 0; j < b.n; j++) {
        b.lane[j] = laneMap[b.lane[j]];
        const d = shift.size === 0 ? 0 : shift.get(b.win[j]) ?? 0;
        if (d !== 0) {
          b.first[j] += d;
          b.last[j] += d;
        }
      }
    }
    this.#entries.adopt(slice.blocks);
    slice.groupKeys.forEach((key, i) => {
      const g = this.#groups.get(key);
      if (g) g.kernelRows += slice.groupKernelRows[i];
    });
    this.kernelRowsWithoutRow += slice.kernelRowsWithoutRow;
  }

  /**
   * Every row's spans, once the pass is over. A row's figures are worked out when first asked
   * for, then kept: an answer names a few operations (core_spread) or one device's
   * (device_timeline), so the figures of the thousands of others would only cost time and
   * memory.
   */
  async finish(
    lanes: readonly Lane[],
    riscs: ByteInterner,
    unpaired: (slot: number, run: number) => { starts: number; ends: number },
  ): Promise<OperationSpans> {
    const windows = this.#sorted(lanes.length);
    await pause();
    const gaps = recordGaps(windows, (lane) => lanes[lane].core);
    windows.darkStarts = gaps.darkStarts;
    windows.darkCores = gaps.darkCores;
    const coreAt = coresByNumber(lanes);
    const made: (CoreSpanFigures | undefined)[] = [];
    const done = new Uint8Array(windows.starts.length - 1);
    const figuresOf = (w: number): CoreSpanFigures | null => {
      if (done[w] === 0) {
        made[w] = coreFigures(w, windows, lanes, riscs, coreAt);
        done[w] = 1;
      }
      return made[w] ?? null;
    };
    // A window has figures when it holds a record (coreFigures' own rule), known unworked.
    const hasRecords = (w: number) => windows.starts[w] < windows.starts[w + 1];
    const byRow = new Map<number, RowSpans>();
    const groupHas = new Map<Group, boolean>();
    for (const [, { win, group }] of this.#rowWindow) {
      if (this.#bounded[win] && hasRecords(win)) groupHas.set(group, true);
    }
    const keys = new Map<Group, number | string>();
    for (const [k, g] of this.#groups) keys.set(g, k);
    const clock = new WorkClock();
    let n = 0;
    for (const [index, { win, group }] of this.#rowWindow) {
      if ((++n & 1023) === 0) await clock.tick();
      const key = keys.get(group)!;
      const [slot, run] = typeof key === "number"
        ? [Math.floor(key / 2 ** 32), key % 2 ** 32]
        : key.split(":").map(Number);
      const spans = {
        hasWindow: this.#bounded[win],
        groupRows: group.rows.length,
        groupKernelRows: group.kernelRows,
        groupHasFigures: groupHas.get(group) ?? false,
        unpaired: unpaired(slot, run),
      } as RowSpans;
      Object.defineProperty(spans, "figures", { get: () => figuresOf(win), enumerable: true });
      byRow.set(index, spans);
    }
    return { byRow, kernelRowsWithoutRow: this.kernelRowsWithoutRow, windows };
  }

  /**
   * The entries sorted by window (a counting sort), one record per (window, lane) — a lane
   * can have several when a slice boundary or a return to an earlier window split it — with
   * each window's bounds and slot.
   */
  #sorted(laneCount: number): KernelWindows {
    const blocks = this.#entries.blocks;
    const windows = this.#bounded.length;
    const starts = new Int32Array(windows + 1);
    let n = 0;
    for (const b of blocks) {
      for (let j = 0; j < b.n; j++) starts[b.win[j] + 1]++;
      n += b.n;
    }
    for (let w = 0; w < windows; w++) starts[w + 1] += starts[w];
    const lane = new Int32Array(n);
    const first = new Float64Array(n);
    const last = new Float64Array(n);
    const balance = new Int32Array(n);
    const fill = starts.slice(0, windows);
    for (const b of blocks) {
      for (let j = 0; j < b.n; j++) {
        const k = fill[b.win[j]]++;
        lane[k] = b.lane[j];
        first[k] = b.first[j];
        last[k] = b.last[j];
        balance[k] = b.bal[j];
      }
    }
    // The sorted copy is the record from here on.
    this.#entries = new EntryStore();
    const kept = coalesce(starts, lane, first, last, balance, laneCount);
    const rowWindow = new Int32Array(this.#rowCount).fill(-1);
    const slot = new Int32Array(windows).fill(-1);
    for (const [index, { win, group }] of this.#rowWindow) {
      rowWindow[index] = win;
      slot[win] = group.slot;
    }
    const length = new Float64Array(windows);
    for (let w = 0; w < windows; w++) {
      if (this.#bounded[w]) {
        length[w] = (this.#endHi[w] - this.#baseHi[w]) * LOW_BASE +
          (this.#endLo[w] - this.#baseLo[w]);
      }
    }
    return {
      rowWindow,
      bounded: Uint8Array.from(this.#bounded, (b) => (b ? 1 : 0)),
      baseHi: Float64Array.from(this.#baseHi),
      baseLo: Float64Array.from(this.#baseLo),
      length,
      slot,
      starts,
      // Views, not copies: a copy would hold every record twice for a moment.
      lane: lane.subarray(0, kept),
      first: first.subarray(0, kept),
      last: last.subarray(0, kept),
      balance: balance.subarray(0, kept),
      darkStarts: new Int32Array(windows + 1),
      darkCores: new Int32Array(0),
    };
  }

  #window(start: Cycles | null, end: Cycles | null): number {
    this.#baseHi.push(start?.hi ?? 0);
    this.#baseLo.push(start?.lo ?? 0);
    this.#endHi.push(end?.hi ?? 0);
    this.#endLo.push(end?.lo ?? 0);
    this.#based.push(start !== null);
    this.#bounded.push(start !== null);
    return this.#bounded.length - 1;
  }

  #off(w: number, hi: number, lo: number): number {
    return (hi - this.#baseHi[w]) * LOW_BASE + (lo - this.#baseLo[w]);
  }

  #inside(w: number, hi: number, lo: number): boolean {
    return this.#off(w, hi, lo) >= 0 &&
      (this.#endHi[w] - hi) * LOW_BASE + (this.#endLo[w] - lo) >= 0;
  }

  /** The window of `g` holding the cycle, or −1: the latest one starting at or before it. */
  #find(g: Group, hi: number, lo: number): number {
    const ws = g.windows;
    let a = 0;
    let b = ws.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.#off(ws[m], hi, lo) >= 0) a = m + 1;
      else b = m;
    }
    // Windows should not overlap; if they do, an earlier one may still hold the cycle.
    for (let k = a - 1; k >= 0 && k >= a - 4; k--) if (this.#inside(ws[k], hi, lo)) return ws[k];
    return -1;
  }
}

/** A whole-number cell (`1024`, `175104.0`) below 2⁵³, else null. */
function wholeNumber(text: string): number | null {
  const c = parseCycles(text);
  if (c === null) return null;
  const v = c.hi * LOW_BASE + c.lo;
  return Number.isSafeInteger(v) ? v : null;
}
