/**
 * Internal: turns the bytes of a repeated text cell (zone name, RISC) into a small integer
 * without building a string per row. A name is decoded once, the first time it is seen.
 *
 * Two tables: a direct-mapped one keyed by a cheap hash (length and three bytes), which finds
 * the few names of a real log at the cost of one byte comparison; and, behind it, an
 * open-addressed one keyed by a hash of every byte of the name, so that any number of
 * distinct names — a million that share their length and those three bytes — is still found
 * in constant time, and a log of them is read in linear time.
 *
 * @module
 */

import { hashOf } from "./_fields.ts";

const decoder = new TextDecoder();
const TABLE = 4096;

/**
 * FNV-1a over every byte of `buf[s, e)`.
 *
 * @example
 * ```ts
 * import { wholeHash } from "./_intern.ts";
 * const b = new TextEncoder().encode("zone-1 zone-2");
 * if (wholeHash(b, 0, 6) === wholeHash(b, 7, 13)) throw new Error();
 * ```
 */
export function wholeHash(buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

/** Names seen so far, each numbered in first-seen order. */
export class ByteInterner {
  /** The decoded names, by number. */
  readonly names: string[] = [];
  /** Every name's bytes, end to end; name `i` is `[#starts[i], #starts[i + 1])`. */
  #arena = new Uint8Array(4096);
  #starts = new Int32Array(64);
  #used = 0;
  /** cheap hash & (TABLE − 1) → the name last found there, or −1. */
  #table = new Int32Array(TABLE).fill(-1);
  /** Each name's whole hash, by number. */
  #hashes = new Int32Array(64);
  /** Open addressing on the whole hash: slot → number + 1 (0: empty). */
  #slots = new Int32Array(64);

  /** The number of the name in `buf[start, end)`. */
  intern(buf: Uint8Array, start: number, end: number): number {
    const slot = hashOf(buf, start, end) & (TABLE - 1);
    const guess = this.#table[slot];
    if (guess >= 0 && this.#equals(guess, buf, start, end)) return guess;
    const h = wholeHash(buf, start, end) | 0;
    const mask = this.#slots.length - 1;
    let at = h & mask;
    while (true) {
      const held = this.#slots[at];
      if (held === 0) break;
      const id = held - 1;
      if (this.#hashes[id] === h && this.#equals(id, buf, start, end)) {
        return (this.#table[slot] = id);
      }
      at = (at + 1) & mask;
    }
    const id = this.#add(buf, start, end, h);
    this.#slots[at] = id + 1;
    if (2 * this.names.length > this.#slots.length) this.#grow();
    return (this.#table[slot] = id);
  }

  /** The number of a name given as text (for names merged from another slice). */
  internText(name: string): number {
    const bytes = new TextEncoder().encode(name);
    return this.intern(bytes, 0, bytes.length);
  }

  #add(buf: Uint8Array, start: number, end: number, h: number): number {
    const id = this.names.length;
    const n = end - start;
    if (this.#used + n > this.#arena.length) {
      const bigger = new Uint8Array(Math.max(2 * this.#arena.length, this.#used + n));
      bigger.set(this.#arena.subarray(0, this.#used));
      this.#arena = bigger;
    }
    if (id + 2 > this.#starts.length) {
      const starts = new Int32Array(2 * this.#starts.length);
      starts.set(this.#starts);
      this.#starts = starts;
      const hashes = new Int32Array(2 * this.#hashes.length);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
    }
    this.#arena.set(buf.subarray(start, end), this.#used);
    this.#starts[id] = this.#used;
    this.#used += n;
    this.#starts[id + 1] = this.#used;
    this.#hashes[id] = h;
    this.names.push(decoder.decode(buf.subarray(start, end)));
    return id;
  }

  /** Doubles the open-addressed table and places every name again. */
  #grow(): void {
    const slots = new Int32Array(2 * this.#slots.length);
    const mask = slots.length - 1;
    for (let id = 0; id < this.names.length; id++) {
      let at = this.#hashes[id] & mask;
      while (slots[at] !== 0) at = (at + 1) & mask;
      slots[at] = id + 1;
    }
    this.#slots = slots;
  }

  #equals(id: number, buf: Uint8Array, start: number, end: number): boolean {
    const from = this.#starts[id];
    const n = this.#starts[id + 1] - from;
    if (n !== end - start) return false;
    const arena = this.#arena;
    for (let i = 0; i < n; i++) if (arena[from + i] !== buf[start + i]) return false;
    return true;
  }
}

/**
 * Names given as text (a slice's zone names, when slices are merged), numbered in first-seen
 * order: a hash of every character and open addressing, several times cheaper than a `Map`
 * keyed by a million strings.
 */
export class TextNumbers {
  /** The names, by number. */
  readonly names: string[] = [];
  #hashes = new Int32Array(64);
  /** slot → number + 1 (0: empty). */
  #slots = new Int32Array(64);

  /**
   * The number of `name`, given it a new one when it is new.
   *
   * @example
   * ```ts
   * import { TextNumbers } from "./_intern.ts";
   * const t = new TextNumbers();
   * if (t.numberOf("a") !== 0 || t.numberOf("b") !== 1 || t.numberOf("a") !== 0) throw new Error();
   * ```
   */
  numberOf(name: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    const mask = this.#slots.length - 1;
    let at = h & mask;
    while (true) {
      const held = this.#slots[at];
      if (held === 0) break;
      if (this.#hashes[held - 1] === h && this.names[held - 1] === name) return held - 1;
      at = (at + 1) & mask;
    }
    const id = this.names.length;
    this.names.push(name);
    if (id >= this.#hashes.length) {
      const hashes = new Int32Array(2 * this.#hashes.length);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
    }
    this.#hashes[id] = h;
    this.#slots[at] = id + 1;
    if (2 * this.names.length > this.#slots.length) {
      const slots = new Int32Array(2 * this.#slots.length);
      const m = slots.length - 1;
      for (let i = 0; i < this.names.length; i++) {
        let a = this.#hashes[i] & m;
        while (slots[a] !== 0) a = (a + 1) & m;
        slots[a] = i + 1;
      }
      this.#slots = slots;
    }
    return id;
  }
}
