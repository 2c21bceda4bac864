/**
 * Internal: the device-log scanner's slow path, for a line with a quoted field (or a tab):
 * fields found with quotes honoured — a quoted field runs to its closing quote, never past
 * the line's end — each trimmed of blanks and quotes, then read as the fast path reads them.
 *
 * @module
 */
import type { ByteInterner } from "./_intern.ts";
import { beyond64Bits } from "./cycles.ts";
import {
  BAD_NUMBER,
  BAD_RANGE,
  BAD_SHORT,
  COMMA,
  CR,
  type FieldLayout,
  PHASE_POINT,
  phaseOf,
  QUOTE,
  type RowSink,
  SP,
  TAB,
} from "./_fields.ts";

/** Reads quoted lines into the same sink as the fast path. */
export class QuotedLines {
  readonly #layout: FieldLayout;
  readonly #sink: RowSink;
  readonly #zones: ByteInterner;
  readonly #riscs: ByteInterner;
  readonly #start: Int32Array;
  readonly #end: Int32Array;
  #s = 0;
  #e = 0;

  constructor(layout: FieldLayout, sink: RowSink, zones: ByteInterner, riscs: ByteInterner) {
    this.#layout = layout;
    this.#sink = sink;
    this.#zones = zones;
    this.#riscs = riscs;
    this.#start = new Int32Array(layout.last + 1);
    this.#end = new Int32Array(layout.last + 1);
  }

  /**
   * The slow path, for a line with a quoted field (or a tab): fields found with quotes
   * honoured, each trimmed, then read as the fast path reads them.
   */
  read(buf: Uint8Array, lineStart: number, lineEnd: number, line: number): boolean {
    const last = this.#layout.last;
    const fs = this.#start;
    const fe = this.#end;
    let p = lineStart;
    let fields = 0;
    while (fields <= last) {
      const start = p;
      while (p < lineEnd && (buf[p] === SP || buf[p] === TAB)) p++;
      if (p < lineEnd && buf[p] === QUOTE) {
        p++;
        while (p < lineEnd) {
          if (buf[p] === QUOTE) {
            if (p + 1 < lineEnd && buf[p + 1] === QUOTE) p += 2;
            else {
              p++;
              break;
            }
          } else p++;
        }
      }
      while (p < lineEnd && buf[p] !== COMMA) p++;
      fs[fields] = start;
      fe[fields] = p;
      fields++;
      if (p >= lineEnd) break;
      p++;
    }
    return this.#handle(buf, fields, line);
  }

  #handle(buf: Uint8Array, fields: number, line: number): boolean {
    const L = this.#layout;
    const sink = this.#sink;
    let zone = -1;
    if (L.zone < fields) {
      this.#trim(buf, L.zone);
      const s = this.#s;
      const e = this.#e;
      if (fields === 1 && e === s) return false; // a blank line
      if (e === s || (e - s === 3 && buf[s] === 110 && buf[s + 1] === 97 && buf[s + 2] === 110)) {
        sink.unnamed();
        return true;
      }
      zone = this.#zones.intern(buf, s, e);
    }
    if (fields <= L.last) {
      sink.bad(line, zone, BAD_SHORT);
      return true;
    }
    const slot = this.#int(buf, L.slot);
    const x = this.#int(buf, L.x);
    const y = this.#int(buf, L.y);
    const run = this.#int(buf, L.run);
    this.#trim(buf, L.time);
    const ts = this.#s;
    const te = this.#e;
    let hi = 0;
    let lo = 0;
    let ok = te > ts && te - ts <= 24;
    const cut = te - 9;
    for (let i = ts; ok && i < te; i++) {
      const d = buf[i] - 48;
      if (d < 0 || d > 9) ok = false;
      else if (i < cut) hi = hi * 10 + d;
      else lo = lo * 10 + d;
    }
    if (!ok || slot < 0 || x < 0 || y < 0 || run < 0) {
      sink.bad(line, zone, BAD_NUMBER);
      return true;
    }
    if (beyond64Bits(hi, lo)) {
      sink.bad(line, zone, BAD_RANGE);
      return true;
    }
    this.#trim(buf, L.risc);
    const risc = this.#riscs.intern(buf, this.#s, this.#e);
    let phase = PHASE_POINT;
    if (L.phase >= 0) {
      this.#trim(buf, L.phase);
      phase = phaseOf(buf, this.#s, this.#e);
    }
    sink.row(slot, x, y, risc, zone, phase, run, hi, lo);
    return true;
  }

  /** Sets `#s`/`#e` to a field's bounds without surrounding blanks, `\r` and quotes. */
  #trim(buf: Uint8Array, field: number): void {
    let s = this.#start[field];
    let e = this.#end[field];
    while (s < e && (buf[s] === SP || buf[s] === TAB)) s++;
    while (e > s && (buf[e - 1] === SP || buf[e - 1] === TAB || buf[e - 1] === CR)) e--;
    if (e - s >= 2 && buf[s] === QUOTE && buf[e - 1] === QUOTE) {
      s++;
      e--;
      while (s < e && (buf[s] === SP || buf[s] === TAB)) s++;
      while (e > s && (buf[e - 1] === SP || buf[e - 1] === TAB)) e--;
    }
    this.#s = s;
    this.#e = e;
  }

  /** A field read as a whole number below 2⁵³, or −1. */
  #int(buf: Uint8Array, field: number): number {
    this.#trim(buf, field);
    const s = this.#s;
    const e = this.#e;
    if (e === s || e - s > 15) return -1;
    let v = 0;
    for (let i = s; i < e; i++) {
      const d = buf[i] - 48;
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v;
  }
}
