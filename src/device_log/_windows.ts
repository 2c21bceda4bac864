/**
 * Internal: the performance CSV's firmware windows as core_spread's read places kernel rows in
 * them, worked out once per read from the CSV and handed to every slice as plain typed arrays
 * (copied to a worker in one structured clone, no string per cell). Every CSV row with a call
 * count and a device belongs to the group of that (device, call count); a row with DEVICE FW
 * START and END CYCLE owns a window on its device (rows with identical windows share one), a
 * row without them falls in its group's pool, which takes every kernel row of the group.
 *
 * @module
 */
import { cellOf, type CsvTable, rowCountOf } from "../perf_report/mod.ts";
import { groupKey } from "./_lanes.ts";
import { LOW_BASE, parseCycles } from "./cycles.ts";

/** The windows of a CSV, by number; groups by number; rows to both. */
export interface WindowTable {
  rowCount: number;
  /** Per window: its start (a pool's is set by its first kernel row) and end cycle. */
  baseHi: Float64Array;
  baseLo: Float64Array;
  endHi: Float64Array;
  endLo: Float64Array;
  /** Per window: 1 when it has firmware cycles, 0 for a group's pool. */
  bounded: Uint8Array;
  /** Per group: its key (`groupKey(slot, run)`), slot and pool window (−1: none). */
  groupKeys: (number | string)[];
  groupSlot: Int32Array;
  groupPool: Int32Array;
  /** Group `g`'s bounded windows, by start: `groupWindows[groupStarts[g] … groupStarts[g + 1])`. */
  groupStarts: Int32Array;
  groupWindows: Int32Array;
  /** Per CSV row: its window and group, or −1 (a row without a call count or device). */
  rowWindow: Int32Array;
  rowGroup: Int32Array;
}

/** The windows of `table`. */
export function windowTable(table: CsvTable): WindowTable {
  const rowCount = rowCountOf(table);
  const col = (name: string) => table.header.findIndex((h) => h.trim() === name);
  const [gcc, dev, fwStart, fwEnd] = [
    "GLOBAL CALL COUNT",
    "DEVICE ID",
    "DEVICE FW START CYCLE",
    "DEVICE FW END CYCLE",
  ].map(col);
  const baseHi: number[] = [];
  const baseLo: number[] = [];
  const endHi: number[] = [];
  const endLo: number[] = [];
  const bounded: number[] = [];
  const window = (start: { hi: number; lo: number } | null, end: typeof start) => {
    baseHi.push(start?.hi ?? 0);
    baseLo.push(start?.lo ?? 0);
    endHi.push(end?.hi ?? 0);
    endLo.push(end?.lo ?? 0);
    bounded.push(start === null ? 0 : 1);
    return bounded.length - 1;
  };
  const groupOf = new Map<number | string, number>();
  const groupKeys: (number | string)[] = [];
  const groupSlot: number[] = [];
  const groupPool: number[] = [];
  const groupWins: number[][] = [];
  const rowWindow = new Int32Array(rowCount).fill(-1);
  const rowGroup = new Int32Array(rowCount).fill(-1);
  // Rows with the same group and window share it: keyed by group, then the window's cycles.
  const shared = new Map<string, number>();
  if (gcc >= 0 && dev >= 0) {
    for (let index = 0; index < rowCount; index++) {
      const run = wholeNumber(cellOf(table, index, gcc));
      const slot = wholeNumber(cellOf(table, index, dev));
      if (run === null || slot === null) continue;
      const key = groupKey(slot, run);
      let g = groupOf.get(key);
      if (g === undefined) {
        groupOf.set(key, g = groupKeys.length);
        groupKeys.push(key);
        groupSlot.push(slot);
        groupPool.push(-1);
        groupWins.push([]);
      }
      const startText = fwStart < 0 ? "" : cellOf(table, index, fwStart);
      const endText = fwEnd < 0 ? "" : cellOf(table, index, fwEnd);
      const start = startText === "" ? null : parseCycles(startText);
      const end = endText === "" ? null : parseCycles(endText);
      let win: number;
      if (start && end && (end.hi - start.hi) * LOW_BASE + (end.lo - start.lo) >= 0) {
        const id = `${g}|${start.hi}|${start.lo}|${end.hi}|${end.lo}`;
        const known = shared.get(id);
        if (known !== undefined) win = known;
        else {
          win = window(start, end);
          shared.set(id, win);
          groupWins[g].push(win);
        }
      } else {
        if (groupPool[g] < 0) groupPool[g] = window(null, null);
        win = groupPool[g];
      }
      rowWindow[index] = win;
      rowGroup[index] = g;
    }
  }
  const groupStarts = new Int32Array(groupKeys.length + 1);
  const groupWindows = new Int32Array(groupWins.reduce((n, w) => n + w.length, 0));
  let at = 0;
  groupWins.forEach((wins, g) => {
    wins.sort((a, b) => (baseHi[a] - baseHi[b]) * LOW_BASE + (baseLo[a] - baseLo[b]));
    groupStarts[g] = at;
    groupWindows.set(wins, at);
    at += wins.length;
  });
  groupStarts[groupKeys.length] = at;
  return {
    rowCount,
    baseHi: Float64Array.from(baseHi),
    baseLo: Float64Array.from(baseLo),
    endHi: Float64Array.from(endHi),
    endLo: Float64Array.from(endLo),
    bounded: Uint8Array.from(bounded),
    groupKeys,
    groupSlot: Int32Array.from(groupSlot),
    groupPool: Int32Array.from(groupPool),
    groupStarts,
    groupWindows,
    rowWindow,
    rowGroup,
  };
}

/** A whole-number cell (`1024`, `175104.0`) below 2⁵³, else null. */
function wholeNumber(text: string): number | null {
  const c = parseCycles(text);
  if (c === null) return null;
  const v = c.hi * LOW_BASE + c.lo;
  return Number.isSafeInteger(v) ? v : null;
}
