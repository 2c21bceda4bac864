/**
 * What one read of `profile_log_device.csv` yields: per zone and RISC totals (zone_timings)
 * and, when the handle holds a performance CSV, every performance row's per-core kernel spans
 * (core_spread). Figures are cycles; the tools convert with the clock the log was read at.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";

/** One zone on one RISC, over every core and device of the log. */
export interface ZoneTotals {
  zone: string;
  risc: string;
  /** Paired starts and ends; without a boundary column, the rows. */
  occurrences: number;
  /** Distinct cores, a core being (PCIe slot, core_x, core_y). */
  cores: number;
  /** Summed paired durations in cycles; null without a boundary column. */
  totalCycles: number | null;
  unmatchedStarts: number;
  unmatchedEnds: number;
  /** Pairs whose end was stamped before their start, left out of the totals. */
  endsBeforeStarts: number;
  /** Starts beyond the open-zone ceiling of one core and RISC, left out. */
  droppedStarts: number;
}

/** More open starts than this on one lane is a malformed log; the excess is dropped. */
export const MAX_OPEN_PER_LANE = 256;

/** Starts and ends that did not pair, over the whole log. */
export interface PairingCounts {
  unmatched_starts: number;
  unmatched_ends: number;
  ends_before_starts: number;
  dropped_starts: number;
}

/** Rows left out of every figure. */
export interface LeftOutRows {
  count: number;
  /** Of them, rows of a kernel zone. */
  kernel: number;
  /** Rows with fewer fields than the columns read. */
  short: number;
  /** Rows whose slot, core, run host ID or cycle count is not a whole number. */
  notNumber: number;
  /** Rows whose cycle count is 2⁶⁴ or more (no 64-bit counter reads that). */
  outOfRange: number;
  /** The first such row's line. */
  firstLine: number;
}

/**
 * Why a core's kernel time in an operation is unknown: `unpaired`, a kernel zone of it inside
 * the operation's window starts without an end or ends without a start; `record_stopped`, one
 * of its RISCs wrote a kernel start with no end in an earlier operation and no row since — its
 * profiler buffer filled (tt-metal says so in its host log only) or the log was cut.
 */
export type UnknownWhy = "unpaired" | "record_stopped";

/** A core whose kernel time in an operation is unknown. */
export interface UnknownCore {
  core: number;
  x: number;
  y: number;
  why: UnknownWhy;
}

/** Per-core kernel spans of one operation on one device, in cycles. */
export interface CoreSpanFigures {
  /** Cores that recorded kernel zones. */
  cores: number;
  /** Of them, the cores whose span is measured (every kernel zone paired, record not stopped). */
  known: number;
  /** Over the known cores; null when none is. */
  min: number | null;
  median: number | null;
  max: number | null;
  mean: number | null;
  /** Per RISC: each known core's span of that RISC's kernel zones. */
  perRisc: { risc: string; cores: number; min: number; median: number; max: number }[];
  /** The known cores with the longest spans, longest first, by NoC coordinates. */
  slowest: { x: number; y: number; span: number }[];
  /**
   * Cores whose span is unknown, by y then x: recorded ones with an unpaired zone, and cores
   * whose record had stopped before the operation, whether or not they recorded in it.
   */
  unknown: UnknownCore[];
  /** Of the unknown cores, those whose record had stopped and that recorded nothing here. */
  stoppedAbsent: number;
}

/** What the log holds for one performance CSV row (by its table index). */
export interface RowSpans {
  /**
   * Null when no kernel zone of its call count and device fell inside its window. Worked out
   * when first read (a getter), then kept.
   */
  readonly figures: CoreSpanFigures | null;
  /** Whether the row has DEVICE FW START/END CYCLE (else it takes every zone of its group). */
  hasWindow: boolean;
  /** Rows of the CSV with the same call count and device. */
  groupRows: number;
  /** Kernel rows of the log under the row's call count and device, inside any window or not. */
  groupKernelRows: number;
  /** Whether any row of the same call count and device has figures. */
  groupHasFigures: boolean;
  /** Unpaired starts and ends of the call count and device (not per replay). */
  unpaired: { starts: number; ends: number };
}

