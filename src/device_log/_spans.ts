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
import type { ByteInterner } from "./_intern.ts";
import { groupKey, type Lane } from "./_lanes.ts";
import type { KernelSink } from "./_tally.ts";
import { LOW_BASE } from "./cycles.ts";
import type { WindowTable } from "./_windows.ts";
import { coalesce, type EntryBlock, EntryStore, NARROW_MAX } from "./_entries.ts";
import { pause, WorkClock } from "../kit/work_clock.ts";
import type { CoreSpanFigures, KernelWindows, OperationSpans, RowSpans } from "./summary.ts";
import { coreFigures } from "./_core_figures.ts";
import { recordGaps } from "./_record_gaps.ts";
import { coresByNumber } from "./unknown_cores.ts";

export { SLOWEST_CORES } from "./_core_figures.ts";

interface Group {
  /** Its number in the window table. */
  id: number;
  /** The PCIe slot of its rows. */
  slot: number;
  /** Windows with firmware cycles, by start. */
  windows: Int32Array;
  /** The window every kernel row of the group falls in, for rows without firmware cycles. */
  pool: number;
  kernelRows: number;
}

/** What one slice placed, for the merge. */
export interface SpanSlice {
  /** The slice's narrow entries (bounded windows), lanes by the slice's numbers. */
  blocks: EntryBlock[];
  /** Its wide entries (pools, long windows); pool offsets from the slice's bases. */
  wideBlocks: EntryBlock[];
  /** The base each pool window's offsets are from (its first kernel row in the slice). */
  pools: { win: number; hi: number; lo: number }[];
  groupKeys: (number | string)[];
  groupKernelRows: number[];
  kernelRowsWithoutRow: number;
}

/** Places the log's kernel rows in the performance rows' windows. */
export class SpanRecorder implements KernelSink {
  kernelRowsWithoutRow = 0;
  readonly #table: WindowTable;
  #groups = new Map<number | string, Group>();
  #byNumber: Group[] = [];
  /** Window starts: a pool's is set by the first kernel row that falls in it. */
  #baseHi: Float64Array;
  #baseLo: Float64Array;
  #endHi: Float64Array;
  #endLo: Float64Array;
  /** Per window: 1 once its start is known (a bounded window's always is). */
  #based: Uint8Array;
  #bounded: Uint8Array;
  /** Per window: 1 when its offsets need doubles (a pool, or longer than NARROW_MAX). */
  #wideWin: Uint8Array;
  #narrow = new EntryStore(false);
  #wide = new EntryStore(true);

