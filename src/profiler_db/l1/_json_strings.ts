/**
 * Internal: JSON strings checked in place, as UTF-8 bytes (`_graph_scan.ts` walks captured
 * graphs with them): a string is accepted exactly where `JSON.parse` accepts it — no control
 * character, only JSON's escapes — without building its value. The text ends at a NUL byte
 * (the database driver's end of text), which no string may hold.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** 1 for a byte that stands for itself inside a string (printable ASCII but `"` and `\`). */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;

/** 1 for a hex digit. */
const HEX = new Uint8Array(256);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;

/**
 * What strings held: `escaped` and `wide` the last one `skipString` read (an escape, a byte
 * past ASCII); `anyWide` any string read since the caller last cleared it.
 */
export const seen = { escaped: false, wide: false, anyWide: false };

/** Past the string whose opening quote is at `i`, or -1; sets `seen`. */
export function skipString(b: Uint8Array, i: number): number {
  seen.escaped = false;
  seen.wide = false;
  i++;
  for (;;) {
    let c = b[i];
    while (PLAIN[c] === 1) c = b[++i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      seen.escaped = true;
      i = skipEscape(b, i);
      if (i < 0) return -1;
    } else if (c >= 0x80) {
      seen.wide = seen.anyWide = true;
      i++;
    } else return -1; // a control character, or the text's end (NUL)
  }
}

/** `skipString` for a string nobody reads: the same check, setting `seen.anyWide` only. */
export function passString(b: Uint8Array, i: number): number {
  i++;
  for (;;) {
    let c = b[i];
    while (PLAIN[c] === 1) c = b[++i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      i = skipEscape(b, i);
      if (i < 0) return -1;
    } else if (c >= 0x80) {
      seen.anyWide = true;
      i++;
    } else return -1;
  }
}

/** Past the escape whose backslash is at `i`, or -1. */
function skipEscape(b: Uint8Array, i: number): number {
  const e = b[i + 1];
  if (e === 0x75) {
    return HEX[b[i + 2]] + HEX[b[i + 3]] + HEX[b[i + 4]] + HEX[b[i + 5]] === 4 ? i + 6 : -1;
  }
  return e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 ||
      e === 0x6e || e === 0x72 || e === 0x74
    ? i + 2
    : -1;
}
