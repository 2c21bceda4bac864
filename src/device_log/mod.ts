/**
 * The door to the device log reader (`profile_log_device.csv`): its probe, the read of its zone
 * totals and kernel spans, the timeline, core states and performance counters. A module outside
 * `device_log/` imports from here alone (`tests/unit/layers_test.ts`).
 * @module
 */

export {
  busyByCore,
  type CoreAt,
  coresOf,
  type CoreStates,
  type DeviceCores,
  instanceStates,
  MATH_RISC,
  noStates,
} from "./core_busy.ts";
export {
  CORE_SPAN,
  countedCycles,
  COUNTER_COLUMNS,
  type CounterFigures,
  counterFigures,
  type CounterGroup,
  CounterLogChanged,
  CounterLogNotUtf8,
  type CounterScan,
  GROUP_ORDER,
  groupOf,
  HOW_TO_CAPTURE,
  type OpCounters,
  perCore,
  type RatioStats,
  scanCounters,
} from "./counters.ts";
export { type DeviceOps, deviceOps, devicesOf, type OpInstance } from "./op_instances.ts";
export {
  clockProblem,
  DEVICE_LOG_FILE,
  DEVICE_LOG_NAME,
  type DeviceLogProbe,
  probeOpenedDeviceLog,
  unusableDeviceLog,
} from "./probe.ts";
export { DeviceLogChanged, DeviceLogNotUtf8, readDeviceLog } from "./read.ts";
export {
  type CoreSpanFigures,
  type DeviceLogSummary,
  type KernelWindows,
  MAX_OPEN_PER_LANE,
  type PairingCounts,
  type RowSpans,
  type UnknownCore,
  type UnknownWhy,
  type ZoneTotals,
} from "./summary.ts";
export {
  type Coverage,
  coverage,
  firmwareSpans,
  iterations,
  markerPositions,
  median,
  opSpans,
  sharingACore,
  type Span,
  sumBy,
} from "./timeline.ts";
export { countWhy } from "./unknown_cores.ts";
