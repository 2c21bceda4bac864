/**
 * Internal: the streaming scanner for the device log's performance-counter rows. The file is
 * read in fixed-size slices; each slice is searched for the bytes `counter type` (a
 * Boyer–Moore–Horspool skip, so the zone rows around them are never decoded), and only the
 * lines holding it are read, in place (`_counter_row.ts`): their PCIe slot, core, RISC, run host
 * ID, trace id counter, type and `meta data`. No string of the file and no object per line is
 * made; what is kept is four numbers per counter row.
 *
 * A counter row's `meta data` is the JSON tt-metal's profiler writes with its commas turned
 * into `;` — `{"counter type":"FPU_COUNTER";"ref cnt":1000;"value":723}` — read by key, so
 * quoting that was doubled, single or left bare does not matter.
 *
 * @module
 */
import { reopen } from "../kit/report_file.ts";
import type { Progress } from "../kit/progress.ts";
import { COUNTER_MARK, DEVICE_LOG_NAME, type DeviceLogProbe, notUtf8 } from "./probe.ts";
import { badLineIn, linesBetween } from "./_utf8.ts";
import { type CounterLayout, CounterRowReader, ROW_OK, ROW_ZONE } from "./_counter_row.ts";

/** The log changed between load_report's look at it and this read. */
export class CounterLogChanged extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CounterLogChanged";
  }
}

/** A line of the log is not UTF-8 (load_report sampled it; this read checks every byte). */
export class CounterLogNotUtf8 extends Error {
  constructor(line: number) {
    super(notUtf8(`the first invalid byte is on line ${line}`));
    this.name = "CounterLogNotUtf8";
  }
}

/** What a counter scan's progress counts. */
export const COUNTER_PROGRESS_MESSAGE = `bytes of ${DEVICE_LOG_NAME} searched for counter rows`;

/** Cores are numbered x × CORE_SPAN + y; coordinates must be below it. */
export const CORE_SPAN = 1024;

/** One counter of one operation: its samples, one per (core, instance). */
export interface CounterSeries {
  name: string;
  req: number[];
  ref: number[];
  core: number[];
  instance: number[];
}

/** The counter rows of one operation: a run host ID on one device, every replay of it. */
export interface OpCounters {
  device: number;
  run: number;
  /** The trace id counter of each instance seen ("" for an eager run), in order seen. */
  replays: string[];
  /** RISCs that wrote its counter rows. */
  riscs: Set<string>;
  series: Map<string, CounterSeries>;
  /** Rows that repeated a counter already read for the same core and instance (summed in). */
  repeats: number;
}

/** Everything the scan found. */
export interface CounterScan {
  /** Counter rows read into an operation. */
  rows: number;
  /** Operations by `${device}|${run}`, in the order first seen. */
  ops: Map<string, OpCounters>;
  /** Counter rows of run host ID 0, which belong to no operation (tt-metal skips them). */
  outsideOps: number;
  /** Lines naming `counter type` whose type is not TS_DATA (a zone start or end): skipped. */
  otherTypes: number;
  /** Counter rows whose counter type is a number, not a name (named `#<n>`). */
  numericNames: number;
  /** Counter rows that could not be read, and the first of them (shortened). */
  bad: number;
  firstBad: string | null;
}

/** The columns the counter reader cannot do without. */
export const COUNTER_COLUMNS = [
  "PCIe slot",
  "core_x",
  "core_y",
  "RISC processor type",
  "run host ID",
  "meta data",
] as const;

const READ_BYTES = 4 << 20;
const MAX_LINE_BYTES = 64 << 20;
const LF = 10;
const MARK = Uint8Array.from(COUNTER_MARK, (c) => c.charCodeAt(0));
const SKIP = (() => {
  const t = new Int32Array(256).fill(MARK.length);
  for (let i = 0; i < MARK.length - 1; i++) t[MARK[i]] = MARK.length - 1 - i;
  return t;
})();

/** The first `counter type` in `buf[from, to)`, or −1. */
export function findMark(buf: Uint8Array, from: number, to: number): number {
  const last = MARK.length - 1;
  let i = from;
  while (i + last < to) {
    let j = last;
    while (j >= 0 && buf[i + j] === MARK[j]) j--;
    if (j < 0) return i;
    i += SKIP[buf[i + last]];
  }
  return -1;
}

