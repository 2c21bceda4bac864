/**
 * Synthetic device profiler logs consistent with an ops_perf_results CSV.
 *
 * From a CSV (the demo's, or any), writes a capture directory holding a new
 * `ops_perf_results_<name>.csv` and its `profile_log_device.csv`: every device operation of
 * the CSV runs on `CORE COUNT` cores whose per-core kernel spans reproduce the row's DEVICE
 * KERNEL DURATION PER CORE MIN / MAX / AVG, and the CSV written beside the log carries the
 * figures tt-metal would derive from it — DEVICE FW START/END CYCLE, FW and kernel durations,
 * per-core min/max/avg and per-RISC kernel durations — so the two agree exactly. Options make
 * it multi-device, repeat the operations as trace replays (same call count, later cycles)
 * until the log reaches a size, cut it off mid-zone, fill some cores' profiler buffers (their
 * RISCs stop recording after so many markers, as a full buffer drops the rest), and write
 * each header variant tt-metal has used. Deterministic for a seed; streams, so any size fits
 * in flat memory.
 *
 *   deno run --allow-read --allow-write scripts/make_device_log.ts \
 *     --csv fixtures/demo/performance/ops_perf_results_demo.csv --out /tmp/capture \
 *     [--bytes 1e9] [--replays N] [--devices N] [--header v2|v3|v4|v5] [--no-phase]
 *     [--clock MHz] [--meta BYTES] [--truncate-after ROWS] [--buffer-full CORES:MARKERS]
 *     [--seed N]
 *
 * @module
 */
import { parseCsvTable } from "../src/perf_report/csv_table.ts";
import { formatLogRow, HEADERS, type HeaderVariant } from "./_device_log_rows.ts";
import { random } from "./_random.ts";

/** How to generate a capture. */
export interface CaptureOptions {
  /** CHIP_FREQ[MHz] (default 1000). */
  clockMhz?: number;
  arch?: string;
  maxCores?: number;
  /** The whole first line, overriding the one built from the three above. */
  preamble?: string;
  /** Header variant (default v4, tt-metal's current 15 columns). */
  header?: HeaderVariant;
  /** false drops the boundary column (type / zone phase). */
  phase?: boolean;
  /** ", " between fields as tt-metal's writer (default true), or bare commas. */
  spaced?: boolean;
  /** Run every device operation on devices 0..n−1 (default: each row's own DEVICE ID). */
  devices?: number;
  /** Passes over the CSV's operations; passes after the first are trace replays (default 1). */
  replays?: number;
  /** Keep adding replays until the log holds at least this many bytes. */
  targetBytes?: number;
  /** Stop the log after this many data rows (mid-zone, as a capture that stopped). */
  truncateAfterRows?: number;
  /**
   * Fill the profiler buffer of each device's first `cores` worker cores: every RISC of theirs
   * records `markers` rows and drops the rest, so a kernel can start and never end there and
   * later operations have no rows on those cores. The CSV keeps every operation's figures.
   */
  bufferFull?: { cores: number; markers: number };
  crlf?: boolean;
  /** Whether the last line ends with a line break (default true). */
  finalNewline?: boolean;
  /** Approximate bytes of `meta data` per row (default 0: empty). */
  metaBytes?: number;
  seed?: number;
}

const RISCS = ["BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2"] as const;
const FW_ZONE = {
  BRISC: "BRISC-FW",
  NCRISC: "NCRISC-FW",
  TRISC_0: "TRISC-FW",
  TRISC_1: "TRISC-FW",
  TRISC_2: "TRISC-FW",
};
const KERNEL_ZONE = {
  BRISC: "BRISC-KERNEL",
  NCRISC: "NCRISC-KERNEL",
  TRISC_0: "TRISC-KERNEL",
  TRISC_1: "TRISC-KERNEL",
  TRISC_2: "TRISC-KERNEL",
};
const RISC_COLUMN = {
  BRISC: "DEVICE BRISC KERNEL DURATION [ns]",
  NCRISC: "DEVICE NCRISC KERNEL DURATION [ns]",
  TRISC_0: "DEVICE TRISC0 KERNEL DURATION [ns]",
  TRISC_1: "DEVICE TRISC1 KERNEL DURATION [ns]",
  TRISC_2: "DEVICE TRISC2 KERNEL DURATION [ns]",
};

/** Cycles as nanoseconds, as tt-metal writes them (`%.0f`: half to even). */
export function cyclesToNs(cycles: number, clockMhz: number): number {
  const x = (cycles * 1000) / clockMhz;
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
}

