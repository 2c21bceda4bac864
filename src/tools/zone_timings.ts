/**
 * `zone_timings`: per zone and RISC, how often the device log's zones ran, on how many cores,
 * and for how many cycles (and µs at the capture's clock) in total — occupancy summed over
 * every core and device, read once per handle from the device log.
 *
 * @module
 */
import { z } from "zod";
import { nextIf } from "./_next.ts";
import { reportTool } from "./tool.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import { deviceLogSummary, zoneTimingsUnavailable } from "../session/device_log.ts";
import {
  clockProblem,
  type DeviceLogSummary,
  MAX_OPEN_PER_LANE,
  type PairingCounts,
  type ZoneTotals,
} from "../device_log/mod.ts";
import { round3 } from "../kit/rounding.ts";
import { pyFormatFixed } from "../kit/python_format.ts";

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Zones"),
});

const NOTE = "Cycles are summed over every core and device that ran the zone, so they measure " +
  "occupancy, not elapsed time, and a zone nested in another (a KERNEL inside its FW) counts in " +
  "both. A core is (PCIe slot, core_x, core_y): cores counts each device's cores apart. Starts " +
  "pair with ends on the same core, RISC, zone and run host ID, innermost first, so trace " +
  "replays of an operation pair in turn and are summed together. total_us is total_cycles ÷ " +
  "clock_mhz: core-µs (total_unit), µs summed over cores, never elapsed µs. Durations need the log's type (or zone phase) column; without it only occurrences " +
  "are counted. The log is read once per handle.";

/** One zone on one RISC. */
export interface ZoneEntry {
  zone: string;
  risc: string;
  occurrences: number;
  cores: number;
  total_cycles: number | null;
  mean_cycles: number | null;
  total_us: number | null;
  /** Present when the log's zones could be paired. */
  unmatched_starts?: number;
  unmatched_ends?: number;
}

/** The zones past the limit, summed. */
export interface ZoneRest {
  zone_count: number;
  occurrences: number;
  total_cycles: number | null;
  total_us: number | null;
}

/** The answer of `zone_timings`. */
export interface ZoneTimingsAnswer {
  handle: string;
  arch: string | null;
  clock_mhz: number | null;
  zone_count: number;
  returned: number;
  zones: ZoneEntry[];
  rest: ZoneRest | null;
  device_count: number;
  data_rows: number;
  boundary_column: DeviceLogSummary["boundaryColumn"];
  pairing?: PairingCounts;
  /** total_cycles and total_us are summed over cores: core-time, not elapsed time. */
  total_unit: "core_cycles_and_core_us";
  note: string;
}

/** The `zone_timings` tool. */
export const zoneTimings = reportTool({
  name: "zone_timings",
  title: "Device zone totals",
  summary: "Per zone and RISC of the device log: occurrences, cores, summed and mean cycles and " +
    "total µs, costliest first.",
  description:
    "Per zone and RISC of the device log: occurrences, cores, cycles and µs, costliest first; " +
    "sums over cores are occupancy.",
  input,
  reads: ["device_log"],
  cannotAnswer: zoneTimingsUnavailable,
  async handler(args, ctx): Promise<ZoneTimingsAnswer> {
    const log = await deviceLogSummary(ctx, "zones");
    ctx.parts.caveat(...caveats(log));
    ctx.parts.cut("zones", {
      total: log.zones.length,
      returned: Math.min(log.zones.length, capped(args.limit)),
      reason: "limit",
      more: "the zones past the limit are summed into rest; pass a higher limit (at most 100)",
    });
    nextIf(ctx, {
      tool: "core_spread",
      why: "the costliest operations' kernel time across their cores, per RISC",
      arguments: { handle: args.handle },
    });
    return answerOf(args.handle, log, costliestFirst(log.zones), capped(args.limit));
  },
});

/** The zones by total cycles, then occurrences, most first (the log's order breaks ties). */
function costliestFirst(zones: readonly ZoneTotals[]): ZoneTotals[] {
  return zones.map((z, i) => ({ z, i }))
    .sort((a, b) =>
      (b.z.totalCycles ?? 0) - (a.z.totalCycles ?? 0) ||
      b.z.occurrences - a.z.occurrences || a.i - b.i
    )
    .map((x) => x.z);
}

