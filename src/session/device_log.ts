/**
 * The device log of a loaded report: whether zone_timings and core_spread can answer for it
 * (the rules load_report lists them by), and its reads, shared by the tools and kept on the
 * handle, so every later call answers from memory with the clock it was read at. zone_timings
 * needs only the zone totals, a read far lighter than core_spread's, which also places every
 * kernel row in the performance rows' windows; a zones call joins that heavier read when there
 * is one, and once it is done it answers every device-log tool.
 *
 * load_report only sampled a large log, so what it judged from the sample is said as such in
 * the rules below, and a read that finds a line that is not UTF-8 is refused, naming the line
 * (the refusal is kept: reading again would only refuse again).
 *
 * @module
 */
import {
  clockProblem,
  COUNTER_COLUMNS,
  CounterLogChanged,
  CounterLogNotUtf8,
  type CounterScan,
  DEVICE_LOG_NAME,
  DeviceLogChanged,
  DeviceLogNotUtf8,
  type DeviceLogProbe,
  type DeviceLogSummary,
  HOW_TO_CAPTURE,
  readDeviceLog,
  scanCounters,
} from "../device_log/mod.ts";
import { type Inventory, performanceCsvUnavailable } from "./inventory.ts";
import { DEVICE_LOG_FILE, OPS_CSV_FILE } from "./report_files.ts";
import type { ReportCall } from "./handles.ts";
import { Refusal } from "../kit/refusal.ts";
import { SharedWork } from "../kit/shared_work.ts";
import { identityKey } from "../kit/file_identity.ts";
import { mib } from "../kit/report_file.ts";
import type { CsvTable } from "../perf_report/mod.ts";

/** Where a handle's cache keeps the reads: then `zones` or `spans`, then the log's identity. */
const CACHE_KEY = "device-log-read\u0000";

/** Where a handle's cache keeps the counter rows, followed by the log's identity. */
const COUNTERS_KEY = "device-log-counters\u0000";

/**
 * Why zone_timings cannot answer, or null: the log must exist, decode as UTF-8, carry every
 * column the tools read and hold a data row.
 */
export function zoneTimingsUnavailable(inv: Inventory): string | null {
  const perf = inv.performance;
  if (!perf) {
    return "the handle was loaded without a performance_path: call load_report with the " +
      `directory holding ${OPS_CSV_FILE.name} and ${DEVICE_LOG_NAME}`;
  }
  const log = perf.deviceLog;
  if (!log) return `no ${DEVICE_LOG_NAME} in ${perf.dir}: ${DEVICE_LOG_FILE.capture}`;
  if (log.problem !== null) return log.problem;
  if (log.missingColumns.length > 0) {
    return `${DEVICE_LOG_NAME} is missing columns: ${log.missingColumns.join(", ")}`;
  }
  if (!log.hasDataRow) return `${DEVICE_LOG_NAME} has no data rows (only a preamble and header)`;
  return null;
}

/**
 * Why core_spread cannot answer, or null: zone_timings must, the performance CSV must be
 * reportable, the log must mark zone starts and ends, and its preamble must name a positive
 * CHIP_FREQ[MHz].
 */
export function coreSpreadUnavailable(inv: Inventory): string | null {
  const zones = zoneTimingsUnavailable(inv);
  if (zones !== null) return zones;
  const csv = performanceCsvUnavailable(inv);
  if (csv !== null) return `the performance CSV cannot be reported on: ${csv}`;
  const log = inv.performance!.deviceLog!;
  if (log.boundaryColumn === null) {
    return `${DEVICE_LOG_NAME} has no type or zone phase column, so kernel starts and ends ` +
      "cannot be told apart";
  }
  if (log.clockMhz === null) return `${DEVICE_LOG_NAME} ${clockProblem(log.capture)}`;
  return null;
}

/**
 * Why device_timeline, core_utilisation and core_states cannot answer, or null: core_spread
 * must, and the log must hold a kernel zone (an operation's interval starts at its first).
 */
export function timelineUnavailable(inv: Inventory): string | null {
  const why = coreSpreadUnavailable(inv);
  if (why !== null) return why;
  const log = inv.performance!.deviceLog!;
  if (!log.hasKernelZones) {
    return `${DEVICE_LOG_NAME} holds no kernel zone (no zone name ends in -KERNEL)` +
      `${inSample(log)}, so no operation's interval can start: the capture recorded firmware ` +
      "zones only";
  }
  return null;
}

/**
 * ` in the … load_report read of it (…)` when the probe only sampled the log, else nothing:
 * what was not seen there was not seen anywhere else either.
 */
export function inSample(log: DeviceLogProbe): string {
  const s = log.sample;
  if (s === null) return "";
  return ` in the ${mib(s.head + s.tail)} load_report read of its ${mib(s.bytes)} (its first ` +
    `${mib(s.head)} and last ${mib(s.tail)}; a capture that has them writes them throughout)`;
}

/** The CSV a spans read places the kernel zones by, or null when it cannot be reported on. */
function spansTable(inv: Inventory): CsvTable | null {
  const read = inv.performance!.csvRead;
  return performanceCsvUnavailable(inv) === null && read?.ok ? read.table : null;
}

