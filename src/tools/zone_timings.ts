/**
 * `zone_timings`: per zone and RISC, how often the device log's zones ran, on how many cores,
 * and for how many cycles (and µs at the capture's clock) in total — occupancy summed over
 * every core and device, read once per handle from `profile_log_device.csv`.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import { deviceLogSummary, zoneTimingsUnavailable } from "../session/device_log.ts";
import type { DeviceLogSummary, ZoneTotals } from "../device_log/summary.ts";
import { MAX_OPEN_PER_LANE } from "../device_log/_tally.ts";
import { round3 } from "../kit/figures.ts";
import { pyFormatFixed } from "../kit/python_format.ts";
import { clockProblem } from "../device_log/probe.ts";

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Zones"),
});

const NOTE = "Cycles are summed over every core and device that ran the zone, so they measure " +
  "occupancy, not elapsed time, and a zone nested in another (a KERNEL inside its FW) counts in " +
  "both. A core is (PCIe slot, core_x, core_y): cores counts each device's cores apart. Starts " +
  "pair with ends on the same core, RISC, zone and run host ID, innermost first, so trace " +
  "replays of an operation pair in turn and are summed together. total_us is total_cycles ÷ " +
  "clock_mhz. Durations need the log's type (or zone phase) column; without it only occurrences " +
  "are counted. The log is read once per handle.";

/** The `zone_timings` tool. */
export const zoneTimings = reportTool({
  name: "zone_timings",
  title: "Device zone totals",
  description:
    "Per zone and RISC from profile_log_device.csv — firmware and kernel phases (BRISC-FW, " +
    "TRISC-KERNEL …) and any named zones, as measured on device: occurrences, distinct cores, " +
    "summed cycles, mean cycles and total µs at the log's CHIP_FREQ, costliest first. Zones past " +
    "the limit are summed into rest. Starts and ends that did not pair are counted in pairing.",
  input,
  reads: ["device_log"],
  cannotAnswer: zoneTimingsUnavailable,
  async handler(args, ctx) {
    const { report } = ctx;
    const log = await deviceLogSummary(ctx);
    const paired = log.boundaryColumn !== null;
    const ordered = log.zones.map((z, i) => ({ z, i }))
      .sort((a, b) =>
        (b.z.totalCycles ?? 0) - (a.z.totalCycles ?? 0) ||
        b.z.occurrences - a.z.occurrences || a.i - b.i
      )
      .map((x) => x.z);
    const shown = ordered.slice(0, capped(args.limit));
    const rest = ordered.slice(shown.length);
    const us = (cycles: number | null) =>
      cycles === null || log.clockMhz === null ? null : round3(cycles / log.clockMhz);
    const restCycles = paired ? rest.reduce((n, z) => n + (z.totalCycles ?? 0), 0) : null;
    const answer: Record<string, unknown> = {
      handle: args.handle,
      arch: log.capture.ARCH ?? null,
      clock_mhz: log.clockMhz,
      zone_count: ordered.length,
      returned: shown.length,
      zones: shown.map((z) => describe(z, paired, us)),
      rest: rest.length === 0 ? null : {
        zone_count: rest.length,
        occurrences: rest.reduce((n, z) => n + z.occurrences, 0),
        total_cycles: restCycles,
        total_us: us(restCycles),
      },
      device_count: log.devices,
      data_rows: log.dataRows,
      boundary_column: log.boundaryColumn,
    };
    if (log.pairing) answer.pairing = log.pairing;
    answer.note = NOTE;
    const caveat = caveats(log);
    if (caveat) answer.caveat = caveat;
    return answer;
  },
});

function describe(z: ZoneTotals, paired: boolean, us: (c: number | null) => number | null) {
  const out: Record<string, unknown> = {
    zone: z.zone,
    risc: z.risc,
    occurrences: z.occurrences,
    cores: z.cores,
    total_cycles: z.totalCycles,
    mean_cycles: z.totalCycles === null || z.occurrences === 0
      ? null
      : Number(pyFormatFixed(z.totalCycles / z.occurrences, 1, false)),
    total_us: us(z.totalCycles),
  };
  if (paired) {
    out.unmatched_starts = z.unmatchedStarts;
    out.unmatched_ends = z.unmatchedEnds;
  }
  return out;
}

/** Every reason a figure of this answer is partial or may mislead, as sentences. */
function caveats(log: DeviceLogSummary): string | null {
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
        ].filter(Boolean).join("; ") + ".",
    );
  }
  if (log.unnamedRows > 0) out.push(`${log.unnamedRows} rows without a zone name were skipped.`);
  return out.length > 0 ? out.join(" ") : null;
}
