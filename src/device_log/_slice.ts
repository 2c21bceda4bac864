/**
 * Internal: reads one slice of the device log — the whole lines in a byte range — through one
 * fixed buffer, and returns what it found as plain data (names as text, lanes as keys, spans
 * as typed arrays), so a slice read on another thread can be posted back and merged. Every
 * byte it reads is checked to be UTF-8 as it goes (a fast ASCII test, the decoder only where a
 * byte is not ASCII): a slice that is not stops, naming its first bad line.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";
import { reopen } from "../kit/report_file.ts";
import { ByteInterner } from "./_intern.ts";
import type { FieldLayout } from "./_fields.ts";
import { LineScanner } from "./_scan.ts";
import { SpanRecorder, type SpanSlice } from "./_spans.ts";
import type { WindowTable } from "./_windows.ts";
import { type SliceLeftOut, type SliceStat, ZoneTally } from "./_tally.ts";
import { badLineIn } from "./_utf8.ts";

/** What to read. */
export interface SliceRequest {
  path: string;
  identity: FileIdentity;
  layout: FieldLayout;
  /** First byte of the slice: the start of a line. */
  start: number;
  /** End of the slice: just after a line break, or the end of the file. */
  end: number;
  /** The performance CSV's windows, to place kernel rows in; null for zones only. */
  windows: WindowTable | null;
  bufferBytes: number;
}

/** Starts still open, or ends still unpaired, on one lane: parallel arrays. */
export interface Pending {
  zone: number[];
  run: number[];
  hi: number[];
  lo: number[];
}

/** One lane of a slice: its key, the zones it had rows of, and what is left to pair. */
export interface SliceLane {
  slot: number;
  x: number;
  y: number;
  risc: number;
  zones: number[];
  open: Pending;
  ends: Pending;
}

/** A slice's findings; zone and RISC numbers index `zones` and `riscs`. */
export interface SliceResult {
  bytes: number;
  /** Lines in the slice, blank ones included; bad-row lines count from 1 within it. */
  lines: number;
  rows: number;
  overlong: number;
  /** The slice-local line of the first overlong line, or 0. */
  overlongFirstLine: number;
  zones: string[];
  riscs: string[];
  stats: SliceStat[];
  lanes: SliceLane[];
  leftOut: SliceLeftOut;
  unnamedRows: number;
  spans: SpanSlice | null;
}

/** What a slice's worker posts: the bytes read so far, then one result or failure. */
export type SliceMessage =
  | { bytes: number }
  | { ok: true; result: SliceResult }
  | { ok: false; changed: boolean; notUtf8: number | null; message: string };

/** The slice changed under the reader. */
export class SliceChanged extends Error {}

/** The slice holds a line that is not UTF-8. */
export class SliceNotUtf8 extends Error {
  /** The slice-local 1-based line it is on. */
  readonly line: number;

  constructor(line: number) {
    super(`line ${line} of the slice is not UTF-8`);
    this.line = line;
  }
}

/**
 * Reads one slice. Throws SliceChanged when the file is no longer the one identified,
 * SliceNotUtf8 at its first line that is not UTF-8, and the signal's reason when it is aborted
 * (checked before every buffer read). `onBytes` hears the bytes read so far after each read.
 */
