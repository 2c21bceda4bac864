/**
 * Internal: what the device-log scanners share — the positions of the columns read, the sink
 * rows go to, what a boundary cell says, and the cheap name hash the interner tries first.
 *
 * @module
 */

export interface FieldLayout {
  slot: number;
  x: number;
  y: number;
  risc: number;
  time: number;
  run: number;
  zone: number;
  phase: number;
  /** The highest of the positions above. */
  last: number;
}

/** What a row's boundary cell says. */
export const PHASE_START = 0;
/** A zone end (`ZONE_END` or `end`). */
export const PHASE_END = 1;
/** Anything else: `TS_DATA`, `TS_EVENT`, `ZONE_TOTAL`, blank, or no boundary column. */
export const PHASE_POINT = 2;

/** Why a row was left out. */
export const BAD_SHORT = 0;
/** A slot, core coordinate, run host ID or cycle count that is not a whole number. */
export const BAD_NUMBER = 1;
/** A cycle count of 2⁶⁴ or more: past what any 64-bit cycle counter holds. */
export const BAD_RANGE = 2;

/** Receives the scanned rows. */
export interface RowSink {
  row(
    slot: number,
    x: number,
    y: number,
    risc: number,
    zone: number,
    phase: number,
    run: number,
    hi: number,
    lo: number,
  ): void;
  /** A row left out; `zone` is its zone's number, or −1 when the row has none. */
  bad(line: number, zone: number, why: number): void;
  /** A row with an empty (or `nan`) zone name, skipped as upstream skips it. */
  unnamed(): void;
}

/** Bytes the scanners look for. */
export const LF = 10;
export const CR = 13;
export const SP = 32;
export const TAB = 9;
export const COMMA = 44;
export const QUOTE = 34;

/**
 * A cheap hash of a name in `buf[s, e)` — its length and three of its bytes — for the
 * interner's first, direct-mapped table; names it confuses are told apart by the interner's
 * hash of every byte behind it, so collisions only cost a lookup.
 */
export function hashOf(buf: Uint8Array, s: number, e: number): number {
  const n = e - s;
  if (n === 0) return 0;
  return (n * 0x9e3779b1) ^ (buf[s] << 5) ^ (buf[e - 1] << 13) ^ (buf[s + (n >> 1)] << 21);
}

/** `ZONE_START`/`begin` → start, `ZONE_END`/`end` → end, anything else → a point event. */
export function phaseOf(buf: Uint8Array, s: number, e: number): number {
  const n = e - s;
  if (n === 10 && matches(buf, s, ZONE_START)) return PHASE_START;
  if (n === 8 && matches(buf, s, ZONE_END)) return PHASE_END;
  if (n === 5 && matches(buf, s, BEGIN)) return PHASE_START;
  if (n === 3 && matches(buf, s, END)) return PHASE_END;
  return PHASE_POINT;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const ZONE_START = ascii("ZONE_START");
const ZONE_END = ascii("ZONE_END");
const BEGIN = ascii("begin");
const END = ascii("end");

function matches(buf: Uint8Array, s: number, word: Uint8Array): boolean {
  for (let i = 0; i < word.length; i++) if (buf[s + i] !== word[i]) return false;
  return true;
}