  /** A recorder over `table`'s windows (its start arrays are copied: pools set theirs). */
  constructor(table: WindowTable) {
    this.#table = table;
    this.#baseHi = table.baseHi.slice();
    this.#baseLo = table.baseLo.slice();
    this.#endHi = table.endHi;
    this.#endLo = table.endLo;
    this.#bounded = table.bounded;
    this.#based = table.bounded.slice();
    this.#wideWin = new Uint8Array(table.bounded.length);
    for (let w = 0; w < this.#wideWin.length; w++) {
      const length = (table.endHi[w] - table.baseHi[w]) * LOW_BASE +
        (table.endLo[w] - table.baseLo[w]);
      if (table.bounded[w] === 0 || length > NARROW_MAX) this.#wideWin[w] = 1;
    }
    table.groupKeys.forEach((key, g) => {
      const group: Group = {
        id: g,
        slot: table.groupSlot[g],
        windows: table.groupWindows.subarray(table.groupStarts[g], table.groupStarts[g + 1]),
        pool: table.groupPool[g],
        kernelRows: 0,
      };
      this.#groups.set(key, group);
      this.#byNumber.push(group);
    });
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
        this.#storeOf(w).touch(lane.spEntry, this.#off(w, hi, lo), delta);
      } else {
        const found = this.#find(g, hi, lo);
        if (found >= 0) {
          lane.spWin = found;
          lane.spEntry = this.#storeOf(found).add(found, lane.id, this.#off(found, hi, lo), delta);
        }
      }
    }
    const p = g.pool;
    if (p >= 0) {
      if (this.#based[p] === 0) {
        this.#baseHi[p] = hi;
        this.#baseLo[p] = lo;
        this.#based[p] = 1;
      }
      const off = this.#off(p, hi, lo);
      if (lane.spPoolEntry < 0) lane.spPoolEntry = this.#wide.add(p, lane.id, off, delta);
      else this.#wide.touch(lane.spPoolEntry, off, delta);
    }
  }

  /** What this slice placed, as plain arrays, for the merge (lanes by their slice number). */
  exportSlice(): SpanSlice {
    const out: SpanSlice = {
      blocks: this.#narrow.blocks,
      wideBlocks: this.#wide.blocks,
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
      if (this.#based[p.win] === 0) {
        this.#baseHi[p.win] = p.hi;
        this.#baseLo[p.win] = p.lo;
        this.#based[p.win] = 1;
      }
      shift.set(p.win, (p.hi - this.#baseHi[p.win]) * LOW_BASE + (p.lo - this.#baseLo[p.win]));
    }
    // The blocks are the merge's now: renumber their lanes and rebase pool offsets in place
    // (pools are wide, so narrow blocks only renumber).
    for (const b of slice.blocks) {
      for (let j = 0; j < b.n; j++) b.lane[j] = laneMap[b.lane[j]];
    }
    for (const b of slice.wideBlocks) {
      for (let j = 0; j < b.n; j++) {
        b.lane[j] = laneMap[b.lane[j]];
        const d = shift.size === 0 ? 0 : shift.get(b.win[j]) ?? 0;
        if (d !== 0) {
          b.first[j] += d;
          b.last[j] += d;
        }
      }
    }
    this.#narrow.adopt(slice.blocks);
    this.#wide.adopt(slice.wideBlocks);
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
    const t = this.#table;
    const byRow = new Map<number, RowSpans>();
    const groupHas = new Uint8Array(this.#byNumber.length);
    const groupRows = new Int32Array(this.#byNumber.length);
    for (let index = 0; index < t.rowCount; index++) {
      const win = t.rowWindow[index];
      if (win < 0) continue;
      groupRows[t.rowGroup[index]]++;
      if (this.#bounded[win] === 1 && hasRecords(win)) groupHas[t.rowGroup[index]] = 1;
    }
    const clock = new WorkClock();
    for (let index = 0; index < t.rowCount; index++) {
      const win = t.rowWindow[index];
      if (win < 0) continue;
      if ((index & 1023) === 0) await clock.tick();
      const group = this.#byNumber[t.rowGroup[index]];
      const key = t.groupKeys[group.id];
      const [slot, run] = typeof key === "number"
        ? [Math.floor(key / 2 ** 32), key % 2 ** 32]
        : key.split(":").map(Number);
      const spans = {
        hasWindow: this.#bounded[win] === 1,
        groupRows: groupRows[group.id],
        groupKernelRows: group.kernelRows,
        groupHasFigures: groupHas[group.id] === 1,
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
    // Narrow then wide: a window's entries are all in one store, so each window keeps the
    // order its entries were recorded in.
    const blocks = [...this.#narrow.blocks, ...this.#wide.blocks];
    const windows = this.#bounded.length;
    const starts = new Int32Array(windows + 1);
    let n = 0;
    for (const b of blocks) {
      for (let j = 0; j < b.n; j++) starts[b.win[j] + 1]++;
      n += b.n;
    }
    for (let w = 0; w < windows; w++) starts[w + 1] += starts[w];
    const lane = laneCount <= 65536 ? new Uint16Array(n) : new Int32Array(n);
    const wide = this.#wide.count > 0;
    const first = wide ? new Float64Array(n) : new Uint32Array(n);
    const last = wide ? new Float64Array(n) : new Uint32Array(n);
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
    this.#narrow = new EntryStore(false);
    this.#wide = new EntryStore(true);
    const kept = coalesce(starts, lane, first, last, balance, laneCount);
    const t = this.#table;
    const rowWindow = t.rowWindow.slice();
    const slot = new Int32Array(windows).fill(-1);
    for (let index = 0; index < t.rowCount; index++) {
      if (t.rowWindow[index] >= 0) slot[t.rowWindow[index]] = t.groupSlot[t.rowGroup[index]];
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
      bounded: this.#bounded.slice(),
      baseHi: this.#baseHi.slice(),
      baseLo: this.#baseLo.slice(),
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

  #storeOf(w: number): EntryStore {
    return this.#wideWin[w] === 1 ? this.#wide : this.#narrow;
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