/**
 * The handle's device log, read on the first call and kept: zone totals always, and — unless
 * `need` is `"zones"` — every performance row's kernel spans when the CSV can be reported on
 * and the log marks starts and ends. Refuses (naming `tool`) when zone_timings could not
 * answer, when the file is no longer the one load_report looked at, and when a line is not
 * UTF-8. Calls wait on one shared read, hearing its progress; a call whose `signal` aborts (a
 * cancelled request) stops waiting at once, and when no call waits any more the read itself
 * stops and its memory is let go.
 */
export async function deviceLogSummary(
  { report, tool, signal, progress }: ReportCall,
  need: "zones" | "spans" = "spans",
): Promise<DeviceLogSummary> {
  const inv = report.inventory;
  const why = zoneTimingsUnavailable(inv);
  if (why !== null) throw new Refusal(`${tool} cannot answer for ${report.handle}: ${why}`);
  signal?.throwIfAborted();
  const probe = inv.performance!.deviceLog!;
  const id = identityKey(probe.identity);
  const zonesKey = `${CACHE_KEY}zones\u0000${id}`;
  const spansKey = `${CACHE_KEY}spans\u0000${id}`;
  // A zones call joins a spans read when there is one, and otherwise never asks for the CSV
  // (which a one-shot call then need not read at all); without a table the two reads are one.
  const table = need === "spans" || report.cache.has(spansKey) ? spansTable(inv) : null;
  const key = table === null ? zonesKey : spansKey;
  let shared = report.cache.get(key) as SharedWork<DeviceLogSummary> | undefined;
  if (shared === undefined) {
    const spans = key === spansKey;
    const work: SharedWork<DeviceLogSummary> = new SharedWork(
      async (stop, heard) => {
        const summary = await readDeviceLog(probe, spans ? table : null, {
          signal: stop,
          progress: heard,
        });
        // The spans read answers zone_timings too: a zones read of the same log is not kept.
        if (spans) report.cache.delete(zonesKey);
        return summary;
      },
      (reason) => {
        // A log that is not UTF-8 would only be refused again: the refusal is kept.
        if (reason instanceof DeviceLogNotUtf8) return;
        if (report.cache.get(key) === work) report.cache.delete(key);
      },
    );
    report.cache.set(key, shared = work);
  }
  try {
    return await shared.join(signal, progress);
  } catch (e) {
    if (e instanceof DeviceLogChanged) {
      throw new Refusal(
        `${report.handle} is stale: ${e.message}. Call load_report again for a fresh handle.`,
      );
    }
    if (e instanceof DeviceLogNotUtf8) {
      throw new Refusal(`${tool} cannot answer for ${report.handle}: ${e.message}`);
    }
    throw e;
  }
}

/**
 * Why perf_counters cannot answer, or null: the log must exist, decode, hold counter rows
 * and carry the columns a counter row is read by.
 */
export function countersUnavailable(inv: Inventory): string | null {
  const perf = inv.performance;
  if (!perf) return "the handle was loaded without a performance_path";
  const log = perf.deviceLog;
  if (!log) {
    return `no ${DEVICE_LOG_NAME} in ${perf.dir}, so no performance counters: ${HOW_TO_CAPTURE}`;
  }
  if (log.problem !== null) return log.problem;
  if (log.counterRows === 0) {
    return `${DEVICE_LOG_NAME} holds no performance-counter rows (TS_DATA rows whose meta ` +
      `data names a "counter type")${inSample(log)}: ${HOW_TO_CAPTURE}`;
  }
  const missing = COUNTER_COLUMNS.filter((c) => !log.columns.includes(c));
  if (missing.length > 0) {
    return `${DEVICE_LOG_NAME} holds counter rows but lacks columns ${missing.join(", ")}`;
  }
  return null;
}

/**
 * The handle's counter rows, read on the first call and kept. Refuses (naming `tool`) when
 * perf_counters cannot answer, when the log is no longer the one load_report looked at, and
 * when a line is not UTF-8. Calls share one scan and hear its progress; when every waiting
 * call is cancelled, the scan stops.
 */
export async function countersFor(
  { report, tool, signal, progress }: ReportCall,
): Promise<CounterScan> {
  const why = countersUnavailable(report.inventory);
  if (why !== null) throw new Refusal(`${tool} cannot answer for ${report.handle}: ${why}`);
  const probe = report.inventory.performance!.deviceLog!;
  const key = `${COUNTERS_KEY}${identityKey(probe.identity)}`;
  let shared = report.cache.get(key) as SharedWork<CounterScan> | undefined;
  if (shared === undefined) {
    const work: SharedWork<CounterScan> = new SharedWork(
      (stop, heard) => scanCounters(probe, { signal: stop, progress: heard }),
      (reason) => {
        // A scan that failed is not kept (the next call tries again), but for a log that is
        // not UTF-8, which would only be refused again.
        if (reason instanceof CounterLogNotUtf8) return;
        if (report.cache.get(key) === work) report.cache.delete(key);
      },
    );
    report.cache.set(key, shared = work);
  }
  try {
    return await shared.join(signal, progress);
  } catch (e) {
    if (e instanceof CounterLogChanged) {
      throw new Refusal(
        `${report.handle} is stale: ${e.message}. Call load_report again for a fresh handle.`,
      );
    }
    if (e instanceof CounterLogNotUtf8) {
      throw new Refusal(`${tool} cannot answer for ${report.handle}: ${e.message}`);
    }
    throw e;
  }
}
