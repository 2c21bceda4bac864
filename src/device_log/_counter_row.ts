/**
 * Internal: reads one counter row in place from the bytes of its line — its fields found by
 * their commas, numbers parsed from the digits, names interned — so a log of millions of
 * counter rows makes no string per row. The `meta data` cell is read by key from the
 * `counter type` the scanner found: the name after it, then the digits after `ref cnt` and
 * after `value`, whatever quoting surrounds them.
 *
 * @module
 */
import { COMMA, CR, QUOTE, SP, TAB } from "./_fields.ts";
import { ByteInterner } from "./_intern.ts";
import { COUNTER_MARK } from "./probe.ts";

/** Where the columns a counter row needs sit; −1 for the optional ones a header lacks. */
export interface CounterLayout {
  slot: number;
  x: number;
  y: number;
  risc: number;
  run: number;
  replay: number;
  type: number;
  meta: number;
}

/** What a row gave, or why it gave nothing. */
export const ROW_OK = 0;
/** Unreadable: a field missing, a number that is not one, meta data without its keys. */
export const ROW_BAD = 1;
/** A zone start, end or total that happens to mention `counter type`. */
export const ROW_ZONE = 2;

const APOS = 39;
const COLON = 58;
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const REF_KEY = ascii("ref cnt");
const VALUE_KEY = ascii("value");
const MARK_LENGTH = COUNTER_MARK.length;

/** Reads counter rows of one layout; the fields of the last row read are its properties. */
export class CounterRowReader {
  slot = 0;
  x = 0;
  y = 0;
  run = 0;
  risc = "";
  replay = "";
  name = "";
  ref = 0;
  value = 0;
  readonly #layout: CounterLayout;
  readonly #start: Int32Array;
  readonly #end: Int32Array;
  /** Names decoded once each, through the zone scanner's interner. */
  readonly #names = new ByteInterner();

  constructor(layout: CounterLayout) {
    this.#layout = layout;
    this.#start = new Int32Array(layout.meta + 1);
    this.#end = new Int32Array(layout.meta + 1);
  }

  /**
   * Reads the line `buf[start, stop)` whose `counter type` starts at `mark`; returns ROW_OK
   * (the fields are then set), ROW_BAD or ROW_ZONE.
   */
  read(buf: Uint8Array, start: number, stop: number, mark: number): number {
    const L = this.#layout;
    const fs = this.#start;
    const fe = this.#end;
    let end = stop;
    if (end > start && buf[end - 1] === CR) end--;
    let p = start;
    for (let f = 0; f < L.meta; f++) {
      fs[f] = p;
      while (p < end && buf[p] !== COMMA) p++;
      fe[f] = p;
      if (p >= end) return ROW_BAD;
      p++;
    }
    if (L.type >= 0 && this.#trim(buf, L.type) && buf[fs[L.type]] === 90 /* Z */) {
      return ROW_ZONE;
    }
    if (mark < p) return ROW_BAD; // the mark sits before the meta data: not a counter row
    const slot = this.#int(buf, L.slot);
    const x = this.#int(buf, L.x);
    const y = this.#int(buf, L.y);
    const run = this.#int(buf, L.run);
    if (slot < 0 || x < 0 || y < 0 || run < 0) return ROW_BAD;
    // The counter's name: past the key and any quotes, blanks and a colon.
    let n = mark + MARK_LENGTH;
    while (n < end && isPunct(buf[n])) n++;
    const ns = n;
    while (n < end && isWord(buf[n])) n++;
    if (n === ns) return ROW_BAD;
    // tt-metal's JSON writer orders keys alphabetically, so both usually follow the name.
    let ref = digitsAfter(buf, REF_KEY, n, end, false);
    if (ref < 0) ref = digitsAfter(buf, REF_KEY, p, end, false);
    let value = digitsAfter(buf, VALUE_KEY, n, end, true);
    if (value < 0) value = digitsAfter(buf, VALUE_KEY, p, end, true);
    if (ref < 0 || value < 0) return ROW_BAD;
    this.slot = slot;
    this.x = x;
    this.y = y;
    this.run = run;
    this.name = this.#name(buf, ns, n);
    this.ref = ref;
    this.value = value;
    this.risc = this.#text(buf, L.risc);
    this.replay = L.replay >= 0 && L.replay < L.meta ? this.#text(buf, L.replay) : "";
    return ROW_OK;
  }

  #name(buf: Uint8Array, s: number, e: number): string {
    return this.#names.names[this.#names.intern(buf, s, e)];
  }

  /** Narrows field `f` to its bounds without blanks and quotes; false when it is empty. */
  #trim(buf: Uint8Array, f: number): boolean {
    let s = this.#start[f];
    let e = this.#end[f];
    while (s < e && (buf[s] === SP || buf[s] === TAB || buf[s] === QUOTE)) s++;
    while (e > s && (buf[e - 1] === SP || buf[e - 1] === TAB || buf[e - 1] === QUOTE)) e--;
    this.#start[f] = s;
    this.#end[f] = e;
    return e > s;
  }

  /** Field `f` as a whole number of up to nine digits, or −1. */
  #int(buf: Uint8Array, f: number): number {
    if (!this.#trim(buf, f)) return -1;
    const s = this.#start[f];
    const e = this.#end[f];
    if (e - s > 9) return -1;
    let v = 0;
    for (let i = s; i < e; i++) {
      const d = buf[i] - 48;
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v;
  }

  #text(buf: Uint8Array, f: number): string {
    return this.#trim(buf, f) ? this.#name(buf, this.#start[f], this.#end[f]) : "";
  }
}

function isPunct(c: number): boolean {
  return c === QUOTE || c === APOS || c === SP || c === TAB || c === COLON;
}

function isWord(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * The whole number after the first `key` in `buf[from, to)` (past quotes, blanks and a
 * colon), or −1. With `standalone`, the key must not continue a longer word.
 */
function digitsAfter(
  buf: Uint8Array,
  key: Uint8Array,
  from: number,
  to: number,
  standalone: boolean,
): number {
  const k0 = key[0];
  for (let i = from; i + key.length <= to; i++) {
    if (buf[i] !== k0) continue;
    let j = 1;
    while (j < key.length && buf[i + j] === key[j]) j++;
    if (j < key.length) continue;
    if (standalone && i > from && (isWord(buf[i - 1]) || buf[i - 1] === SP)) continue;
    let p = i + key.length;
    while (p < to && isPunct(buf[p])) p++;
    const s = p;
    let v = 0;
    while (p < to && buf[p] >= 48 && buf[p] <= 57 && p - s < 15) v = v * 10 + (buf[p++] - 48);
    return p > s && !(p < to && isWord(buf[p])) ? v : -1;
  }
  return -1;
}