/**
 * Every (window, lane) record of the read, sorted by window: the first and last kernel cycle
 * of one RISC of one core inside one performance row's firmware window, as offsets from the
 * window's DEVICE FW START CYCLE, and whether its kernel zones there paired. Window `w`'s
 * records are `starts[w]` to `starts[w + 1]`.
 */
export interface KernelWindows {
  /** Per CSV table row index (a perf row's id − 2): its window, or −1. */
  rowWindow: Int32Array;
  /** Per window: 1 when the row has DEVICE FW START/END CYCLE, 0 for a call count's pool. */
  bounded: Uint8Array;
  /** Per window: DEVICE FW START CYCLE as `hi × LOW_BASE + lo` (exact past 2⁵³). */
  baseHi: Float64Array;
  baseLo: Float64Array;
  /** Per window: DEVICE FW END − START CYCLE (0 for a pool). */
  length: Float64Array;
  /** Per window: the PCIe slot its rows ran on (every row of a window shares one). */
  slot: Int32Array;
  starts: Int32Array;
  /**
   * Per record: the lane (an index into DeviceLogSummary.lanes); one record per lane. In 16
   * bits while the log has at most 65,536 lanes.
   */
  lane: Uint16Array | Int32Array;
  /**
   * Per record: its first and last kernel cycle as offsets from the window's start; in 32
   * bits unless a pool or a window of 2³² cycles or more needs doubles.
   */
  first: Uint32Array | Float64Array;
  last: Uint32Array | Float64Array;
  /** Per record: kernel zone starts less ends inside the window; non-zero when one is unpaired. */
  balance: Int32Array;
  /**
   * Per window, the cores whose record had stopped before it (see UnknownWhy): window `w`'s
   * are `darkCores[darkStarts[w]]` to `darkCores[darkStarts[w + 1] − 1]`, as LogLane.core.
   */
  darkStarts: Int32Array;
  darkCores: Int32Array;
}

/** core_spread's figures for every row of the performance CSV. */
export interface OperationSpans {
  /** By the CSV table's row index (a perf row's id − 2). */
  byRow: Map<number, RowSpans>;
  /** Kernel rows whose call count and device no CSV row has. */
  kernelRowsWithoutRow: number;
  /** The per-core records the figures were made from, for the timeline tools. */
  windows: KernelWindows;
}

/** One RISC of one core of one device, as the log names it. */
export interface LogLane {
  slot: number;
  x: number;
  y: number;
  risc: string;
  /** One number per (slot, x, y). */
  core: number;
  /** Whether the lane had a command-queue zone (CQ-DISPATCH, CQ-PREFETCH, CQ_DISPATCH_…). */
  dispatch: boolean;
}

/** One read of the device log. */
export interface DeviceLogSummary {
  identity: FileIdentity;
  /** The preamble's pairs, as written. */
  capture: Record<string, string>;
  /** CHIP_FREQ[MHz] when positive, else null (figures stay in cycles). */
  clockMhz: number | null;
  boundaryColumn: "type" | "zone phase" | null;
  /** Bytes read. */
  bytes: number;
  /** Data rows (blank lines excluded). */
  dataRows: number;
  /** Distinct PCIe slots with any row. */
  devices: number;
  /** Every zone and RISC, in first-seen order. */
  zones: ZoneTotals[];
  /** Null without a boundary column. */
  pairing: PairingCounts | null;
  leftOut: LeftOutRows;
  /** Rows without a zone name, skipped. */
  unnamedRows: number;
  /** Every lane with any row, numbered as KernelWindows.lane numbers them. */
  lanes: LogLane[];
  /** Null when the read had no performance CSV to place rows in. */
  spans: OperationSpans | null;
}
