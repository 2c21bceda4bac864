/**
 * Internal: core_spread's per-(window, lane) records — the first and last kernel cycle of one
 * RISC of one core inside one performance row's window, as offsets from the window's start —
 * kept in blocks of typed arrays. Blocks move between threads whole (transferred, not copied)
 * and are adopted by the merge as they are.
 *
 * @module
 */

/** Entries per block; an entry's number is `block << 16 | index`. */
export const BLOCK = 1 << 16;

/** One block: `n` entries of window, lane, first and last offset. */
export interface EntryBlock {
  win: Int32Array;
  lane: Int32Array;
  first: Float64Array;
  last: Float64Array;
  n: number;
}

/** The records of one read. */
export class EntryStore {
  readonly blocks: EntryBlock[] = [];
  #open: EntryBlock | null = null;

  /** Records a first kernel row of a lane in a window; returns the entry's number. */
  add(win: number, lane: number, off: number): number {
    let b = this.#open;
    if (b === null || b.n === BLOCK) {
      b = {
        win: new Int32Array(BLOCK),
        lane: new Int32Array(BLOCK),
        first: new Float64Array(BLOCK),
        last: new Float64Array(BLOCK),
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
    return ((this.blocks.length - 1) << 16) | j;
  }

  /** Widens an entry to a further kernel row. */
  touch(entry: number, off: number): void {
    const b = this.blocks[entry >>> 16];
    const j = entry & (BLOCK - 1);
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
