/**
 * Internal: the byte scanner over the device log's data lines. It finds the fields a tool
 * reads by position (worked out from the header by name), parses numbers in place, numbers
 * names through an interner and hands each row to a sink as plain numbers — no string and no
 * object per line.
 *
 * A record is a line: `\n` ends it (`\r\n` too), a quoted field is read to its closing quote
 * but never past the end of the line, and a bare quote inside a field is text, as tt-metal's
 * `meta data` cells have them. Fields are trimmed of spaces, tabs and `\r`.
 *
 * In the buffer `buffer()` hands out, which lives in WebAssembly memory, `_row_parser.ts`
 * parses each line first: a row whose every field read is plain (every row of a real log)
 * comes back as numbers and name offsets, and any other line is read by the byte loop here,
 * so what a line means is decided in one place. A buffer of the caller's own is read by the
 * byte loop alone.
 *
 * @module
 */
import { ByteInterner } from "./_intern.ts";
import {
  BAD_NUMBER,
  BAD_RANGE,
  BAD_SHORT,
  COMMA,
  CR,
  type FieldLayout,
  LF,
  PHASE_POINT,
  phaseOf,
  QUOTE,
  type RowSink,
  SP,
  TAB,
} from "./_fields.ts";
import { QuotedLines } from "./_quoted_line.ts";
import {
  F_PHASE,
  F_RISC,
  F_ZONE,
  R_END,
  R_HI,
  R_LO,
  R_OTHER,
  R_PHASE,
  R_PHASE_ID,
  R_RISC,
  R_RISC_ID,
  R_RUN,
  R_SLOT,
  R_X,
  R_Y,
  R_ZONE,
  R_ZONE_ID,
  RECORD,
  RowParser,
} from "./_row_parser.ts";
import { beyond64Bits } from "./cycles.ts";
import { isAscii } from "./_utf8.ts";

/** What the fast path does with each field it reaches. */
const K_SKIP = 0;
const K_SLOT = 1;
const K_X = 2;
const K_Y = 3;
const K_RUN = 4;
const K_TIME = 5;
const K_ZONE = 6;
const K_RISC = 7;
const K_PHASE = 8;

/** A line's rest (after the last field read) up to this long is searched byte by byte. */
const SHORT_REST = 32;

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * Scans complete lines out of a buffer. The caller keeps one spare byte after the data, so a
 * last line without a line break can be given one: every line then ends at a `\n`, which the
 * loops stop on without bounds checks.
 */
export class LineScanner {
  /** 1-based number of the last line handled (the preamble and header are lines 1 and 2). */
  line: number;
  /** Data rows seen (blank lines excluded). */
  rows = 0;
  readonly #layout: FieldLayout;
  readonly #sink: RowSink;
  readonly #zones: ByteInterner;
  readonly #riscs: ByteInterner;
  readonly #kinds: Uint8Array;
  readonly #quoted: QuotedLines;
  #parser: RowParser | null = null;
  /** The boundary cells the parsed path has seen, and what each says (`phaseOf`). */
  readonly #phases = new ByteInterner();
  readonly #phaseOf: number[] = [];

  constructor(
    layout: FieldLayout,
    sink: RowSink,
    zones: ByteInterner,
    riscs: ByteInterner,
    firstLine: number,
  ) {
    this.#layout = layout;
    this.#sink = sink;
    this.#zones = zones;
    this.#riscs = riscs;
    const kinds = new Uint8Array(layout.last + 1);
    kinds[layout.slot] = K_SLOT;
    kinds[layout.x] = K_X;
    kinds[layout.y] = K_Y;
    kinds[layout.run] = K_RUN;
    kinds[layout.time] = K_TIME;
    kinds[layout.zone] = K_ZONE;
    kinds[layout.risc] = K_RISC;
    if (layout.phase >= 0) kinds[layout.phase] = K_PHASE;
    this.#kinds = kinds;
    this.#quoted = new QuotedLines(layout, sink, zones, riscs);
    this.line = firstLine - 1;
  }

  /**
   * A buffer of `bytes` bytes whose lines `scan` parses in WebAssembly first (see the module
   * doc); the same one while `bytes` stays the same.
   */
  buffer(bytes: number): Uint8Array {
    if (this.#parser === null || this.#parser.buffer.length !== bytes) {
      this.#parser = new RowParser(bytes, [...this.#kinds]);
    }
    return this.#parser.buffer;
  }

