/**
 * Small captures whose timeline is known in closed form: a performance CSV and the
 * `profile_log_device.csv` that agrees with it, written from an explicit list of operations —
 * each with its firmware window and, per core, each RISC's kernel interval in cycles — so a
 * test can state the busy time, gaps, overlaps, per-core utilisation and core states it
 * expects by arithmetic on the same numbers.
 *
 * @module
 */
import { V21_COLUMNS } from "./make_perf_fixtures.ts";

/** The RISCs of a Tensix core as the log names them. */
export type Risc = "BRISC" | "NCRISC" | "TRISC_0" | "TRISC_1" | "TRISC_2";

const KERNEL_ZONE: Record<Risc, string> = {
  BRISC: "BRISC-KERNEL",
  NCRISC: "NCRISC-KERNEL",
  TRISC_0: "TRISC-KERNEL",
  TRISC_1: "TRISC-KERNEL",
  TRISC_2: "TRISC-KERNEL",
};
const FW_ZONE: Record<Risc, string> = {
  BRISC: "BRISC-FW",
  NCRISC: "NCRISC-FW",
  TRISC_0: "TRISC-FW",
  TRISC_1: "TRISC-FW",
  TRISC_2: "TRISC-FW",
};

/**
 * One core of an operation: kernel intervals per RISC, in cycles from the capture's base. A
 * null end writes a kernel start that never ends (a log cut mid-kernel, a full buffer); a null
 * start, an end without its start.
 */
export interface TimelineCore {
  x: number;
  y: number;
  kernels: Partial<Record<Risc, [number, number] | [number, null] | [null, number]>>;
}

/** One device operation. */
export interface TimelineOp {
  code: string;
  call: number;
  device?: number;
  /** DEVICE FW START and END CYCLE, from the capture's base; every core's firmware zone too. */
  fw: [number, number];
  cores: TimelineCore[];
  /** METAL TRACE REPLAY SESSION ID (a trace replay), or none for an eager op. */
  replay?: number;
  /** SUB DEVICE ID, or blank. */
  subDevice?: number;
  /** CORE COUNT when it is not the cores listed (a log that lost some). */
  coreCount?: number;
}

/** A signpost row between operations. */
export interface TimelineSignpost {
  signpost: string;
}

/** What to write. */
export interface TimelineOptions {
  clockMhz?: number;
  /** The cycle count every offset is from (default 10¹³, near real captures). */
  base?: bigint;
  /** Cores that recorded firmware zones in each operation but ran no kernel (idle). */
  idleCores?: { x: number; y: number }[];
  /** AVAILABLE WORKER CORE COUNT (default 64). */
  workerCores?: number;
}

/** tt-metal's v2.1 columns the port reads, and the trace and sub-device columns. */
const CSV_HEADER = [
  ...V21_COLUMNS,
  "METAL TRACE ID",
  "METAL TRACE REPLAY SESSION ID",
  "SUB DEVICE ID",
];

const LOG_HEADER =
  "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, " +
  "run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data";

/**
 * The CSV and log of `items` in order (signposts where they stand). Kernel durations in the
 * CSV are the op's first kernel start to last kernel end, as tt-metal derives them.
 *
 * @example
 * ```ts
 * import { timelineCapture } from "./_timeline_capture.ts";
 * const { csv, log } = timelineCapture([
 *   { code: "LayerNorm", call: 1024, fw: [0, 100], cores: [{ x: 1, y: 1, kernels: { TRISC_1: [10, 90] } }] },
 * ]);
 * if (!csv.includes("LayerNorm") || !log.includes("TRISC-KERNEL")) throw new Error();
 * ```
 */
