/**
 * Synthetic device logs with Tensix performance-counter rows of known ratios.
 *
 * Builds on make_device_log.ts (whose output is unchanged): its capture — an ops CSV and the
 * zone rows that agree with it — gets, for every device operation instance and every core
 * the operation ran on, one counter row per counter, written as tt-metal writes them: a
 * `TS_DATA` row with timer_id 9090 whose `meta data` is
 * `{"counter type":"<NAME>";"ref cnt":<ref>;"value":<req>}` (commas as semicolons), after the
 * core's firmware end. Each counter's value is round(ref × ratio) for the ratio the caller
 * gives per site, so tests know every req ÷ ref exactly.
 *
 *   deno run --allow-read --allow-write scripts/make_counter_log.ts \
 *     --csv fixtures/demo/performance/ops_perf_results_demo.csv --out /tmp/counters \
 *     [--replays N] [--devices N] [--clock MHz] [--seed N]
 *
 * @module
 */
import { parseCsvTable } from "../src/perf_report/csv_table.ts";
import { type CaptureOptions, generateCapture } from "./make_device_log.ts";

/** Where one core's counters of one operation instance are read. */
export interface CounterSite {
  device: number;
  /** GLOBAL CALL COUNT (run host ID). */
  run: number;
  /** 0 for the eager pass, then the trace replay number. */
  replay: number;
  /** The core's number in the operation (0 … CORE COUNT − 1) and its NoC coordinates. */
  core: number;
  x: number;
  y: number;
  /** The operation's index among the CSV's device operations, and its OP CODE. */
  op: number;
  opCode: string;
}

/** How a counter row is written. */
export interface CounterRowStyle {
  /** Field separator (default ", " as tt-metal's writer). */
  sep?: string;
  /** The type cell (default TS_DATA). */
  type?: string;
  /** The RISC writing the rows (default BRISC, which reads them out in current tt-metal). */
  risc?: string;
  /** How the meta data is quoted: as tt-metal writes it (default), or as a quoted CSV cell. */
  quoting?: "bare" | "csv";
}

/** One v4 counter row. */
export function counterRow(
  site: { device: number; x: number; y: number; run: number; replay: number },
  name: string,
  ref: number,
  value: number,
  time: number,
  style: CounterRowStyle = {},
): string {
  const sep = style.sep ?? ", ";
  const json = `{"counter type":"${name}";"ref cnt":${ref};"value":${value}}`;
  const meta = style.quoting === "csv" ? `"${json.replaceAll('"', '""')}"` : json;
  const trace = site.replay > 0 ? ["0", String(site.replay)] : ["", ""];
  return [
    site.device,
    site.x,
    site.y,
    style.risc ?? "BRISC",
    9090,
    time,
    0,
    site.run,
    trace[0],
    trace[1],
    "",
    style.type ?? "TS_DATA",
    0,
    "",
    meta,
  ].join(sep);
}

/** What to count: counter name → req ÷ ref at a site, and the ref (cycles) there. */
export interface CounterOptions extends CaptureOptions {
  counters?: (site: CounterSite) => Record<string, number>;
  ref?: (site: CounterSite) => number;
  style?: CounterRowStyle;
}

/** The NoC coordinates make_device_log.ts gives core `i` of an operation. */
export function nocOfCore(i: number): [number, number] {
  return [1 + (i % 8), 1 + Math.floor(i / 8)];
}

/**
 * The math thread's instruction-buffer states (req ÷ ref) the users' talk measured on gate+up
 * (page 52): MATH 91.99 %, CFG 4.95 %, SYNC 1.16 %, stalled 1.69 %, the rest 0.
 */
export const TALK_MATH_THREAD: Readonly<Record<string, number>> = {
  CFG_INSTRN_AVAILABLE_1: 0.0495,
  SYNC_INSTRN_AVAILABLE_1: 0.0116,
  THCON_INSTRN_AVAILABLE_1: 0,
  MOVE_INSTRN_AVAILABLE_1: 0,
  FPU_INSTRN_AVAILABLE_1: 0.9199,
  UNPACK_INSTRN_AVAILABLE_1: 0,
  PACK_INSTRN_AVAILABLE_1: 0,
  THREAD_STALLS_1: 0.0169,
};

