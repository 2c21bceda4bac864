/**
 * Splits a byte stream into newline-delimited frames without ever holding more than the
 * frame limit: an over-long line is skipped as it streams past and reported as one
 * `oversize` event with its first and last few bytes (where its id can be read), so a 10 MB
 * line costs no more memory than a 1 MB one.
 *
 * @module
 */

/** The longest frame the server accepts, in bytes (the newline not counted). */
export const MAX_FRAME_BYTES = 1_000_000;

/** How many of an over-long line's first and of its last bytes are kept. */
export const CUT_FRAME_KEPT_BYTES = 4096;

/** One frame read from the stream. */
export type Frame =
  | { kind: "line"; bytes: Uint8Array }
  | {
    kind: "oversize";
    /** The line's length. */
    bytes: number;
    /** Its first and its last `CUT_FRAME_KEPT_BYTES` bytes, decoded leniently. */
    head: string;
    tail: string;
  };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Yields each line of `stream` (without its `\n` or a trailing `\r`), skipping blank lines.
 * A line longer than `maxBytes` is dropped as it arrives and yielded as `oversize` with its
 * length; reading goes on with the next line. A final line without a newline is yielded too.
 *
 * @example
 * ```ts
 * import { readFrames } from "./line_reader.ts";
 * const bytes = new TextEncoder().encode("a\n\nbcdef\r\ng");
 * const frames = [];
 * for await (const f of readFrames(ReadableStream.from([bytes]), 3)) frames.push(f);
 * const kinds = frames.map((f) => f.kind).join(",");
 * if (kinds !== "line,oversize,line") throw new Error(kinds);
 * ```
 */
export async function* readFrames(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number = MAX_FRAME_BYTES,
): AsyncGenerator<Frame> {
  let parts: Uint8Array[] = [];
  let held = 0; // bytes held in parts
  let skipped = -1; // >= 0 while discarding an over-long line: its length so far
  let head: Uint8Array = new Uint8Array(0); // while skipping: the line's first bytes
  let tail: Uint8Array = new Uint8Array(0); // while skipping: its last bytes so far
  for await (const chunk of stream) {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (skipped >= 0) {
        skipped += piece.length;
        tail = lastBytes(tail, piece);
      } else if (held + piece.length > maxBytes + 1) { // +1 leaves room for a trailing \r
        skipped = held + piece.length;
        const line = concat([...parts, piece], skipped);
        head = line.slice(0, CUT_FRAME_KEPT_BYTES);
        tail = line.slice(Math.max(0, line.length - CUT_FRAME_KEPT_BYTES));
        parts = [];
        held = 0;
      } else if (piece.length > 0) {
        parts.push(piece);
        held += piece.length;
      }
      if (nl === -1) {
        // Keep a copy: the stream may reuse its chunk buffer.
        if (parts.length > 0 && parts[parts.length - 1].buffer === chunk.buffer) {
          parts[parts.length - 1] = parts[parts.length - 1].slice();
        }
        break;
      }
      const frame = finish(parts, held, skipped, maxBytes, head, tail);
      parts = [];
      held = 0;
      skipped = -1;
      if (frame) yield frame;
      start = nl + 1;
    }
  }
  const last = finish(parts, held, skipped, maxBytes, head, tail);
  if (last) yield last;
}

/** The last `CUT_FRAME_KEPT_BYTES` of `kept` followed by `more`, copied. */
function lastBytes(kept: Uint8Array, more: Uint8Array): Uint8Array {
  if (more.length >= CUT_FRAME_KEPT_BYTES) return more.slice(more.length - CUT_FRAME_KEPT_BYTES);
  const keep = Math.min(kept.length, CUT_FRAME_KEPT_BYTES - more.length);
  const out = new Uint8Array(keep + more.length);
  out.set(kept.subarray(kept.length - keep));
  out.set(more, keep);
  return out;
}

const lenient = new TextDecoder();

function finish(
  parts: Uint8Array[],
  held: number,
  skipped: number,
  max: number,
  head: Uint8Array,
  tail: Uint8Array,
): Frame | null {
  const cut = (bytes: number, h: Uint8Array, t: Uint8Array): Frame => ({
    kind: "oversize",
    bytes,
    head: lenient.decode(h),
    tail: lenient.decode(t),
  });
  if (skipped >= 0) return cut(skipped, head, tail);
  let bytes = concat(parts, held);
  if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) {
    bytes = bytes.subarray(0, bytes.length - 1);
  }
  if (bytes.length > max) {
    return cut(
      bytes.length,
      bytes.subarray(0, CUT_FRAME_KEPT_BYTES),
      bytes.subarray(Math.max(0, bytes.length - CUT_FRAME_KEPT_BYTES)),
    );
  }
  if (isBlank(bytes)) return null;
  return { kind: "line", bytes };
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if (b !== 0x20 && b !== 0x09 && b !== CARRIAGE_RETURN) return false;
  }
  return true;
}
