/**
 * Internal: turns the bytes of a repeated text cell (zone name, RISC) into a small integer
 * without building a string per row. The cell's bytes are hashed; a direct-mapped table finds
 * the name by that hash, and a byte comparison confirms it. A name is decoded once, the first
 * time it is seen.
 *
 * @module
 */

import { hashOf } from "./_fields.ts";

const decoder = new TextDecoder();
const TABLE = 4096;

/** Names seen so far, each numbered in first-seen order. */
export class ByteInterner {
  /** The decoded names, by number. */
  readonly names: string[] = [];
  #bytes: Uint8Array[] = [];
  /** hash & (TABLE − 1) → the name last found there, or −1. */
  #table = new Int32Array(TABLE).fill(-1);
  #byHash = new Map<number, number[]>();

  /** The number of the name in `buf[start, end)`. */
  intern(buf: Uint8Array, start: number, end: number): number {
    const h = hashOf(buf, start, end);
    const slot = h & (TABLE - 1);
    const guess = this.#table[slot];
    if (guess >= 0 && this.#equals(guess, buf, start, end)) return guess;
    const bucket = this.#byHash.get(h);
    if (bucket !== undefined) {
      for (const id of bucket) {
        if (this.#equals(id, buf, start, end)) return (this.#table[slot] = id);
      }
    }
    const id = this.names.length;
    const copy = buf.slice(start, end);
    this.#bytes.push(copy);
    this.names.push(decoder.decode(copy));
    if (bucket === undefined) this.#byHash.set(h, [id]);
    else bucket.push(id);
    return (this.#table[slot] = id);
  }

  /** The number of a name given as text (for names merged from another slice). */
  internText(name: string): number {
    const bytes = new TextEncoder().encode(name);
    return this.intern(bytes, 0, bytes.length);
  }

  #equals(id: number, buf: Uint8Array, start: number, end: number): boolean {
    const b = this.#bytes[id];
    if (b.length !== end - start) return false;
    for (let i = 0; i < b.length; i++) if (b[i] !== buf[start + i]) return false;
    return true;
  }
}