/** A plausible Blackhole-like counter set whose FPU utilisation varies by operation. */
export function defaultCounters(site: CounterSite): Record<string, number> {
  const fpu = 0.3 + ((site.op * 37) % 60) / 100 + ((site.core * 7) % 5) / 1000;
  return {
    FPU_COUNTER: fpu,
    SFPU_COUNTER: 0,
    MATH_COUNTER: Math.min(1, fpu + 0.011),
    MATH_INSTRN_AVAILABLE: Math.min(1, fpu + 0.013),
    MATH_INSTRN_STARTED: Math.min(1, fpu + 0.01),
    ...TALK_MATH_THREAD,
  };
}

/**
 * A capture held in memory: make_device_log.ts's CSV and log, with counter rows appended to
 * the log for every device row of the CSV (each a device's operation instance).
 */
export function generateCounterCapture(
  csvText: string,
  options: CounterOptions = {},
): { csv: string; log: string } {
  const { csv, log } = generateCapture(csvText, options);
  const table = parseCsvTable(csv, "generated.csv");
  const col = (n: string) => table.header.indexOf(n);
  const C = {
    type: col("OP TYPE"),
    code: col("OP CODE"),
    gcc: col("GLOBAL CALL COUNT"),
    device: col("DEVICE ID"),
    cores: col("CORE COUNT"),
    fwEnd: col("DEVICE FW END CYCLE"),
  };
  const counters = options.counters ?? defaultCounters;
  const refOf = options.ref ?? ((s: CounterSite) => 100_000 + s.core * 1_000 + s.op * 10);
  const seen = new Map<string, number>(); // (device, run) → instances so far
  const opIndex = new Map<number, number>(); // run → index among device operations
  const lines: string[] = [];
  for (const cells of table.rows) {
    if (cells[C.type] !== "tt_dnn_device" || !/^\d+(\.0*)?$/.test(cells[C.gcc] ?? "")) continue;
    const run = Number(cells[C.gcc]);
    const device = Number(cells[C.device] || 0);
    const key = `${device}|${run}`;
    const replay = seen.get(key) ?? 0;
    seen.set(key, replay + 1);
    if (!opIndex.has(run)) opIndex.set(run, opIndex.size);
    const cores = Math.max(1, Math.round(Number(cells[C.cores])) || 1);
    const time = Number(cells[C.fwEnd]) + 10;
    for (let core = 0; core < cores; core++) {
      const [x, y] = nocOfCore(core);
      const site: CounterSite = {
        device,
        run,
        replay,
        core,
        x,
        y,
        op: opIndex.get(run)!,
        opCode: cells[C.code] ?? "",
      };
      const ref = refOf(site);
      let i = 0;
      for (const [name, ratio] of Object.entries(counters(site))) {
        const value = Math.round(ref * ratio);
        lines.push(counterRow(site, name, ref, value, time + i++, options.style));
      }
    }
  }
  const nl = options.crlf ? "\r\n" : "\n";
  const body = log.endsWith(nl) || lines.length === 0 ? log : log + nl;
  return { csv, log: lines.length === 0 ? log : body + lines.join(nl) + nl };
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const num = (name: string) => (arg(name) === undefined ? undefined : Number(arg(name)));
  const outDir = arg("out");
  if (!outDir) {
    console.error("usage: make_counter_log.ts --csv <ops_perf_results.csv> --out <dir> [options]");
    Deno.exit(2);
  }
  const source = await Deno.readTextFile(
    arg("csv") ?? "fixtures/demo/performance/ops_perf_results_demo.csv",
  );
  const { csv, log } = generateCounterCapture(source, {
    replays: num("replays"),
    devices: num("devices"),
    clockMhz: num("clock"),
    seed: num("seed"),
  });
  await Deno.mkdir(outDir, { recursive: true });
  await Deno.writeTextFile(`${outDir}/ops_perf_results_generated.csv`, csv);
  await Deno.writeTextFile(`${outDir}/profile_log_device.csv`, log);
  console.error(`wrote ${outDir}/profile_log_device.csv (${log.length} bytes)`);
}
