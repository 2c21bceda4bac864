/**
 * Internal: UTF-8 checks on a device log's bytes, cheap for the plain-ASCII text a log is made
 * of. Whole lines are tested four bytes at a time (a byte of 0x80 or more is the only way out of
 * ASCII), and only a stretch that is not ASCII goes through the fatal decoder — from the start
 * of the line its first such byte is on. A stretch of whole lines starts and ends at a
 * character boundary (`\n` never sits inside a multi-byte character), so stretches can be
 * checked apart, on any thread.
 *
 * @module
 */

const LF = 10;

/**
 * Whether every byte of `bytes[from, to)` is ASCII.
 *
 * @example
 * ```ts
 * import { isAscii } from "./_utf8.ts";
 * const b = new TextEncoder().encode("abc, 123\n€");
 * if (!isAscii(b, 0, 9) || isAscii(b, 0, b.length)) throw new Error();
 * ```
 */
export function isAscii(bytes: Uint8Array, from = 0, to = bytes.length): boolean {
  return firstNonAscii(bytes, from, to) === -1;
}

/** The index of the first byte of `bytes[from, to)` that is 0x80 or more, or −1. */
export function firstNonAscii(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let i = from;
  // Up to a four-byte boundary of the underlying buffer, byte by byte.
  while (i < to && (bytes.byteOffset + i) % 4 !== 0) {
    if (bytes[i] >= 0x80) return i;
    i++;
  }
  const words = (to - i) >> 2;
  if (words > 0) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset + i, words);
    // OR-ing a block of words is one instruction a word; only a block that has a high bit
    // set is looked at again, byte by byte.
    const BLOCK = 256;
    for (let w = 0; w < words; w += BLOCK) {
      const end = Math.min(words, w + BLOCK);
      let acc = 0;
      for (let k = w; k < end; k++) acc |= view[k];
      if ((acc & 0x80808080) !== 0) {
        for (let j = i + 4 * w; j < i + 4 * end; j++) if (bytes[j] >= 0x80) return j;
      }
    }
    i += 4 * words;
  }
  for (; i < to; i++) if (bytes[i] >= 0x80) return i;
  return -1;
}

/**
 * Checks that `bytes[from, to)` — whole lines: `from` is a line's start, `to` a line's end or
 * the end of the file — is UTF-8. Returns −1 when it is, else how many line breaks come before
 * the first line that is not (0: the first line of the stretch).
 *
 * @example
 * ```ts
 * import { badLineIn } from "./_utf8.ts";
 * const ok = new TextEncoder().encode("a\nb é\n");
 * if (badLineIn(ok, 0, ok.length) !== -1) throw new Error();
 * const bad = new Uint8Array([0x61, 0x0a, 0x62, 0x0a, 0xff, 0x0a]);
 * if (badLineIn(bad, 0, bad.length) !== 2) throw new Error();
 * ```
 */
export function badLineIn(bytes: Uint8Array, from: number, to: number): number {
  const first = firstNonAscii(bytes, from, to);
  if (first === -1) return -1;
  const lineStart = bytes.lastIndexOf(LF, first) + 1;
  const start = Math.max(from, lineStart);
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, to));
    return -1;
  } catch {
    // Which line: decode them one by one from the first that is not ASCII.
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let line = start;
  while (line < to) {
    let end = bytes.indexOf(LF, line);
    if (end === -1 || end >= to) end = to;
    try {
      decoder.decode(bytes.subarray(line, end));
    } catch {
      return linesBetween(bytes, from, line);
    }
    line = end + 1;
  }
  // Every line decodes on its own, yet not all together: cannot be, but say the last.
  return linesBetween(bytes, from, bytes.lastIndexOf(LF, to - 1) + 1);
}

/** The line breaks in `bytes[from, to)`. */
export function linesBetween(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let k = bytes.indexOf(LF, from); k !== -1 && k < to; k = bytes.indexOf(LF, k + 1)) n++;
  return n;
}
