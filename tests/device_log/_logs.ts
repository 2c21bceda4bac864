/** Test support: small device logs written by hand, and reading them as a handle would. */
import { probeDeviceLog, type SampleSize } from "../../src/device_log/probe.ts";
import { readDeviceLog } from "../../src/device_log/read.ts";
import type { DeviceLogSummary } from "../../src/device_log/summary.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";

/** tt-metal's current preamble, at 1000 MHz. */
export const PREAMBLE = "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64";

/** tt-metal's current 15-column header, as its writer spaces it. */
export const V4 =
  "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, " +
  "run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data";

/** One V4 row. */
export function v4(
  slot: number | string,
  x: number | string,
  y: number | string,
  risc: string,
  time: number | string | bigint,
  run: number | string,
  zone: string,
  type: string,
  meta = "",
): string {
  return `${slot},${x},${y},${risc},1,${time},0,${run},,,${zone},${type},10,kernel.cc,${meta}`;
}

/** A V4 log from rows (preamble and header added). */
export function v4Log(rows: string[], preamble = PREAMBLE): string {
  return [preamble, V4, ...rows].join("\n") + "\n";
}

/** Writes `text` as `profile_log_device.csv` in `dir` and reads it whole. */
export async function readLog(
  dir: string,
  text: string | Uint8Array,
  options: {
    bufferBytes?: number;
    csv?: string;
    slices?: number;
    workers?: boolean;
    /** What the probe reads first (default: as load_report does). */
    sample?: SampleSize;
  } = {},
): Promise<DeviceLogSummary> {
  const path = `${dir}/profile_log_device.csv`;
  if (typeof text === "string") await Deno.writeTextFile(path, text);
  else await Deno.writeFile(path, text);
  const probe = await probeDeviceLog(path, undefined, options.sample);
  if (!probe) throw new Error("no log");
  const table = options.csv ? parseCsvTable(options.csv, "x.csv") : null;
  return readDeviceLog(probe, table, {
    bufferBytes: options.bufferBytes,
    slices: options.slices,
    workers: options.workers,
  });
}

/** The totals of one zone on one RISC. */
export function zoneOf(s: DeviceLogSummary, zone: string, risc = "BRISC") {
  const z = s.zones.find((z) => z.zone === zone && z.risc === risc);
  if (!z) throw new Error(`no ${zone} on ${risc} among ${JSON.stringify(s.zones)}`);
  return z;
}
