/**
 * Internal: the params of a captured-graph node as `_graph_scan.ts` finds them — where each
 * value the L1 events read lies in the text, by slot — and the node's event made from them,
 * each value read as `JSON.parse` then `_l1_events.ts` would read it: strings decoded by
 * `JSON.parse` where they hold an escape or a byte past ASCII, numbers by `Number`, except
 * plain digit strings, read here to the same value.
 *
 * @module
 */
import { isGloballyAllocated, paramNumber, pushEvent } from "./_l1_events.ts";

/** The decoder for the rare token that is not plain ASCII (the BOM kept, as the driver does). */
export const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** A string token's value (`from`..`to` its content, quotes excluded), decoded as JSON.parse. */
export function stringAt(b: Uint8Array, from: number, to: number, hasEscape: boolean): string {
  const token = UTF8.decode(b.subarray(from - 1, to + 1));
  return hasEscape ? JSON.parse(token) : token.slice(1, -1);
}

/** A name's bytes (ASCII). */
export function bytesOf(name: string): Uint8Array {
  return Uint8Array.from(name, (c) => c.charCodeAt(0));
}

/** Whether the token `from`..`to` is the name whose bytes are `name`. */
export function isBytes(b: Uint8Array, from: number, to: number, name: Uint8Array): boolean {
  if (to - from !== name.length || b[from] !== name[0]) return false;
  for (let k = 1; k < name.length; k++) if (b[from + k] !== name[k]) return false;
  return true;
}

/** The params the events read, by slot. */
const PARAM_NAMES = [
  "type",
  "address",
  "size",
  "max_size_per_bank",
  "num_cores",
  "globally_allocated",
] as const;
const PARAM_BYTES = PARAM_NAMES.map(bytesOf);
const TYPE = 0;
const ADDRESS = 1;
const SIZE = 2;
const MAX_SIZE_PER_BANK = 3;
const NUM_CORES = 4;
const GLOBALLY_ALLOCATED = 5;

const L1 = bytesOf("L1");
const L1_SMALL = bytesOf("L1_SMALL");
const ONE = bytesOf("1");
const TRUE_TEXT = bytesOf("true");

// A param's value as found: absent, a string (from..to its content), a number (from..to its
// text), true, or anything else (false, null, an object or a list: no event reads them).
export const ABSENT = 0;
export const STRING = 1;
export const NUMBER = 2;
export const TRUE = 3;
export const OTHER = 4;

/** Each slot's value as found: its kind, where it lies, whether it needs decoding. */
export const slotKind = new Uint8Array(PARAM_NAMES.length);
export const slotFrom = new Int32Array(PARAM_NAMES.length);
export const slotTo = new Int32Array(PARAM_NAMES.length);
/** Whether a string slot's token needs decoding (an escape, or a byte past ASCII). */
export const slotDecode = new Uint8Array(PARAM_NAMES.length);

/** Which param slot a key (`from`..`to`, plain ASCII unless `hasEscape`) names, or -1. */
export function slotOf(b: Uint8Array, from: number, to: number, hasEscape: boolean): number {
  if (hasEscape) {
    return (PARAM_NAMES as readonly string[]).indexOf(stringAt(b, from, to, true));
  }
  let slot: number;
  switch (to - from) {
    case 4:
      slot = b[from] === 0x74 ? TYPE : SIZE;
      break;
    case 7:
      slot = ADDRESS;
      break;
    case 9:
      slot = NUM_CORES;
      break;
    case 17:
      slot = MAX_SIZE_PER_BANK;
      break;
    case 18:
      slot = GLOBALLY_ALLOCATED;
      break;
    default:
      return -1;
  }
  return isBytes(b, from, to, PARAM_BYTES[slot]) ? slot : -1;
}

/** A string or number slot's value as JSON.parse gives it. */
function slotValue(b: Uint8Array, slot: number): string | number {
  const from = slotFrom[slot];
  const to = slotTo[slot];
  if (slotKind[slot] === STRING) return stringAt(b, from, to, slotDecode[slot] === 1);
  return Number(UTF8.decode(b.subarray(from, to)));
}

/** A slot's number as `paramNumber` reads its value (plain digit strings read here). */
function slotNumber(b: Uint8Array, slot: number): number | null {
  const kind = slotKind[slot];
  if (kind !== STRING && kind !== NUMBER) return null;
  const from = slotFrom[slot];
  const to = slotTo[slot];
  if (slotDecode[slot] === 0 && to > from && to - from <= 15) {
    // Up to 15 decimal digits, nothing else: exactly the integer Number reads.
    let v = 0;
    let k = from;
    for (; k < to; k++) {
      const d = b[k] - 0x30;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (k === to) return v;
  }
  return paramNumber(slotValue(b, slot));
}

/** Whether a slot's value is the string whose bytes are `word`. */
function slotIs(b: Uint8Array, slot: number, word: Uint8Array): boolean {
  if (slotKind[slot] !== STRING) return false;
  if (slotDecode[slot] === 0) return isBytes(b, slotFrom[slot], slotTo[slot], word);
  return slotValue(b, slot) === UTF8.decode(word);
}

/** Whether the node just read is globally allocated, as `isGloballyAllocated` reads it. */
function slotGlobal(b: Uint8Array): boolean {
  const kind = slotKind[GLOBALLY_ALLOCATED];
  if (kind === TRUE) return true;
  if (kind === STRING) {
    return slotIs(b, GLOBALLY_ALLOCATED, ONE) || slotIs(b, GLOBALLY_ALLOCATED, TRUE_TEXT);
  }
  return kind === NUMBER && isGloballyAllocated(slotNumber(b, GLOBALLY_ALLOCATED));
}

/** Appends the event of the node whose params are in the slots (of type `code`) to `out`. */
export function pushSlotsEvent(
  b: Uint8Array,
  code: number,
  bankCount: number,
  out: number[],
): void {
  pushEvent(
    code,
    slotNumber(b, ADDRESS),
    slotNumber(b, SIZE),
    slotNumber(b, MAX_SIZE_PER_BANK),
    slotNumber(b, NUM_CORES),
    slotIs(b, TYPE, L1) || slotIs(b, TYPE, L1_SMALL),
    slotGlobal(b),
    bankCount,
    out,
  );
}
