/**
 * Test support: load_report with only the device-log tools under test registered.
 */
import { sessionWith } from "../_support/in_process.ts";
import { zoneTimings } from "../../src/tools/zone_timings.ts";
import { coreSpread } from "../../src/tools/core_spread.ts";
import { perfCounters } from "../../src/tools/perf_counters.ts";

/** load_report, zone_timings and core_spread. */
export function deviceLogSession() {
  return sessionWith([zoneTimings, coreSpread]);
}

/** load_report, zone_timings and perf_counters. */
export function counterSession() {
  return sessionWith([zoneTimings, perfCounters]);
}
