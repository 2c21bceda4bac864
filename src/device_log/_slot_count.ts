/**
 * Internal: the distinct PCIe slots (devices) a device log has rows for in the text the probe
 * reads (all of a small log, the start and end of a large one): at each line start only the
 * leading fields up to the slot are read, and the next line is found with the string search
 * the engine runs fastest, so it costs little more than the decoding.
 *
 * @module
 */

const COMMA = 44;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const ZERO = 48;
const NINE = 57;

/** The most distinct slots kept; past it the count stops growing (no real system has more). */
export const MAX_SLOTS = 4096;

/** Counts the distinct PCIe slots of data rows, fed the file's text in order. */
export class SlotCounter {
  readonly slots = new Set<number>();
  /** The slot's field number in a row (the header's `PCIe slot` column). */
  readonly #column: number;
  /** Lines started so far. */
  #lines = 0;
  /** Lines at the start of the text that are not rows (the preamble and the header). */
  readonly #skip: number;
  #atLineStart = true;
  /** Inside a line's leading fields: the field reached and the slot's digits so far. */
  #parsing = false;
  #field = 0;
  #value = 0;
  #digits = 0;
  #bad = false;

  /**
   * `column` is the slot's field number; the first `skip` lines fed are not rows (2: the text
   * starts with the preamble and the header; 0: it starts at a data line).
   */
  constructor(column: number, skip = 2) {
    this.#column = column;
    this.#skip = skip;
  }

  /**
   * Reads the next text of the file.
   *
   * @example
   * ```ts
   * import { SlotCounter } from "./_slot_count.ts";
   * const c = new SlotCounter(0);
   * const text = "ARCH: x\nPCIe slot, core_x\n3, 1\n 3, 2\n12,1\n";
   * c.feed(text.slice(0, 20));
   * c.feed(text.slice(20, 30));
   * c.feed(text.slice(30));
   * if ([...c.slots].sort((a, b) => a - b).join() !== "3,12") throw new Error();
   * ```
   */
  feed(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.#parsing) {
        const at = this.#parse(text, i);
        if (at < 0) return;
        i = at;
        this.#atLineStart = text.charCodeAt(i - 1) === 10;
        continue;
      }
      if (!this.#atLineStart) {
        const nl = text.indexOf("\n", i);
        if (nl < 0) return;
        i = nl + 1;
        this.#atLineStart = true;
        continue;
      }
      this.#lines++;
      this.#atLineStart = false;
      if (this.#lines > this.#skip) {
        this.#parsing = true;
        this.#field = 0;
        this.#value = 0;
        this.#digits = 0;
        this.#bad = false;
      }
    }
  }

  /**
   * Reads a line's leading fields from `i` until the slot's field ends; returns the index
   * after it, or −1 when the text ends first (the state carries to the next feed).
   */
  #parse(text: string, i: number): number {
    const n = text.length;
    while (i < n) {
      const c = text.charCodeAt(i++);
      if (c === 10 || c === CR || (c === COMMA && this.#field === this.#column)) {
        this.#parsing = false;
        if (this.#field === this.#column && this.#digits > 0 && !this.#bad) {
          if (this.slots.size < MAX_SLOTS) this.slots.add(this.#value);
        }
        return i;
      }
      if (c === COMMA) {
        this.#field++;
        continue;
      }
      if (this.#field !== this.#column) continue;
      if (c >= ZERO && c <= NINE) {
        if (this.#digits === 9) this.#bad = true;
        else {
          this.#value = this.#value * 10 + (c - ZERO);
          this.#digits++;
        }
      } else if (c !== SPACE && c !== TAB) this.#bad = true;
    }
    return -1;
  }
}
