/**
 * The devices behind a merged row. tt-perf-report merges a multi-device report into one row per
 * operation — the slowest device's row, collectives averaged — so a device that took twice as
 * long as the others is hidden in the merged figure. This gives each merged row the spread of
 * its per-device device time (fastest and slowest, and which device), and the caveat an answer
 * carries when the devices differ by more than a stated ratio.
 *
 * @module
 */
import { generatePerfReport, type PerfReport, type PerfRow } from "../perf_report/mod.ts";
import { round3, sig3 } from "../kit/rounding.ts";
import type { ReportCall } from "../session/handles.ts";
import { performanceTable } from "./performance.ts";
import { derivedOf } from "../kit/derived.ts";

/** A merged row's per-device device time. */
export interface DeviceSpread {
  min_us: number;
  min_device: number;
  max_us: number;
  max_device: number;
  devices: number;
}

/** Devices whose device times differ by more than this ratio (slowest / fastest) are said. */
export const DEVICE_SPREAD_RATIO = 1.2;

const KEY = "perf-report-unmerged";

/** Each CSV row's device and device time, from the unmerged report (kept per handle). */
function perDevice(call: ReportCall): Map<number, { device: number; us: number }> {
  const cached = call.report.cache.get(KEY) as Map<number, { device: number; us: number }>;
  if (cached) return cached;
  const unmerged = generatePerfReport(performanceTable(call), { mergeDevices: false });
  const map = new Map<number, { device: number; us: number }>();
  for (const r of unmerged.rows) {
    if (r.device !== null && r.device_time !== null && Number.isFinite(r.device_time)) {
      map.set(r.id, { device: r.device, us: r.device_time });
    }
  }
  call.report.cache.set(KEY, map);
  return map;
}

/** The spread of each merged row of `perf` over two or more devices, keyed by row id. */
export function deviceSpreads(call: ReportCall, perf: PerfReport): Map<number, DeviceSpread> {
  return derivedOf(perf, "device-spreads", () => {
    const out = new Map<number, DeviceSpread>();
    if (!perf.rows.some((r) => (r.merged_ids?.length ?? 0) > 1)) return out;
    const times = perDevice(call);
    for (const row of perf.rows) {
      const spread = spreadOf(row, times);
      if (spread) out.set(row.id, spread);
    }
    return out;
  });
}

function spreadOf(
  row: PerfRow,
  times: Map<number, { device: number; us: number }>,
): DeviceSpread | null {
  const ids = row.merged_ids ?? [];
  if (ids.length < 2) return null;
  let min: { device: number; us: number } | null = null;
  let max: { device: number; us: number } | null = null;
  let n = 0;
  for (const id of ids) {
    const t = times.get(id);
    if (!t) continue;
    n++;
    if (!min || t.us < min.us) min = t;
    if (!max || t.us > max.us) max = t;
  }
  if (!min || !max || n < 2) return null;
  return {
    min_us: round3(min.us)!,
    min_device: min.device,
    max_us: round3(max.us)!,
    max_device: max.device,
    devices: n,
  };
}

/**
 * The caveat of merged rows whose devices differ by more than DEVICE_SPREAD_RATIO, naming the
 * widest (by time lost to the slowest device), or null.
 */
export function deviceSpreadCaveat(
  call: ReportCall,
  perf: PerfReport,
  spreads: ReadonlyMap<number, DeviceSpread>,
): string | null {
  return derivedOf(perf, "device-spread-caveat", () => spreadCaveat(call, perf, spreads));
}

function spreadCaveat(
  call: ReportCall,
  perf: PerfReport,
  spreads: ReadonlyMap<number, DeviceSpread>,
): string | null {
  if (spreads.size === 0) return null;
  const wide = perf.rows.filter((r) => {
    const s = spreads.get(r.id);
    return s !== undefined && s.min_us > 0 && s.max_us / s.min_us > DEVICE_SPREAD_RATIO;
  });
  if (wide.length === 0) return null;
  const top = wide.reduce((a, b) => {
    const sa = spreads.get(a.id)!;
    const sb = spreads.get(b.id)!;
    return sb.max_us - sb.min_us > sa.max_us - sa.min_us ? b : a;
  });
  const s = spreads.get(top.id)!;
  const times = perDevice(call);
  const each = (top.merged_ids ?? []).map((id) => times.get(id)).filter((t) => t !== undefined)
    .sort((a, b) => a.device - b.device).map((t) => `${t.device}: ${round3(t.us)}`).join(", ");
  return `Devices differ: on ${wide.length} merged row${wide.length === 1 ? "" : "s"} the ` +
    `slowest device took over ${DEVICE_SPREAD_RATIO}× the fastest; the widest, ` +
    `${top.op_code || top.raw_op_code} (id ${top.id}), took ${s.max_us} µs on device ` +
    `${s.max_device} and ${s.min_us} µs on device ${s.min_device} ` +
    `(${
      sig3(s.max_us / s.min_us)
    }×; µs by device ${each}). Merged rows show the slowest device (device_spread ` +
    `has each row's fastest and slowest); pass device (e.g. ${s.min_device}) to read one ` +
    "device's own rows.";
}
