/**
 * Splits a byte stream into newline-delimited frames without ever holding more than the
 * frame limit: an over-long line is skipped as it streams past and reported as one
 * `oversize` event, so a 10 MB line costs no more memory than a 1 MB one.
 *
 * @module
 */

/** The longest frame the server accepts, in bytes (the newline not counted). */
export const MAX_FRAME_BYTES = 1_000_000;

/** One frame read from the stream. */
export type Frame =
  | { kind: "line"; bytes: Uint8Array }
  | { kind: "oversize"; bytes: number };

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
  for await (const chunk of stream) {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = end - start;
      if (skipped >= 0) {
        skipped += piece;
      } else if (held + piece > maxBytes + 1) { // +1 leaves room for a trailing \r
        skipped = held + piece;
        parts = [];
        held = 0;
      } else if (piece > 0) {
        parts.push(chunk.subarray(start, end));
        held += piece;
      }
      if (nl === -1) {
        // Keep a copy: the stream may reuse its chunk buffer.
        if (parts.length > 0 && parts[parts.length - 1].buffer === chunk.buffer) {
          parts[parts.length - 1] = parts[parts.length - 1].slice();
        }
        break;
      }
      const frame = finish(parts, held, skipped, maxBytes);
      parts = [];
      held = 0;
      skipped = -1;
      if (frame) yield frame;
      start = nl + 1;
    }
  }
  const last = finish(parts, held, skipped, maxBytes);
  if (last) yield last;
}

function finish(parts: Uint8Array[], held: number, skipped: number, max: number): Frame | null {
  if (skipped >= 0) return { kind: "oversize", bytes: skipped };
  let bytes = concat(parts, held);
  if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) {
    bytes = bytes.subarray(0, bytes.length - 1);
  }
  if (bytes.length > max) return { kind: "oversize", bytes: bytes.length };
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