export async function scanSlice(
  req: SliceRequest,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<SliceResult> {
  const opened = await reopen(req.identity);
  if ("changed" in opened) throw new SliceChanged(opened.changed);
  using file = opened.file;
  await file.seek(req.start, Deno.SeekMode.Start);
  const zones = new ByteInterner();
  const riscs = new ByteInterner();
  const spans = req.windows && req.layout.phase >= 0 ? new SpanRecorder(req.windows) : null;
  const tally = new ZoneTally(req.layout.phase >= 0, zones, spans);
  const scanner = new LineScanner(req.layout, tally, zones, riscs, 1);
  const size = req.bufferBytes;
  const buf = scanner.buffer(size + 1); // one spare byte: see LineScanner.scan
  let remaining = req.end - req.start;
  let filled = 0;
  let bytes = 0;
  let overlong = 0;
  let overlongFirstLine = 0;
  while (true) {
    signal?.throwIfAborted();
    const n = remaining === 0
      ? null
      : await file.read(buf.subarray(filled, Math.min(size, filled + remaining)));
    const eof = n === null;
    if (!eof) {
      filled += n;
      bytes += n;
      remaining -= n;
      onBytes?.(bytes);
    }
    const before = scanner.line;
    const used = scanner.scan(buf, 0, filled, eof);
    // The lines just read, checked once each (at the end, the last line's added break is not
    // the file's).
    const checked = eof ? filled : used;
    const bad = scanner.ascii(buf, 0, checked) ? -1 : badLineIn(buf, 0, checked);
    if (bad >= 0) throw new SliceNotUtf8(before + bad + 1);
    if (eof) break;
    if (used === 0 && filled === size) {
      // One line longer than the buffer: not a row of any real log. Skip to its end, still
      // checking its bytes.
      overlong++;
      scanner.line++;
      if (overlongFirstLine === 0) overlongFirstLine = scanner.line;
      const decoder = new TextDecoder("utf-8", { fatal: true });
      const check = (part: Uint8Array, last: boolean) => {
        try {
          decoder.decode(part, { stream: !last });
        } catch {
          throw new SliceNotUtf8(scanner.line);
        }
      };
      check(buf.subarray(0, filled), false);
      filled = 0;
      let ended = false;
      while (remaining > 0) {
        signal?.throwIfAborted();
        const k = await file.read(buf.subarray(0, Math.min(size, remaining)));
        if (k === null) break;
        bytes += k;
        remaining -= k;
        onBytes?.(bytes);
        const nl = buf.subarray(0, k).indexOf(10);
        if (nl >= 0) {
          check(buf.subarray(0, nl), true);
          ended = true;
          buf.copyWithin(0, nl + 1, k);
          filled = k - nl - 1;
          break;
        }
        check(buf.subarray(0, k), false);
      }
      if (!ended) check(new Uint8Array(0), true);
      continue;
    }
    buf.copyWithin(0, used, filled);
    filled -= used;
  }
  return {
    bytes,
    lines: scanner.line,
    rows: scanner.rows,
    overlong,
    overlongFirstLine,
    zones: zones.names,
    riscs: riscs.names,
    stats: tally.order,
    lanes: tally.lanes.all.map((l) => ({
      slot: l.slot,
      x: l.x,
      y: l.y,
      risc: l.risc,
      zones: l.zonesSeen,
      open: unpack(l.open, l.openCount),
      ends: { zone: l.endZone, run: l.endRun, hi: l.endHi, lo: l.endLo },
    })),
    leftOut: tally.badRows,
    unnamedRows: tally.unnamedRows,
    spans: spans ? spans.exportSlice() : null,
  };
}

/** A lane's open starts (four numbers each, `count` of them) as parallel arrays. */
function unpack(open: readonly number[], count: number): Pending {
  const p: Pending = { zone: [], run: [], hi: [], lo: [] };
  for (let k = 0; k < 4 * count; k += 4) {
    p.zone.push(open[k]);
    p.run.push(open[k + 1]);
    p.hi.push(open[k + 2]);
    p.lo.push(open[k + 3]);
  }
  return p;
}

/** The typed arrays of a result, to transfer rather than copy when posting it. */
export function transferables(r: SliceResult): ArrayBuffer[] {
  const blocks = r.spans ? [...r.spans.blocks, ...r.spans.wideBlocks] : [];
  return blocks.flatMap((b) =>
    [b.win.buffer, b.lane.buffer, b.first.buffer, b.last.buffer, b.bal.buffer] as ArrayBuffer[]
  );
}
