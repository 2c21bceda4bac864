/**
 * What core_spread says of an operation's figures where they do not mean what they seem to:
 * a row the log cannot be matched to, a log of another execution or a filled profiler
 * buffer, pooled rows, fewer or more cores than the row reports, a collective's mean, cores
 * whose span is unknown, unpaired zones, and log rows left out.
 *
 * @module
 */
import { isCollective, type PerfRow } from "../perf_report/mod.ts";
import type { CoreSpanFigures, DeviceLogSummary, RowSpans } from "../device_log/mod.ts";

/** Why kernel rows of the log are missing from every figure, or null. */
export function leftOutCaveat(log: DeviceLogSummary): string | null {
  const bad = log.leftOut.kernel;
  return bad > 0
    ? `${bad} kernel rows of the device log were left out because their PCIe ` +
      `slot, core, run host ID or cycle count is not a whole number below 2^64 (the log's first ` +
      `left-out row is at line ${log.leftOut.firstLine}).`
    : null;
}

/** The caveat sentences of one operation's figures, in order. */
export function caveatsOf(
  row: PerfRow,
  cores: number | null,
  s: RowSpans | undefined,
  f: CoreSpanFigures | null,
): string[] {
  const out: string[] = [];
  const who = `call count ${row.global_call_count} on device ${row.device}`;
  if (!s) {
    out.push(
      "The row has no whole-number GLOBAL CALL COUNT and DEVICE ID, so no zone of the log can be " +
        "matched to it.",
    );
  } else if (f === null) {
    if (s.groupKernelRows === 0) {
      out.push(
        `The device log has no kernel zone for ${who}: it can cover different runs from the ` +
          "performance CSV, or stop before this operation.",
      );
    } else if (!s.groupHasFigures) {
      out.push(
        `The device log has kernel zones for ${who}, but none inside this row's DEVICE FW START ` +
          "to END CYCLE, and no row of that call count and device has any inside its own: the " +
          "log most likely belongs to another execution — usually a device log beside a " +
          "different run's performance CSV.",
      );
    } else {
      out.push(
        `The device log has kernel zones for ${who} inside other replays' firmware cycles but ` +
          "none inside this row's: a profiler buffer that filled partway through the trace, " +
          "dropping later replays' zones, is the likelier cause.",
      );
    }
  }
  if (s && f && !s.hasWindow && s.groupRows > 1) {
    out.push(
      `The row has no DEVICE FW START/END CYCLE, so it takes every kernel zone of ${who}, which ` +
        `${s.groupRows} rows of the CSV share: its figures pool theirs.`,
    );
  }
  if (f && f.unknown.length > 0) out.push(unknownCaveat(f));
  if (f && cores !== null && f.cores + f.stoppedAbsent < cores) {
    const stopped = f.stoppedAbsent > 0
      ? ` (and ${f.stoppedAbsent} whose record had stopped, unknown)`
      : "";
    out.push(
      `Only ${f.cores} of the row's ${cores} cores recorded kernel zones${stopped}, so the ` +
        "spread covers only those. Dropped markers cause that; tt-metal reports a full profiler " +
        "buffer in its host log only, never in the device log.",
    );
  }
  if (f && cores !== null && f.cores > cores) {
    out.push(
      `${f.cores} cores recorded kernel zones against the row's CORE COUNT of ${cores} — helper cores, as ` +
        "a DRAM-sharded matmul has — so the median and imbalance mix cores with different roles; " +
        "the maximum and slowest_cores still name the cores that set the time.",
    );
  }
  if (isCollective(row.raw_op_code) && (row.merged_ids?.length ?? 0) > 1) {
    out.push(
      `A collective: as tt-perf-report merges it, the row is the first device's (device ` +
        `${row.device}) but its device_time is the mean across ${row.merged_ids!.length} ` +
        "devices, so its core spans need not match it.",
    );
  }
  if (s && (s.unpaired.starts > 0 || s.unpaired.ends > 0)) {
    out.push(
      `${s.unpaired.starts} zone starts and ${s.unpaired.ends} ends of ${who} did not pair; ` +
        "unpaired zones are counted per call count and device, not per replay, so every replay " +
        "of this operation reports them.",
    );
  }
  return out;
}

/** What the caveat says of cores whose span is unknown. */
function unknownCaveat(f: CoreSpanFigures): string {
  const stopped = f.unknown.filter((c) => c.why === "record_stopped").length;
  const unpaired = f.unknown.length - stopped;
  const parts = [
    unpaired > 0
      ? `${unpaired} core${unpaired > 1 ? "s have" : " has"} a kernel zone that starts without ` +
        "an end (or ends without a start) inside this operation's window"
      : null,
    stopped > 0
      ? `${stopped} core${stopped > 1 ? "s'" : "'s"} record had stopped mid-kernel in an ` +
        "earlier operation (a filled profiler buffer, which tt-metal reports in its host log " +
        "only, or a cut log)"
      : null,
  ].filter((p) => p !== null);
  const all = f.known === 0
    ? " No core's span is known, so span_us and imbalance are null."
    : ` The figures cover the other ${f.known} cores.`;
  return `${parts.join(", and ")}: ${
    f.unknown.length > 1 ? "their spans are" : "its span is"
  } unknown, not 0, and left out of span_us, imbalance, per_risc and slowest_cores.${all}`;
}
