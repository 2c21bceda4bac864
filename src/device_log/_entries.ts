/**
 * Internal: core_spread's per-(window, lane) records — the first and last kernel cycle of one
 * RISC of one core inside one performance row's window, as offsets from the window's start,
 * and its kernel zones' starts less their ends (0 when every one paired there) — kept in
 * blocks of typed arrays. Blocks move between threads whole (transferred, not copied)
 * and are adopted by the merge as they are.
 *
 * A read holds one record per operation instance and lane that ran it (millions on a large
 * log), so offsets are stored in 32 bits wherever they fit: a bounded window's offsets lie
 * between 0 and its length, so one shorter than 2³² cycles (over four seconds at 1 GHz) is
 * recorded narrow; a pool's (offsets from its first kernel row, either side) and a longer
 * window's go to a wide store of doubles.
 *
 * @module
 */

/** Entries per block; an entry's number is `block << 16 | index`. */
export const BLOCK = 1 << 16;

/** The longest window (in cycles) whose offsets a narrow store holds. */
export const NARROW_MAX = 2 ** 32 - 1;

/** One block: `n` entries of window, lane, first and last offset, and start−end balance. */
export interface EntryBlock {
  win: Int32Array;
  lane: Int32Array;
  first: Uint32Array | Float64Array;
  last: Uint32Array | Float64Array;
  /** Kernel zone starts less ends: non-zero when one of them did not pair inside the window. */
  bal: Int32Array;
  n: number;
}

/** The records of one read, narrow (offsets in 0 … NARROW_MAX) or wide (any double). */
export class EntryStore {
  readonly blocks: EntryBlock[] = [];
  readonly wide: boolean;
  #open: EntryBlock | null = null;

  constructor(wide: boolean) {
    this.wide = wide;
  }

  /**
   * Records a first kernel row of a lane in a window (`delta` +1 for a start, −1 for an end,
   * 0 for a point); returns the entry's number.
   */
  add(win: number, lane: number, off: number, delta: number): number {
    let b = this.#open;
    if (b === null || b.n === BLOCK) {
      b = {
        win: new Int32Array(BLOCK),
        lane: new Int32Array(BLOCK),
        first: this.wide ? new Float64Array(BLOCK) : new Uint32Array(BLOCK),
        last: this.wide ? new Float64Array(BLOCK) : new Uint32Array(BLOCK),
        bal: new Int32Array(BLOCK),
        n: 0,
      };
      this.blocks.push(b);
      this.#open = b;
    }
    const j = b.n++;
    b.win[j] = win;
    b.lane[j] = lane;
    b.first[j] = off;
    b.last[j] = off;
    b.bal[j] = delta;
    return ((this.blocks.length - 1) << 16) | j;
  }

  /** Widens an entry to a further kernel row, counting its start or end. */
  touch(entry: number, off: number, delta: number): void {
    const b = this.blocks[entry >>> 16];
    const j = entry & (BLOCK - 1);
    b.bal[j] += delta;
    if (off < b.first[j]) b.first[j] = off;
    if (off > b.last[j]) b.last[j] = off;
  }

  /** Takes another read's blocks as they are (a merge's store records nothing itself). */
  adopt(blocks: readonly EntryBlock[]): void {
    this.blocks.push(...blocks);
    this.#open = null;
  }

  /** How many entries there are. */
  get count(): number {
    let n = 0;
    for (const b of this.blocks) n += b.n;
    return n;
  }
}

/**
 * Joins each window's records of one lane into one, in place (first the least, last the
 * greatest, balances summed); `starts` is rewritten to the kept records. Returns their count.
 */
export function coalesce(
  starts: Int32Array,
  lane: Uint16Array | Int32Array,
  first: Uint32Array | Float64Array,
  last: Uint32Array | Float64Array,
  balance: Int32Array,
  laneCount: number,
): number {
  const seenIn = new Int32Array(laneCount).fill(-1);
  const at = new Int32Array(laneCount);
  let out = 0;
  const windows = starts.length - 1;
  let from = starts[0];
  for (let w = 0; w < windows; w++) {
    const to = starts[w + 1];
    starts[w] = out;
    for (let k = from; k < to; k++) {
      const l = lane[k];
      if (seenIn[l] === w) {
        const j = at[l];
        if (first[k] < first[j]) first[j] = first[k];
        if (last[k] > last[j]) last[j] = last[k];
        balance[j] += balance[k];
        continue;
      }
      seenIn[l] = w;
      at[l] = out;
      lane[out] = l;
      first[out] = first[k];
      last[out] = last[k];
      balance[out] = balance[k];
      out++;
    }
    from = to;
  }
  starts[windows] = out;
  return out;
}
