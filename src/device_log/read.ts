/**
 * Reads `profile_log_device.csv` whole, once: opened again only as the very file load_report
 * probed (`reopen`), `read()` into one fixed buffer per slice, a byte scanner over the lines,
 * and the tallies the device-log tools need filled as the rows go by. Memory stays flat in the
 * file's size: no string of the file, no object per line. The preamble and header are the ones
 * load_report's probe read from the same file (checked by its identity), so they are parsed in
 * one place. load_report only sampled a large log, so this read is the one that checks every
 * byte is UTF-8 (refusing at the first line that is not) and that counts devices exactly; it
 * says how many bytes it has read as it goes.
 *
 * @module
 */
import type { CsvTable } from "../perf_report/mod.ts";
import { windowTable } from "./_windows.ts";
import {
  DEVICE_LOG_NAME,
  DEVICE_LOG_REQUIRED_COLUMNS,
  type DeviceLogProbe,
  notUtf8,
} from "./probe.ts";
import { reopen } from "../kit/report_file.ts";
import type { Progress } from "../kit/progress.ts";
import type { FieldLayout } from "./_fields.ts";
import {
  scanSlice,
  SliceChanged,
  type SliceMessage,
  SliceNotUtf8,
  type SliceRequest,
  type SliceResult,
} from "./_slice.ts";
import { mergeSlices } from "./_merge.ts";
import type { DeviceLogSummary } from "./summary.ts";

/** The read buffer: big enough for any real line, small enough to be nothing next to the file. */
export const READ_BUFFER_BYTES = 4 << 20;

/** The log changed between load_report's look at it and this read. */
export class DeviceLogChanged extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeviceLogChanged";
  }
}

/** A line of the log is not UTF-8; the message names the first such line. */
export class DeviceLogNotUtf8 extends Error {
  /** The file's 1-based line. */
  readonly line: number;

  constructor(line: number) {
    super(notUtf8(`the first invalid byte is on line ${line}`));
    this.name = "DeviceLogNotUtf8";
    this.line = line;
  }
}

/** What a read's progress counts. */
export const READ_PROGRESS_MESSAGE = `bytes of ${DEVICE_LOG_NAME} read`;

/**
 * Where each column the tools read sits in the header, or the names it lacks. The boundary
 * column is `type` when present, else `zone phase`.
 *
 * @example
 * ```ts
 * import { fieldLayout } from "./read.ts";
 * const v2 = "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], " +
 *   "stat value, run ID, run host ID,  zone name, zone phase, source line, source file";
 * const layout = fieldLayout(v2.split(",").map((c) => c.trim()));
 * if (!("zone" in layout) || layout.zone !== 9 || layout.phase !== 10) throw new Error();
 * ```
 */
export function fieldLayout(columns: readonly string[]): FieldLayout | { missing: string[] } {
  const at = (name: string) => columns.indexOf(name);
  const names = {
    slot: "PCIe slot",
    x: "core_x",
    y: "core_y",
    risc: "RISC processor type",
    time: "time[cycles since reset]",
    run: "run host ID",
    zone: "zone name",
  };
  const missing = DEVICE_LOG_REQUIRED_COLUMNS.filter((n) => at(n) < 0);
  if (missing.length > 0) return { missing };
  const phase = at("type") >= 0 ? at("type") : at("zone phase");
  const layout = {
    slot: at(names.slot),
    x: at(names.x),
    y: at(names.y),
    risc: at(names.risc),
    time: at(names.time),
    run: at(names.run),
    zone: at(names.zone),
    phase,
    last: 0,
  };
  layout.last = Math.max(
    layout.slot,
    layout.x,
    layout.y,
    layout.risc,
    layout.time,
    layout.run,
    layout.zone,
    phase,
  );
  return layout;
}

/** How to read. */
export interface ReadOptions {
  /** The read buffer's size (default READ_BUFFER_BYTES). */
  bufferBytes?: number;
  /** Slices to read the data part in (default: one per core, up to MAX_SLICES, for big logs). */
  slices?: number;
  /** Read slices after the first on worker threads (default true). */
  workers?: boolean;
  /** Stops the read (workers terminated, buffers dropped); it then rejects with the reason. */
  signal?: AbortSignal;
  /** Hears the bytes read so far of the file's size, as slices read them. */
  progress?: Progress;
}

/** Below this many bytes a log is read in one slice: a worker costs more than it saves. */
export const PARALLEL_MIN_BYTES = 64 << 20;

/** Never more slices than this. */
export const MAX_SLICES = 4;

/**
 * Reads the log `probe` describes. With `table` (the handle's performance CSV) every row's
 * kernel spans are placed too. A big log is cut into line-aligned slices read on as many
 * cores as the machine has (the first on this thread), then merged exactly as one pass would
 * read it. Throws DeviceLogChanged when the file is no longer the one probed, DeviceLogNotUtf8
 * at its first line that is not UTF-8, and an Error naming missing columns when the header
 * lacks one.
 */
