/**
 * Internal: lanes. A lane is one RISC of one core of one device — `(PCIe slot, core_x,
 * core_y, RISC)` — the unit the device log is written in order for, so zone starts and ends
 * pair within it and its zones count its core once.
 *
 * @module
 */

/** One zone on one RISC within a slice (names by number; see the slice's interners). */
export interface SliceStat {
  zone: number;
  risc: number;
  occurrences: number;
  total: number;
  backwards: number;
  dropped: number;
}

/** One RISC of one core; the open-zone stack and per-lane caches live here. */
export class Lane {
  /** Zones this lane has had any row of (so a core is counted once per zone and RISC). */
  zonesSeen: number[] = [];
  /**
   * The slice's stat of each zone on this lane's RISC, by zone number; undefined until the
   * lane's first row of that zone. One lookup per row both finds the stat and tells whether
   * the zone is new to the lane.
   */
  stats: (SliceStat | undefined)[] = [];
  /**
   * Open starts, innermost last, four numbers each — zone, run host ID and cycle count (hi,
   * lo) — in one array that only grows: a start is four stores and an end a count, not four
   * pushes and four pops. Entries past `openCount` are stale.
   */
  open: number[] = [];
  openCount = 0;
  /** Ends that found no start in their slice, in order: zone, run host ID, hi, lo. */
  endZone: number[] = [];
  endRun: number[] = [];
  endHi: number[] = [];
  endLo: number[] = [];
  /** core_spread caches: the run host ID and group of the last kernel row, its window and entry. */
  spRun = -1;
  spGroup: unknown = null;
  spWin = -1;
  spEntry = -1;
  spPoolEntry = -1;

  constructor(
    readonly id: number,
    /** The lane's core, numbered: one number per (slot, core_x, core_y). */
    readonly core: number,
    readonly slot: number,
    readonly x: number,
    readonly y: number,
    readonly risc: number,
  ) {}
}

/** Finds or makes the lane of a row; the last lane is kept so a run of rows costs no lookup. */
export class Lanes {
  readonly all: Lane[] = [];
  #byKey = new Map<number, Lane>();
  #byText = new Map<string, Lane>();
  #cores = new Map<string, number>();
  #last: Lane | null = null;

  get(slot: number, x: number, y: number, risc: number): Lane {
    const l = this.#last;
    if (l !== null && l.x === x && l.y === y && l.slot === slot && l.risc === risc) return l;
    let lane: Lane | undefined;
    if (x < 64 && y < 64 && risc < 64 && slot < 128) {
      // Small enough to stay a small integer, which a Map hashes fastest.
      const key = ((slot * 64 + x) * 64 + y) * 64 + risc;
      lane = this.#byKey.get(key);
      if (lane === undefined) this.#byKey.set(key, lane = this.#make(slot, x, y, risc));
    } else {
      const key = `${slot},${x},${y},${risc}`;
      lane = this.#byText.get(key);
      if (lane === undefined) this.#byText.set(key, lane = this.#make(slot, x, y, risc));
    }
    return (this.#last = lane);
  }

  #make(slot: number, x: number, y: number, risc: number): Lane {
    const coreKey = `${slot},${x},${y}`;
    let core = this.#cores.get(coreKey);
    if (core === undefined) this.#cores.set(coreKey, core = this.#cores.size);
    const lane = new Lane(this.all.length, core, slot, x, y, risc);
    this.all.push(lane);
    return lane;
  }
}

/** A key for a (PCIe slot, run host ID) pair: a number while both fit, else text. */
export function groupKey(slot: number, run: number): number | string {
  return slot < 2 ** 20 && run < 2 ** 32 ? slot * 2 ** 32 + run : `${slot}:${run}`;
}