/** How to scan. */
export interface CounterScanOptions {
  /** The read buffer's first size (it grows for a longer line). */
  bufferBytes?: number;
  /** Stops the scan (checked before every read); it then rejects with the reason. */
  signal?: AbortSignal;
  /** Hears the bytes read so far of the file's size. */
  progress?: Progress;
}

/**
 * Reads every counter row of the log `probe` describes, checking that every byte is UTF-8.
 * Throws CounterLogChanged when the file is no longer the one probed, CounterLogNotUtf8 at its
 * first line that is not UTF-8, and an Error naming the columns a counter row needs that the
 * header lacks.
 */
export async function scanCounters(
  probe: DeviceLogProbe,
  options: CounterScanOptions = {},
): Promise<CounterScan> {
  const { signal, progress } = options;
  const size = probe.identity.size;
  const at = (name: string) => probe.columns.indexOf(name);
  const missing = COUNTER_COLUMNS.filter((c) => at(c) < 0);
  if (missing.length > 0) throw new Error(`the device log lacks columns ${missing.join(", ")}`);
  const layout: CounterLayout = {
    slot: at("PCIe slot"),
    x: at("core_x"),
    y: at("core_y"),
    risc: at("RISC processor type"),
    run: at("run host ID"),
    replay: at("trace id counter"),
    type: at("type"),
    meta: at("meta data"),
  };
  const scan: CounterScan = {
    rows: 0,
    ops: new Map(),
    outsideOps: 0,
    otherTypes: 0,
    numericNames: 0,
    bad: 0,
    firstBad: null,
  };
  const opened = await reopen(probe.identity);
  if ("changed" in opened) throw new CounterLogChanged(opened.changed);
  using file = opened.file;
  const decoder = new TextDecoder();
  const row = new CounterRowReader(layout);
  const byKey = new Map<number, OpCounters>();
  let buf = new Uint8Array(options.bufferBytes ?? READ_BYTES);
  let filled = 0;
  let total = 0;
  while (true) {
    signal?.throwIfAborted();
    if (filled === buf.length) {
      if (buf.length >= MAX_LINE_BYTES) {
        throw new Error(`the device log has a line longer than ${MAX_LINE_BYTES} bytes`);
      }
      const bigger = new Uint8Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    const n = await file.read(buf.subarray(filled));
    const done = n === null;
    if (!done) {
      filled += n;
      total += n;
      progress?.report(total, size, COUNTER_PROGRESS_MESSAGE);
    }
    const end = done ? filled : buf.lastIndexOf(LF, filled - 1) + 1;
    const bad = badLineIn(buf, 0, end);
    if (bad >= 0) {
      // Its line: the line breaks before the buffer, counted now (not on every read).
      throw new CounterLogNotUtf8((await linesUpTo(probe, total - filled)) + bad + 1);
    }
    let from = 0;
    while (from < end) {
      const hit = findMark(buf, from, end);
      if (hit < 0) break;
      const start = buf.lastIndexOf(LF, hit) + 1;
      let stop = buf.indexOf(LF, hit);
      if (stop < 0 || stop > end) stop = end;
      const got = row.read(buf, start, stop, hit);
      if (got === ROW_OK) addRow(row, scan, byKey);
      else if (got === ROW_ZONE) scan.otherTypes++;
      else {
        scan.bad++;
        if (scan.firstBad === null) {
          const text = decoder.decode(buf.subarray(start, stop)).replace(/\r$/, "");
          scan.firstBad = text.length > 160 ? `${text.slice(0, 160)}…` : text;
        }
      }
      from = stop + 1;
    }
    if (done) break;
    buf.copyWithin(0, end, filled);
    filled -= end;
  }
  if (total !== probe.identity.size) {
    throw new CounterLogChanged(`${probe.path} changed size while it was read`);
  }
  for (const op of scan.ops.values()) {
    for (const series of op.series.values()) op.repeats += mergeRepeats(series);
  }
  return scan;
}

/** The line breaks in the log's first `offset` bytes (read again, from its start). */
async function linesUpTo(probe: DeviceLogProbe, offset: number): Promise<number> {
  const opened = await reopen(probe.identity);
  if ("changed" in opened) throw new CounterLogChanged(opened.changed);
  using file = opened.file;
  const buf = new Uint8Array(READ_BYTES);
  let lines = 0;
  let at = 0;
  while (at < offset) {
    const n = await file.read(buf.subarray(0, Math.min(buf.length, offset - at)));
    if (n === null) break;
    lines += linesBetween(buf, 0, n);
    at += n;
  }
  return lines;
}

/**
 * Folds rows that repeat a counter for the same core and instance into one sample (req and
 * ref summed), keeping first-seen order; returns how many rows were folded. Done once after
 * the scan, so no per-sample index is kept while reading.
 */
export function mergeRepeats(series: CounterSeries): number {
  const n = series.req.length;
  const key = (i: number) => series.instance[i] * CORE_SPAN * CORE_SPAN + series.core[i];
  const distinct = new Set<number>();
  for (let i = 0; i < n; i++) distinct.add(key(i));
  if (distinct.size === n) return 0;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => key(a) - key(b) || a - b);
  const into = new Int32Array(n).fill(-1);
  let repeats = 0;
  for (let k = 1; k < n; k++) {
    if (key(order[k]) === key(order[k - 1])) {
      const first = into[order[k - 1]] >= 0 ? into[order[k - 1]] : order[k - 1];
      into[order[k]] = first;
      series.req[first] += series.req[order[k]];
      series.ref[first] += series.ref[order[k]];
      repeats++;
    }
  }
  if (repeats === 0) return 0;
  const keep = (_: number, i: number) => into[i] < 0;
  series.req = series.req.filter(keep);
  series.ref = series.ref.filter(keep);
  series.core = series.core.filter(keep);
  series.instance = series.instance.filter(keep);
  return repeats;
}