/** Per-core spans (cycles) whose min, max and sum hit the targets as closely as whole cycles allow. */
export function coreSpans(
  cores: number,
  min: number,
  max: number,
  avg: number,
  rnd: () => number,
): number[] {
  if (cores === 1) return [max];
  const spans = [min, max];
  const rest = cores - 2;
  if (rest === 0) return spans;
  let remaining = Math.round(avg * cores) - min - max;
  remaining = Math.min(Math.max(remaining, min * rest), max * rest);
  const base = Math.floor(remaining / rest);
  const middle = Array.from(
    { length: rest },
    (_, i) => base + (i < remaining - base * rest ? 1 : 0),
  );
  for (let i = 0; i + 1 < middle.length; i += 2) {
    const room = Math.min(middle[i] - min, max - middle[i + 1]);
    const d = Math.floor(rnd() * room);
    middle[i] -= d;
    middle[i + 1] += d;
  }
  // Interleave so the extremes are not always the first two cores.
  const at = Math.floor(rnd() * (rest + 1));
  return [...middle.slice(0, at), max, ...middle.slice(at), min];
}

/** The NoC coordinates of a core numbered in the worker grid (Wormhole-style, 8 wide). */
function nocOf(core: number): [number, number] {
  return [1 + (core % 8), 1 + Math.floor(core / 8)];
}

interface Op {
  cells: string[];
  device: boolean;
}

/**
 * The capture as text chunks of the log (yielded) and, returned at the end, the CSV that
 * agrees with it.
 */