/** The answer: the first `limit` of the ordered zones, the others summed into rest. */
function answerOf(
  handle: string,
  log: DeviceLogSummary,
  ordered: readonly ZoneTotals[],
  limit: number,
): ZoneTimingsAnswer {
  const paired = log.boundaryColumn !== null;
  const shown = ordered.slice(0, limit);
  const rest = ordered.slice(shown.length);
  const us = (cycles: number | null) =>
    cycles === null || log.clockMhz === null ? null : round3(cycles / log.clockMhz);
  return {
    handle,
    arch: log.capture.ARCH ?? null,
    clock_mhz: log.clockMhz,
    zone_count: ordered.length,
    returned: shown.length,
    zones: shown.map((z) => describe(z, paired, us)),
    rest: rest.length === 0 ? null : restOf(rest, paired, us),
    device_count: log.devices,
    data_rows: log.dataRows,
    boundary_column: log.boundaryColumn,
    ...(log.pairing ? { pairing: log.pairing } : {}),
    total_unit: "core_cycles_and_core_us",
    note: NOTE,
  };
}

/** The zones past the limit, summed (cycles only when zones could be paired). */
function restOf(
  rest: readonly ZoneTotals[],
  paired: boolean,
  us: (c: number | null) => number | null,
): ZoneRest {
  const cycles = paired ? rest.reduce((n, z) => n + (z.totalCycles ?? 0), 0) : null;
  return {
    zone_count: rest.length,
    occurrences: rest.reduce((n, z) => n + z.occurrences, 0),
    total_cycles: cycles,
    total_us: us(cycles),
  };
}

function describe(
  z: ZoneTotals,
  paired: boolean,
  us: (c: number | null) => number | null,
): ZoneEntry {
  return {
    zone: z.zone,
    risc: z.risc,
    occurrences: z.occurrences,
    cores: z.cores,
    total_cycles: z.totalCycles,
    mean_cycles: z.totalCycles === null || z.occurrences === 0
      ? null
      : Number(pyFormatFixed(z.totalCycles / z.occurrences, 1, false)),
    total_us: us(z.totalCycles),
    ...(paired ? { unmatched_starts: z.unmatchedStarts, unmatched_ends: z.unmatchedEnds } : {}),
  };
}

/** Every reason a figure of this answer is partial or may mislead, as sentences. */
function caveats(log: DeviceLogSummary): string[] {
  const out: string[] = [];
  if (log.boundaryColumn === null) {
    out.push(
      "The log has no type or zone phase column, so zone starts cannot be paired with ends: " +
        "occurrences count rows, and total_cycles, mean_cycles and total_us are null.",
    );
  }
  const p = log.pairing;
  if (p && (p.unmatched_starts > 0 || p.unmatched_ends > 0)) {
    out.push(
      `${p.unmatched_starts} zone starts and ${p.unmatched_ends} ends did not pair, so the ` +
        "totals cover only the zones that did and are partial; a capture that stopped mid-zone " +
        "(or a profiler buffer that filled) is the usual cause.",
    );
  }
  if (p && p.ends_before_starts > 0) {
    out.push(
      `${p.ends_before_starts} zones ended on an earlier cycle than they started and are left ` +
        "out of the totals.",
    );
  }
  if (p && p.dropped_starts > 0) {
    out.push(
      `${p.dropped_starts} zone starts were dropped beyond ${MAX_OPEN_PER_LANE} open zones on ` +
        "one core's RISC; treat the log as malformed.",
    );
  }
  if (log.clockMhz === null) {
    out.push(
      `The log ${
        clockProblem(log.capture)
      }, so total_us is null; cycles and occurrences are complete.`,
    );
  }
  const bad = log.leftOut;
  if (bad.count > 0) {
    out.push(
      `${bad.count} rows were left out (first at line ${bad.firstLine}): ` +
        [
          bad.notNumber > 0
            ? `${bad.notNumber} whose PCIe slot, core, run host ID or cycle count is not a ` +
              "whole number"
            : "",
          bad.short > 0 ? `${bad.short} with fewer fields than the header` : "",
          bad.outOfRange > 0
            ? `${bad.outOfRange} whose cycle count is 2^64 or more, out of any 64-bit ` +
              "counter's range"
            : "",
        ].filter(Boolean).join("; ") + ".",
    );
  }
  if (log.unnamedRows > 0) out.push(`${log.unnamedRows} rows without a zone name were skipped.`);
  return out;
}