/** Where each operation's replays are numbered, beside it (kept off the exported shape). */
const replayNumbers = new WeakMap<OpCounters, Map<string, number>>();

/** The number of `replay` among `op`'s replays, adding it when new. */
function replayIndex(op: OpCounters, replay: string): number {
  let numbers = replayNumbers.get(op);
  if (!numbers) {
    numbers = new Map(op.replays.map((r, i) => [r, i]));
    replayNumbers.set(op, numbers);
  }
  let i = numbers.get(replay);
  if (i === undefined) {
    i = op.replays.push(replay) - 1;
    numbers.set(replay, i);
  }
  return i;
}

/** Adds the row `row` just read to `scan`. */
function addRow(row: CounterRowReader, scan: CounterScan, byKey: Map<number, OpCounters>): void {
  if (row.x >= CORE_SPAN || row.y >= CORE_SPAN) {
    scan.bad++;
    return;
  }
  if (row.run === 0) {
    scan.outsideOps++;
    return;
  }
  let counter = row.name;
  if (counter.charCodeAt(0) <= 57 && /^\d+$/.test(counter)) {
    counter = `#${counter}`;
    scan.numericNames++;
  }
  const key = row.slot * 2 ** 31 + row.run;
  let op = byKey.get(key);
  if (!op) {
    op = {
      device: row.slot,
      run: row.run,
      replays: [],
      riscs: new Set(),
      series: new Map(),
      repeats: 0,
    };
    byKey.set(key, op);
    scan.ops.set(`${row.slot}|${row.run}`, op);
  }
  // The last row's replay is the likely one; a map finds any other without a scan.
  const instance = op.replays[op.replays.length - 1] === row.replay
    ? op.replays.length - 1
    : replayIndex(op, row.replay);
  op.riscs.add(row.risc);
  let series = op.series.get(counter);
  if (!series) {
    series = { name: counter, req: [], ref: [], core: [], instance: [] };
    op.series.set(counter, series);
  }
  series.req.push(row.value);
  series.ref.push(row.ref);
  series.core.push(row.x * CORE_SPAN + row.y);
  series.instance.push(instance);
  scan.rows++;
}