export function* captureChunks(
  csvText: string,
  options: CaptureOptions = {},
): Generator<string, string, void> {
  const clock = options.clockMhz ?? 1000;
  const variant = options.header ?? "v4";
  const phase = options.phase ?? true;
  const spaced = options.spaced ?? true;
  const nl = options.crlf ? "\r\n" : "\n";
  const rnd = random(options.seed ?? 20261129);
  const table = parseCsvTable(csvText, "ops csv");
  const header = table.header;
  const col = (name: string) => header.indexOf(name);
  const C = {
    type: col("OP TYPE"),
    gcc: col("GLOBAL CALL COUNT"),
    device: col("DEVICE ID"),
    cores: col("CORE COUNT"),
    hostStart: col("HOST START TS"),
    hostEnd: col("HOST END TS"),
    fwStart: col("DEVICE FW START CYCLE"),
    fwEnd: col("DEVICE FW END CYCLE"),
    fwDur: col("DEVICE FW DURATION [ns]"),
    kDur: col("DEVICE KERNEL DURATION [ns]"),
    min: col("DEVICE KERNEL DURATION PER CORE MIN [ns]"),
    max: col("DEVICE KERNEL DURATION PER CORE MAX [ns]"),
    avg: col("DEVICE KERNEL DURATION PER CORE AVG [ns]"),
    gap: col("OP TO OP LATENCY [ns]"),
    traceId: col("METAL TRACE ID"),
  };
  const ops: Op[] = table.rows.map((cells) => ({
    cells,
    device: cells[C.type] === "tt_dnn_device" && /^\d+(\.0*)?$/.test(cells[C.gcc] ?? ""),
  }));
  const hostSpan = Math.max(
    1,
    ...ops.map((o) => Number(o.cells[C.hostEnd] || o.cells[C.hostStart] || 0)),
  ) - Math.min(...ops.map((o) => Number(o.cells[C.hostStart] || Infinity)));
  const num = (cells: string[], c: number) => (c < 0 || cells[c] === "" ? NaN : Number(cells[c]));
  const toCycles = (ns: number) => Math.max(1, Math.round((ns * clock) / 1000));
  const sep = spaced ? ", " : ",";
  const preamble = options.preamble ??
    `ARCH: ${options.arch ?? "wormhole_b0"}, CHIP_FREQ[MHz]: ${clock}, Max Compute Cores: ${
      options.maxCores ?? 64
    }`;
  const columns = HEADERS[variant].filter((c) => phase || (c !== "type" && c !== "zone phase"));
  const format = formatLogRow(variant, phase, sep);
  const meta = metaText(options.metaBytes ?? 0);
  const limitRows = options.truncateAfterRows ?? Infinity;
  const full = options.bufferFull;
  const markers = new Map<string, number>(); // per device, core and RISC: rows recorded
  /** Whether a full buffer drops this row of core `core` (numbered in the worker grid). */
  const dropped = (d: number, core: number, risc: string) => {
    if (full === undefined || core >= full.cores) return false;
    const key = `${d}:${core}:${risc}`;
    const n = markers.get(key) ?? 0;
    markers.set(key, n + 1);
    return n >= full.markers;
  };
  const out: string[] = [];
  let pending: string[] = [preamble, columns.join(sep)];
  let pendingBytes = 0;
  let written = 0;
  let rows = 0;
  let stopped = false;
  const emit = (line: string) => {
    if (rows >= limitRows) {
      stopped = true;
      return;
    }
    rows++;
    pending.push(line);
    pendingBytes += line.length + nl.length;
  };
  const cursors = new Map<number, number>(); // per device: the next free cycle
  const cursor = (d: number) => cursors.get(d) ?? 14_168_404_359_928 + d * 7_919_000_000;
  for (let pass = 0;; pass++) {
    const wanted = options.replays ?? 1;
    if (
      pass >= wanted &&
      (options.targetBytes === undefined || written + pendingBytes >= options.targetBytes)
    ) {
      break;
    }
    if (stopped) break;
    const traced = pass > 0;
    for (const op of ops) {
      const cells = [...op.cells];
      if (C.hostStart >= 0 && cells[C.hostStart] !== "") {
        cells[C.hostStart] = String(Number(cells[C.hostStart]) + pass * (hostSpan + 1000));
      }
      if (C.hostEnd >= 0 && cells[C.hostEnd] !== "") {
        cells[C.hostEnd] = String(Number(cells[C.hostEnd]) + pass * (hostSpan + 1000));
      }
      if (!op.device) {
        out.push(cells.map(csvCell).join(","));
        continue;
      }
      const run = Number(cells[C.gcc]);
      const devices = options.devices === undefined
        ? [Number(cells[C.device] || 0)]
        : Array.from({ length: options.devices }, (_, d) => d);
      const cores = Math.max(1, Math.round(num(cells, C.cores)) || 1);
      const kernelNs = num(cells, C.kDur);
      const maxNs = num(cells, C.max) || kernelNs || 10_000;
      const minNs = Math.min(num(cells, C.min) || maxNs * 0.8, maxNs);
      const avgNs = Math.min(Math.max(num(cells, C.avg) || (minNs + maxNs) / 2, minNs), maxNs);
      for (const d of devices) {
        const jitter = 1 + 0.04 * rnd(); // devices differ a little, so "slowest" means something
        const min = toCycles(minNs * jitter);
        const max = Math.max(min, toCycles(maxNs * jitter));
        const avg = Math.min(Math.max((avgNs * jitter * clock) / 1000, min), max);
        const spans = coreSpans(cores, min, max, avg, rnd);
        const gap = toCycles(num(cells, C.gap) || 2_000);
        const opStart = cursor(d) + gap;
        let fwEnd = opStart;
        let kFirst = Infinity;
        let kLast = -Infinity;
        const riscFirst: Record<string, number> = {};
        const riscLast: Record<string, number> = {};
        for (let core = 0; core < cores; core++) {
          const [x, y] = nocOf(core);
          const fwStart = opStart + (core === 0 ? 0 : Math.floor(rnd() * 40));
          const k0 = fwStart + 200 + Math.floor(rnd() * 100);
          const span = spans[core];
          const k1 = k0 + span;
          kFirst = Math.min(kFirst, k0);
          kLast = Math.max(kLast, k1);
          const slack = Math.floor(span / 20);
          for (const risc of RISCS) {
            // BRISC opens the core's kernel time and TRISC_2 closes it; the rest sit inside.
            const a = risc === "BRISC" ? k0 : k0 + Math.floor(rnd() * slack);
            const b = risc === "TRISC_2" ? k1 : k1 - Math.floor(rnd() * slack);
            const end = b + 100 + Math.floor(rnd() * 50);
            fwEnd = Math.max(fwEnd, end);
            riscFirst[risc] = Math.min(riscFirst[risc] ?? Infinity, a);
            riscLast[risc] = Math.max(riscLast[risc] ?? -Infinity, b);
            const trace: [string, string] = traced ? ["0", String(pass)] : ["", ""];
            const rows: [number, number, string, boolean][] = [
              [1, fwStart, FW_ZONE[risc], true],
              [2, a, KERNEL_ZONE[risc], true],
              [3, b, KERNEL_ZONE[risc], false],
              [4, end, FW_ZONE[risc], false],
            ];
            for (const [timer, t, zone, start] of rows) {
              if (!dropped(d, core, risc)) {
                emit(format(d, x, y, risc, timer, t, run, trace, zone, start, meta));
              }
            }
          }
        }
        cursors.set(d, fwEnd);
        const row = [...cells];
        const set = (c: number, v: number | string) => {
          if (c >= 0) row[c] = String(v);
        };
        set(C.device, d);
        set(C.fwStart, opStart);
        set(C.fwEnd, fwEnd);
        set(C.fwDur, cyclesToNs(fwEnd - opStart, clock));
        set(C.kDur, cyclesToNs(kLast - kFirst, clock));
        set(C.min, cyclesToNs(Math.min(...spans), clock));
        set(C.max, cyclesToNs(Math.max(...spans), clock));
        set(C.avg, cyclesToNs(spans.reduce((s, v) => s + v, 0) / spans.length, clock));
        for (const risc of RISCS) {
          set(col(RISC_COLUMN[risc]), cyclesToNs(riscLast[risc] - riscFirst[risc], clock));
        }
        if (traced) set(C.traceId, 0);
        out.push(row.map(csvCell).join(","));
        if (pendingBytes >= 1 << 20) {
          const chunk = pending.join(nl) + nl;
          written += chunk.length;
          pending = [];
          pendingBytes = 0;
          yield chunk;
        }
      }
    }
  }
  const tail = pending.join(nl);
  if (pending.length > 0) yield options.finalNewline === false ? tail : tail + nl;
  return [header.map(csvCell).join(","), ...out].join("\n") + "\n";
}