  /** Whether every byte of `buf[from, to)` is ASCII: in WebAssembly for `buffer()`'s. */
  ascii(buf: Uint8Array, from: number, to: number): boolean {
    if (this.#parser !== null && buf === this.#parser.buffer) return this.#parser.ascii(from, to);
    return isAscii(buf, from, to);
  }

  /**
   * Handles every complete line in `buf[from, to)`; with `final`, a last line without a line
   * break too (written into `buf[to]`, which must exist). Returns the offset of the first
   * byte not consumed.
   */
  scan(buf: Uint8Array, from: number, to: number, final: boolean): number {
    let stop = to > from ? buf.lastIndexOf(LF, to - 1) : -1;
    if (final && to > from && buf[to - 1] !== LF) {
      buf[to] = LF;
      stop = to;
    }
    if (stop < from) return from;
    const next = stop + 1;
    if (this.#parser !== null && buf === this.#parser.buffer) this.#parsed(buf, from, next);
    else this.#lines(buf, from, next);
    return next;
  }

  /**
   * Reads the lines in `buf[pos, next)` (each ends at a `\n`) from the row parser's records:
   * a plain row's figures as the byte loop would find them, in the same order of checks (an
   * unnamed zone first); any other line by the byte loop.
   */
  #parsed(buf: Uint8Array, pos: number, next: number): void {
    const parser = this.#parser!;
    const rec = parser.records;
    const sink = this.#sink;
    const zones = this.#zones;
    const riscs = this.#riscs;
    const hasPhase = this.#layout.phase >= 0;
    const phases = this.#phases;
    const phaseKinds = this.#phaseOf;
    let line = this.line;
    let rows = this.rows;
    while (pos < next) {
      parser.parse(pos, next);
      const count = parser.count;
      let start = pos;
      for (let b = 0; b < count * RECORD; b += RECORD) {
        const end = rec[b + R_END];
        if (rec[b + R_OTHER] !== 0) {
          this.#lines(buf, start, end + 1);
          line = this.line;
          rows = this.rows;
          start = end + 1;
          continue;
        }
        start = end + 1;
        // Counts are stored as they change (see #lines).
        this.line = ++line;
        this.rows = ++rows;
        const zs = rec[b + R_ZONE];
        const ze = rec[b + R_ZONE + 1];
        if (
          ze === zs ||
          (ze - zs === 3 && buf[zs] === 110 && buf[zs + 1] === 97 && buf[zs + 2] === 110)
        ) {
          sink.unnamed();
          continue;
        }
        // Each text's number from the parser's dictionary; one it lacks, interned and taught.
        let zone = rec[b + R_ZONE_ID];
        if (zone < 0) {
          zone = zones.intern(buf, zs, ze);
          parser.learn(F_ZONE, zone, zs, ze);
        }
        let risc = rec[b + R_RISC_ID];
        if (risc < 0) {
          const rs = rec[b + R_RISC];
          const re = rec[b + R_RISC + 1];
          risc = riscs.intern(buf, rs, re);
          parser.learn(F_RISC, risc, rs, re);
        }
        let phase = PHASE_POINT;
        if (hasPhase) {
          let cell = rec[b + R_PHASE_ID];
          if (cell < 0) {
            const ps = rec[b + R_PHASE];
            const pe = rec[b + R_PHASE + 1];
            cell = phases.intern(buf, ps, pe);
            phaseKinds[cell] = pe > ps ? phaseOf(buf, ps, pe) : PHASE_POINT;
            parser.learn(F_PHASE, cell, ps, pe);
          }
          phase = phaseKinds[cell];
        }
        sink.row(
          rec[b + R_SLOT],
          rec[b + R_X],
          rec[b + R_Y],
          risc,
          zone,
          phase,
          rec[b + R_RUN],
          rec[b + R_HI],
          rec[b + R_LO],
        );
      }
      pos = parser.reached;
    }
  }

  /**
   * Reads the lines in `buf[pos, next)` (each ends at a `\n`). One loop over all of them
   * rather than a call per line: the layout, sink and interners are loaded once per buffer,
   * and the per-line call (with its return of the next offset) goes.
   */
  #lines(buf: Uint8Array, pos: number, next: number): void {
    const kinds = this.#kinds;
    const last = this.#layout.last;
    const sink = this.#sink;
    const zones = this.#zones;
    const riscs = this.#riscs;
    let line = this.line;
    let rows = this.rows;
    let shortRest = true;
    while (pos < next) {
      const lineStart = pos;
      let p = pos;
      let c = buf[p];
      while (c === SP) c = buf[++p];
      if (c === CR && buf[p + 1] === LF) c = buf[++p];
      // Counts are stored as they change, nothing is left for after the loop: the loop is
      // compiled on the fly (on-stack replacement), and code after it with no type feedback
      // yet would throw that compiled code away at the end of every buffer (seen with
      // --trace-deopt when the counts were stored once, after the loop).
      this.line = ++line;
      if (c === LF) {
        // A blank line.
        pos = p + 1;
        continue;
      }
      let slot = -1;
      let x = -1;
      let y = -1;
      let run = -1;
      let hi = 0;
      let lo = 0;
      let timeOk = false;
      let longTimeStart = 0;
      let longTimeEnd = 0;
      let zs = 0;
      let ze = -1;
      let rs = 0;
      let re = 0;
      let ps = 0;
      let pe = 0;
      let fields = 0;
      let general = false;
      while (true) {
        while (c === SP) c = buf[++p];
        if (c === QUOTE || c === TAB) {
          general = true;
          break;
        }
        const kind = kinds[fields];
        if (kind === K_SKIP) {
          while (c !== COMMA && c !== LF) c = buf[++p];
        } else if (kind < K_TIME) {
          // slot, core_x, core_y, run host ID: small whole numbers, read in Smi range.
          // `c - 48 >>> 0 < 10` is "c is a digit" in one unsigned compare.
          const s = p;
          const cap = p + 9;
          let v = 0;
          while (c - 48 >>> 0 < 10 && p < cap) {
            v = v * 10 + (c - 48);
            c = buf[++p];
          }
          if (c >= 48 && c <= 57) {
            let w = v;
            while (c >= 48 && c <= 57) {
              w = w * 10 + (c - 48);
              c = buf[++p];
            }
            v = p - s > 15 ? -1 : w;
          }
          const e = p;
          while (c === SP || c === CR) c = buf[++p];
          if (e === s || (c !== COMMA && c !== LF)) {
            v = -1;
            while (c !== COMMA && c !== LF) c = buf[++p];
          }
          if (kind === K_SLOT) slot = v;
          else if (kind === K_X) x = v;
          else if (kind === K_Y) y = v;
          else run = v;
        } else if (kind === K_TIME) {
          // The cycle count, as up to nine leading digits and up to nine more, both in Smi
          // range; then split as hi × 10⁹ + lo, so values past 2⁵³ stay exact.
          const s = p;
          const capA = p + 9;
          let a = 0;
          while (c - 48 >>> 0 < 10 && p < capA) {
            a = a * 10 + (c - 48);
            c = buf[++p];
          }
          const m = p;
          const capB = p + 9;
          let b = 0;
          while (c - 48 >>> 0 < 10 && p < capB) {
            b = b * 10 + (c - 48);
            c = buf[++p];
          }
          const nb = p - m;
          if (nb === 0) {
            hi = 0;
            lo = a;
          } else {
            const q = POW10[9 - nb];
            hi = Math.floor(a / q);
            lo = (a - hi * q) * POW10[nb] + b; // a mod q, without a second division
          }
          timeOk = p > s;
          if (c >= 48 && c <= 57) {
            // More than eighteen digits: read apart below.
            while (c >= 48 && c <= 57) c = buf[++p];
            longTimeStart = s;
            longTimeEnd = p;
          }
          while (c === SP || c === CR) c = buf[++p];
          if (c !== COMMA && c !== LF) {
            timeOk = false;
            while (c !== COMMA && c !== LF) c = buf[++p];
          }
        } else {
          const s = p;
          while (c !== COMMA && c !== LF) c = buf[++p];
          let e = p;
          while (e > s && (buf[e - 1] === SP || buf[e - 1] === CR)) e--;
          if (kind === K_ZONE) {
            zs = s;
            ze = e;
          } else if (kind === K_RISC) {
            rs = s;
            re = e;
          } else {
            ps = s;
            pe = e;
          }
        }
        fields++;
        if (fields > last || c === LF) break;
        c = buf[++p];
      }
      // The rest of the line. A byte loop is cheaper than a call to indexOf over a short rest
      // (~20 bytes on ~95-byte rows), indexOf far faster over a long meta data cell: the
      // last row's rest says which to try.
      if (c !== LF) {
        if (shortRest) {
          const near = p + SHORT_REST;
          while (c !== LF && p < near) c = buf[++p];
          if (c !== LF) {
            p = buf.indexOf(LF, p);
            shortRest = false;
          }
        } else {
          const from = p;
          p = buf.indexOf(LF, p);
          shortRest = p - from < SHORT_REST;
        }
      }
      pos = p + 1;
      if (general) {
        if (this.#quoted.read(buf, lineStart, p, line)) this.rows = ++rows;
        continue;
      }
      this.rows = ++rows;
      let zone = -1;
      if (ze >= 0) {
        if (
          ze === zs ||
          (ze - zs === 3 && buf[zs] === 110 && buf[zs + 1] === 97 && buf[zs + 2] === 110)
        ) {
          sink.unnamed();
          continue;
        }
        zone = zones.intern(buf, zs, ze);
      }
      if (fields <= last) {
        sink.bad(line, zone, BAD_SHORT);
        continue;
      }
      if (longTimeEnd > longTimeStart) {
        const n = longTimeEnd - longTimeStart;
        if (n > 24) timeOk = false;
        else {
          hi = 0;
          lo = 0;
          const cut = longTimeEnd - 9;
          for (let i = longTimeStart; i < longTimeEnd; i++) {
            if (i < cut) hi = hi * 10 + (buf[i] - 48);
            else lo = lo * 10 + (buf[i] - 48);
          }
        }
      }
      if (!timeOk || slot < 0 || x < 0 || y < 0 || run < 0) {
        sink.bad(line, zone, BAD_NUMBER);
        continue;
      }
      // Eighteen digits or fewer is below 2⁶⁴; only a longer count can be beyond it.
      if (longTimeEnd > longTimeStart && beyond64Bits(hi, lo)) {
        sink.bad(line, zone, BAD_RANGE);
        continue;
      }
      const risc = riscs.intern(buf, rs, re);
      const phase = pe > ps ? phaseOf(buf, ps, pe) : PHASE_POINT;
      sink.row(slot, x, y, risc, zone, phase, run, hi, lo);
    }
  }
}