export async function readDeviceLog(
  probe: DeviceLogProbe,
  table: CsvTable | null,
  options: ReadOptions = {},
): Promise<DeviceLogSummary> {
  const layout = fieldLayout(probe.columns);
  if ("missing" in layout) {
    throw new Error(`${DEVICE_LOG_NAME} is missing columns: ${layout.missing.join(", ")}`);
  }
  const bufferBytes = options.bufferBytes ?? READ_BUFFER_BYTES;
  const size = probe.identity.size;
  let dataStart: number;
  let starts: number[];
  {
    const opened = await reopen(probe.identity);
    if ("changed" in opened) throw new DeviceLogChanged(opened.changed);
    using file = opened.file;
    dataStart = await afterLines(file, 0, 2, size);
    const wanted = options.slices ??
      (size - dataStart >= PARALLEL_MIN_BYTES
        ? Math.min(MAX_SLICES, Math.max(1, navigator.hardwareConcurrency || 1))
        : 1);
    starts = [dataStart];
    for (let i = 1; i < wanted; i++) {
      const nominal = dataStart + Math.floor(((size - dataStart) * i) / wanted);
      const aligned = nominal <= starts[starts.length - 1]
        ? starts[starts.length - 1]
        : await afterLines(file, nominal - 1, 1, size);
      if (aligned > starts[starts.length - 1] && aligned < size) starts.push(aligned);
    }
  }
  // The CSV's windows, worked out once here rather than by every slice.
  const windows = table && layout.phase >= 0 ? windowTable(table) : null;
  const requests: SliceRequest[] = starts.map((start, i) => ({
    path: probe.path,
    identity: probe.identity,
    layout,
    start,
    end: starts[i + 1] ?? size,
    windows,
    bufferBytes,
  }));
  const useWorkers = options.workers ?? true;
  const signal = options.signal;
  signal?.throwIfAborted();
  // Stops every slice when the caller aborts, or when one slice fails (the rest are moot).
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal!.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const progress = options.progress;
  const read = new Array<number>(requests.length).fill(0);
  const heard = (i: number) => (bytes: number) => {
    read[i] = bytes;
    if (progress) {
      progress.report(dataStart + read.reduce((a, b) => a + b, 0), size, READ_PROGRESS_MESSAGE);
    }
  };
  const others = requests.slice(1).map((r, i) =>
    useWorkers ? inWorker(r, stop.signal, heard(i + 1)) : null
  );
  // A slice that fails leaves the others to settle unobserved: they reject quietly.
  for (const o of others) o?.catch(() => {});
  const results: SliceResult[] = [];
  try {
    for (let i = 0; i < requests.length; i++) {
      const pending = i === 0 ? null : others[i - 1];
      try {
        results.push(
          pending ? await pending : await scanSlice(requests[i], stop.signal, heard(i)),
        );
      } catch (e) {
        if (!(e instanceof SliceNotUtf8)) throw e;
        // Its line in the file: after the preamble, the header and the slices before it.
        throw new DeviceLogNotUtf8(2 + results.reduce((n, r) => n + r.lines, 0) + e.line);
      }
    }
  } catch (e) {
    stop.abort(e);
    if (e instanceof SliceChanged) throw new DeviceLogChanged(e.message);
    throw e;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  const summary = await mergeSlices(results, {
    identity: probe.identity,
    capture: probe.capture,
    clockMhz: probe.clockMhz,
    boundaryColumn: layout.phase < 0 ? null : probe.columns[layout.phase] as "type" | "zone phase",
    windows,
    linesBefore: 2,
    bytesBefore: dataStart,
  });
  if (summary.bytes !== size) {
    throw new DeviceLogChanged(
      `${probe.path} changed while it was read (${summary.bytes} bytes read, ${size} expected)`,
    );
  }
  return summary;
}

/** The offset just after the `count`-th line break at or after `from` (or the file's end). */
async function afterLines(
  file: Deno.FsFile,
  from: number,
  count: number,
  size: number,
): Promise<number> {
  await file.seek(from, Deno.SeekMode.Start);
  const buf = new Uint8Array(64 * 1024);
  let offset = from;
  while (count > 0) {
    const n = await file.read(buf);
    if (n === null) return size;
    let p = 0;
    while (count > 0) {
      const nl = buf.subarray(p, n).indexOf(10);
      if (nl < 0) break;
      p += nl + 1;
      count--;
    }
    offset += count === 0 ? p : n;
  }
  return offset;
}

/**
 * Reads a slice on a worker thread; a worker that cannot start reads it here instead. An
 * abort terminates the worker at once.
 */
function inWorker(
  request: SliceRequest,
  signal: AbortSignal,
  onBytes: (bytes: number) => void,
): Promise<SliceResult> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL("./_slice_worker.ts", import.meta.url).href, { type: "module" });
    } catch {
      scanSlice(request, signal, onBytes).then(resolve, reject);
      return;
    }
    const onAbort = () => {
      worker.terminate();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (e: MessageEvent) => {
      const m = e.data as SliceMessage;
      if ("bytes" in m) {
        onBytes(m.bytes);
        return;
      }
      signal.removeEventListener("abort", onAbort);
      worker.terminate();
      if (m.ok) resolve(m.result);
      else if (m.notUtf8 !== null) reject(new SliceNotUtf8(m.notUtf8));
      else reject(m.changed ? new SliceChanged(m.message) : new Error(m.message));
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      signal.removeEventListener("abort", onAbort);
      worker.terminate();
      scanSlice(request, signal, onBytes).then(resolve, reject);
    };
    worker.postMessage(request);
  });
}