/** A small capture held in memory: the log and the CSV that agrees with it. */
export function generateCapture(
  csvText: string,
  options: CaptureOptions = {},
): { csv: string; log: string } {
  const chunks: string[] = [];
  const it = captureChunks(csvText, options);
  while (true) {
    const r = it.next();
    if (r.done) return { csv: r.value, log: chunks.join("") };
    chunks.push(r.value);
  }
}

/**
 * Writes `ops_perf_results_<name>.csv` and `profile_log_device.csv` into `dir`, streaming the
 * log. Returns the log's size in bytes.
 */
export async function writeCapture(
  dir: string,
  csvText: string,
  options: CaptureOptions = {},
  name = "generated",
): Promise<number> {
  await Deno.mkdir(dir, { recursive: true });
  const encoder = new TextEncoder();
  using file = await Deno.open(`${dir}/profile_log_device.csv`, {
    write: true,
    create: true,
    truncate: true,
  });
  let bytes = 0;
  const it = captureChunks(csvText, options);
  while (true) {
    const r = it.next();
    if (r.done) {
      await Deno.writeTextFile(`${dir}/ops_perf_results_${name}.csv`, r.value);
      return bytes;
    }
    const data = encoder.encode(r.value);
    for (let off = 0; off < data.length;) off += await file.write(data.subarray(off));
    bytes += data.length;
  }
}

function csvCell(v: string): string {
  return /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** A tt-metal-like meta data cell of about `bytes` bytes: semicolons for commas, bare quotes. */
function metaText(bytes: number): string {
  if (bytes <= 0) return "";
  const parts: string[] = [];
  let n = 2;
  for (let k = 0; n < bytes; k++) {
    const part = `"k${k}":${(k * 7919) % 100000}`;
    parts.push(part);
    n += part.length + 1;
  }
  return `{${parts.join(";")}}`;
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const csvPath = arg("csv") ?? "fixtures/demo/performance/ops_perf_results_demo.csv";
  const outDir = arg("out");
  if (!outDir) {
    console.error("usage: make_device_log.ts --csv <ops_perf_results.csv> --out <dir> [options]");
    Deno.exit(2);
  }
  const numberArg = (name: string) => (arg(name) === undefined ? undefined : Number(arg(name)));
  const bytes = await writeCapture(outDir, await Deno.readTextFile(csvPath), {
    targetBytes: numberArg("bytes"),
    replays: numberArg("replays"),
    devices: numberArg("devices"),
    header: arg("header") as HeaderVariant | undefined,
    phase: !Deno.args.includes("--no-phase"),
    clockMhz: numberArg("clock"),
    metaBytes: numberArg("meta"),
    truncateAfterRows: numberArg("truncate-after"),
    bufferFull: arg("buffer-full") === undefined ? undefined : {
      cores: Number(arg("buffer-full")!.split(":")[0]),
      markers: Number(arg("buffer-full")!.split(":")[1]),
    },
    seed: numberArg("seed"),
  });
  console.error(`wrote ${outDir}/profile_log_device.csv (${bytes} bytes)`);
}