export function timelineCapture(
  items: readonly (TimelineOp | TimelineSignpost)[],
  options: TimelineOptions = {},
): { csv: string; log: string } {
  const clock = options.clockMhz ?? 1000;
  const base = options.base ?? 10_000_000_000_000n;
  const at = (c: number) => String(base + BigInt(c));
  const ns = (c: number) => String(Math.round((c * 1000) / clock));
  const csv = [CSV_HEADER.join(",")];
  const log = [`ARCH: wormhole_b0, CHIP_FREQ[MHz]: ${clock}, Max Compute Cores: 64`, LOG_HEADER];
  let host = 1_000_000;
  for (const item of items) {
    host += 1000;
    const cells: Record<string, string> = { "HOST START TS": String(host) };
    if ("signpost" in item) {
      cells["OP CODE"] = item.signpost;
      cells["OP TYPE"] = "signpost";
      csv.push(CSV_HEADER.map((h) => cells[h] ?? "").join(","));
      continue;
    }
    const device = item.device ?? 0;
    let kFirst = Infinity;
    let kLast = -Infinity;
    for (const c of item.cores) {
      for (const [s, e] of Object.values(c.kernels)) {
        for (const t of [s, e]) {
          if (t === null) continue;
          kFirst = Math.min(kFirst, t);
          kLast = Math.max(kLast, t);
        }
      }
    }
    Object.assign(cells, {
      "OP CODE": item.code,
      "OP TYPE": "tt_dnn_device",
      "GLOBAL CALL COUNT": String(item.call),
      "DEVICE ID": String(device),
      "DEVICE ARCH": "wormhole_b0",
      ATTRIBUTES: "{}",
      "CORE COUNT": String(item.coreCount ?? item.cores.length),
      "AVAILABLE WORKER CORE COUNT": String(options.workerCores ?? 64),
      "OP TO OP LATENCY [ns]": "0",
      "DEVICE KERNEL DURATION [ns]": ns(kLast - kFirst),
      "DEVICE FW START CYCLE": at(item.fw[0]),
      "DEVICE FW END CYCLE": at(item.fw[1]),
      "DEVICE FW DURATION [ns]": ns(item.fw[1] - item.fw[0]),
      "METAL TRACE ID": item.replay === undefined ? "" : "1",
      "METAL TRACE REPLAY SESSION ID": item.replay === undefined ? "" : String(item.replay),
      "INPUT_0_DATATYPE": "BFLOAT16",
      "INPUT_0_MEMORY": "DEV_0_L1_INTERLEAVED",
      "OUTPUT_0_DATATYPE": "BFLOAT16",
      "OUTPUT_0_MEMORY": "DEV_0_L1_INTERLEAVED",
      "SUB DEVICE ID": item.subDevice === undefined ? "" : String(item.subDevice),
    });
    csv.push(CSV_HEADER.map((h) => cells[h] ?? "").join(","));
    const trace = item.replay === undefined ? ", " : `1, ${item.replay}`;
    const row = (x: number, y: number, risc: Risc, t: number, zone: string, type: string) =>
      `${device}, ${x}, ${y}, ${risc}, 1, ${
        at(t)
      }, 0, ${item.call}, ${trace}, ${zone}, ${type}, 1, k.cc, `;
    const cores: TimelineCore[] = [
      ...item.cores,
      ...(options.idleCores ?? []).map((c) => ({ ...c, kernels: {} })),
    ];
    for (const c of cores) {
      for (const risc of ["BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2"] as Risc[]) {
        const k = c.kernels[risc];
        // Every core's firmware zone spans the op's window on BRISC, so FW START/END agree.
        if (risc === "BRISC" || k) {
          log.push(row(c.x, c.y, risc, item.fw[0], FW_ZONE[risc], "ZONE_START"));
        }
        if (k && k[0] !== null) {
          log.push(row(c.x, c.y, risc, k[0], KERNEL_ZONE[risc], "ZONE_START"));
        }
        if (k && k[1] !== null) log.push(row(c.x, c.y, risc, k[1], KERNEL_ZONE[risc], "ZONE_END"));
        if (risc === "BRISC" || k) {
          log.push(row(c.x, c.y, risc, item.fw[1], FW_ZONE[risc], "ZONE_END"));
        }
      }
    }
  }
  return { csv: csv.join("\n") + "\n", log: log.join("\n") + "\n" };
}
