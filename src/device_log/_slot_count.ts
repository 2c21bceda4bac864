/**
 * Internal: the distinct PCIe slots (devices) a device log has rows for in the bytes the probe
 * reads (all of a small log, the start and end of a large one): at each line start only the
 * leading fields up to the slot are read, and the next line is found with a native byte
 * search; no text is made of them.
 *
 * @module
 */

const LF = 10;
const COMMA = 44;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const ZERO = 48;
const NINE = 57;

/** The most distinct slots kept; past it the count stops growing (no real system has more). */
export const MAX_SLOTS = 4096;

/**
 * Adds to `slots` the PCIe slot of every data line in `bytes[from, to)`, which starts at a line's
 * start: the slot is field `column`, a whole number of up to nine digits, spaces and tabs
 * around it allowed; a line whose slot field holds anything else, or that ends before it, adds
 * none.
 *
 * @example
 * ```ts
 * import { addSlots } from "./_slot_count.ts";
 * const bytes = new TextEncoder().encode("3, 1\n 3, 2\n12,1\nx7,1\n\n31\r\n");
 * const slots = new Set<number>();
 * addSlots(bytes, 0, bytes.length, 0, slots);
 * if ([...slots].sort((a, b) => a - b).join() !== "3,12,31") throw new Error();
 * ```
 */
export function addSlots(
  bytes: Uint8Array,
  from: number,
  to: number,
  column: number,
  slots: Set<number>,
): void {
  let i = from;
  while (i < to) {
    // At a line's start: its leading fields, up to the end of the slot's.
    let field = 0;
    let value = 0;
    let digits = 0;
    let bad = false;
    while (i < to) {
      const c = bytes[i++];
      if (c === LF || c === CR || (c === COMMA && field === column)) {
        if (field === column && digits > 0 && !bad && slots.size < MAX_SLOTS) slots.add(value);
        break;
      }
      if (c === COMMA) {
        field++;
        continue;
      }
      if (field !== column) continue;
      if (c >= ZERO && c <= NINE) {
        if (digits === 9) bad = true;
        else {
          value = value * 10 + (c - ZERO);
          digits++;
        }
      } else if (c !== SPACE && c !== TAB) bad = true;
    }
    // The rest of the line.
    if (bytes[i - 1] !== LF) {
      const nl = bytes.indexOf(LF, i);
      if (nl === -1 || nl >= to) return;
      i = nl + 1;
    }
  }
}
