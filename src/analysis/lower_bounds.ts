/**
 * The theoretical limit of each operation, as the users' method defines it: the larger of its
 * DRAM time (bytes its DRAM tensors move ÷ DRAM bandwidth) and its compute time on every worker
 * core of the device (FLOPs ÷ worker cores × their peak at its math fidelity) — and the gap
 * between that and the measured device time, the quantity the method ranks operations by.
 *
 * For an operation with a compute model (tt-perf-report's matmul and conv) the gap splits
 * exactly in two: the time its cores were not kept busy (measured − the larger of the limit
 * and its compute time on the cores it used) and the time it lost by using too few cores (its
 * compute time on those cores − the limit, when positive). An operation without a compute
 * model is bounded by DRAM alone: its bound is a floor, not a limit.
 *
 * @module
 */
import {
  type ArchitectureSpec,
  AVAILABLE_WORKER_CORE_COUNT_COLUMN,
  type PerfReport,
  type PerfRow,
} from "../perf_report/mod.ts";
import { idealNs, type RowCells } from "./include_groups.ts";
import {
  describeTensor,
  rowTraffic,
  type SlotColumns,
  slotColumns,
  tensorSlots,
  type TensorTraffic,
} from "./dram_traffic.ts";
import { type Inventory, performanceCsvUnavailable } from "../session/inventory.ts";

/** Why the report cannot be bounded, or null. */
export function lowerBoundsUnavailable(inv: Inventory): string | null {
  const csv = performanceCsvUnavailable(inv);
  if (csv) return csv;
  const read = inv.performance!.csvRead;
  if (!read?.ok) return "the performance CSV cannot be read";
  const slots = tensorSlots(read.table.header);
  if (slots.length === 0) {
    return "the performance CSV has no tensor memory columns (INPUT_0_MEMORY …)";
  }
  if (!read.table.header.includes("INPUT_0_DATATYPE")) {
    return "the performance CSV has no tensor dtype columns";
  }
  const shapes = ["INPUT_0_Y", "INPUT_0_Y_PAD[LOGICAL]"];
  if (!shapes.some((c) => read.table.header.includes(c))) {
    return "the performance CSV has no tensor shape columns (INPUT_0_Y_PAD[LOGICAL] …), so no " +
      "tensor's bytes can be counted";
  }
  return null;
}

/** Where a row's worker-core count came from. */
export type WorkerCoresSource = "available_worker_core_count" | "architecture";

/** The bound of one device-operation row. */
export interface RowBound {
  row: PerfRow;
  tensors: TensorTraffic[];
  measured_us: number;
  dram_bytes: number;
  /** Tensors in DRAM whose bytes are unknown (shape or dtype missing). */
  unknown_tensors: number;
  dram_bound_us: number;
  /** The FLOPs it did, or null without a compute model. */
  flop_count: number | null;
  peak_tflops_per_core: number | null;
  worker_cores: number;
  worker_cores_source: WorkerCoresSource;
  /** FLOPs ÷ (worker cores × peak); null without a compute model. */
  compute_at_worker_cores_us: number | null;
  /** FLOPs ÷ (the cores it ran on × peak); null without a compute model or a core count. */
  compute_at_cores_used_us: number | null;
  /** max(dram, compute at the worker cores): the limit. */
  bound_us: number;
  /** The performance model's ideal time (PM IDEAL), when it modelled the op. */
  model_ideal_us: number | null;
}

/** What the bounds are computed against. */
export interface BoundSettings {
  /** The architecture whose peak per core and worker-core count bound compute. */
  spec: ArchitectureSpec;
  dramBandwidthGbps: number;
  cells: RowCells;
  slots: readonly string[];
}

/** The row's own worker-core budget, or the architecture's. */
function workerCoresOf(
  row: PerfRow,
  settings: BoundSettings,
): { worker_cores: number; worker_cores_source: WorkerCoresSource } {
  const own = Number(settings.cells.cell(row, AVAILABLE_WORKER_CORE_COUNT_COLUMN) || NaN);
  return Number.isInteger(own) && own > 0
    ? { worker_cores: own, worker_cores_source: "available_worker_core_count" }
    : { worker_cores: settings.spec.worker_cores, worker_cores_source: "architecture" };
}

/**
 * What a row's bound reads of its CSV cells: its tensors and the DRAM bytes they move, its
 * fidelity's peak, its worker cores and its model's ideal time; the same for every row of a
 * class over those cells.
 */
interface Traffic {
  tensors: TensorTraffic[];
  dramBytes: number;
  unknown: number;
  peak: number | null;
  workers: ReturnType<typeof workerCoresOf>;
  idealNs: number | null;
}

/** The cells besides the tensors' that a bound reads. */
const BOUND_COLUMNS = ["MATH FIDELITY", AVAILABLE_WORKER_CORE_COUNT_COLUMN, "PM IDEAL [ns]"];

/**
 * The bound of every device-operation row with a device time. A row's tensors depend on its
 * tensor cells alone, so they are read once for each distinct set of those cells and shared.
 */
export function rowBounds(perf: PerfReport, settings: BoundSettings): RowBound[] {
  const out: RowBound[] = [];
  const slots = slotColumns(settings.slots, perf.csv_format);
  const classes = settings.cells.classes(
    [...slots.flatMap((s) => [s.memory, ...s.dims, s.dtype, s.layout]), ...BOUND_COLUMNS],
  );
  const traffic: (Traffic | undefined)[] = new Array(classes.count);
  for (const row of perf.rows) {
    if (row.is_signpost || row.is_host_op || row.device_time === null || !(row.device_time > 0)) {
      continue;
    }
    const c = classes.of[settings.cells.position(row)];
    out.push(rowBound(row, traffic[c] ??= trafficOf(row, slots, settings), settings));
  }
  return out;
}

function trafficOf(row: PerfRow, slots: readonly SlotColumns[], settings: BoundSettings): Traffic {
  const tensors = rowTraffic(row, settings.cells, slots);
  const known = tensors.filter((t) => t.dram_bytes !== null);
  const dramBytes = known.reduce((n, t) => n + (t.dram_bytes as number), 0);
  const fidelity = settings.cells.cell(row, "MATH FIDELITY") ?? "";
  const peaks = settings.spec.tflops_per_core;
  return {
    tensors,
    dramBytes,
    unknown: tensors.length - known.length,
    peak: Object.hasOwn(peaks, fidelity) ? peaks[fidelity as keyof typeof peaks] : null,
    workers: workerCoresOf(row, settings),
    idealNs: idealNs(row, settings.cells),
  };
}

/** How a row's tensors are named in its shape group, made once for each list of tensors. */
const DESCRIBED = new WeakMap<TensorTraffic[], string>();

/** `in0 [1,1,32,4096] BFLOAT16 TILE L1; …`: a bound's tensors as a shape group names them. */
function tensorsOf(b: RowBound): string {
  let text = DESCRIBED.get(b.tensors);
  if (text === undefined) DESCRIBED.set(b.tensors, text = b.tensors.map(describeTensor).join("; "));
  return text;
}

function rowBound(row: PerfRow, traffic: Traffic, settings: BoundSettings): RowBound {
  const { tensors, dramBytes, peak, workers } = traffic;
  const deviceTime = row.device_time!;
  // tt-perf-report's FLOPs column is a rate (TFLOP/s over the device time): undo it.
  const flopCount = row.flops !== null && row.flops > 0
    ? row.flops * 1e12 * deviceTime * 1e-6
    : null;
  const computeOn = (cores: number | null) =>
    flopCount !== null && peak !== null && cores !== null && cores > 0
      ? (flopCount / (cores * peak * 1e12)) * 1e6
      : null;
  const dramBound = (dramBytes / (settings.dramBandwidthGbps * 1e9)) * 1e6;
  const atWorkers = computeOn(workers.worker_cores);
  const ideal = traffic.idealNs;
  return {
    row,
    tensors,
    measured_us: deviceTime,
    dram_bytes: dramBytes,
    unknown_tensors: traffic.unknown,
    dram_bound_us: dramBound,
    flop_count: flopCount,
    peak_tflops_per_core: peak,
    // Named, not spread: a spread amid a literal's fields takes the slow path for every row.
    worker_cores: workers.worker_cores,
    worker_cores_source: workers.worker_cores_source,
    compute_at_worker_cores_us: atWorkers,
    compute_at_cores_used_us: computeOn(row.cores),
    bound_us: Math.max(dramBound, atWorkers ?? 0),
    model_ideal_us: ideal === null ? null : ideal / 1000,
  };
}

/** How a gap splits, for an operation with a compute model; sums over a group's rows. */
export interface GapSplit {
  /** measured − max(limit, compute at the cores used), where compute binds at the cores used. */
  not_kept_busy_us: number;
  /** The same residual where DRAM binds at the cores used: DRAM below its bandwidth. */
  dram_not_kept_busy_us: number;
  /** max(0, compute at the cores used − limit). */
  too_few_cores_us: number;
  compute_at_cores_used_us: number;
}

/** The split of one row's gap, or null when it has no compute model or no core count. */
export function splitOf(b: RowBound): GapSplit | null {
  if (b.compute_at_cores_used_us === null) return null;
  const used = b.compute_at_cores_used_us;
  const residual = b.measured_us - Math.max(b.bound_us, used);
  const dramBinds = b.dram_bound_us >= used;
  return {
    not_kept_busy_us: dramBinds ? 0 : residual,
    dram_not_kept_busy_us: dramBinds ? residual : 0,
    too_few_cores_us: Math.max(0, used - b.bound_us),
    compute_at_cores_used_us: used,
  };
}

/** Bounds summed over rows (one row, or every row of a shape group). */
export interface BoundSum {
  key: string;
  op_code: string;
  /** The decorated op code of its first row, as top_ops prints it. */
  label: string;
  shape: string;
  ids: number[];
  measured_us: number;
  dram_bytes: number;
  dram_bound_us: number;
  /** Null unless every row has a compute model. */
  compute_bound_us: number | null;
  lower_bound_us: number;
  unknown_tensors: number;
  flop_count: number | null;
  /** The cores the rows ran on, null when they differ. */
  cores: number | null;
  /** The rows' worker cores and where they came from, null when they differ. */
  worker_cores: number | null;
  worker_cores_source: WorkerCoresSource | null;
  peak_tflops_per_core: number | null;
  /** Whether every row has a compute model. */
  compute_modelled: boolean;
  /** The gap's split, summed, when every row has one. */
  split: GapSplit | null;
  /** Σ PM IDEAL, when every row has one. */
  model_ideal_us: number | null;
}

function emptySum(key: string, b: RowBound): BoundSum {
  return {
    key,
    op_code: b.row.raw_op_code,
    label: b.row.op_code || b.row.raw_op_code,
    shape: tensorsOf(b),
    ids: [],
    measured_us: 0,
    dram_bytes: 0,
    dram_bound_us: 0,
    compute_bound_us: 0,
    lower_bound_us: 0,
    unknown_tensors: 0,
    flop_count: 0,
    cores: b.row.cores,
    worker_cores: b.worker_cores,
    worker_cores_source: b.worker_cores_source,
    peak_tflops_per_core: b.peak_tflops_per_core,
    compute_modelled: true,
    split: {
      not_kept_busy_us: 0,
      dram_not_kept_busy_us: 0,
      too_few_cores_us: 0,
      compute_at_cores_used_us: 0,
    },
    model_ideal_us: 0,
  };
}

const plus = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);

function addRow(g: BoundSum, b: RowBound): void {
  g.ids.push(b.row.id);
  g.measured_us += b.measured_us;
  g.dram_bytes += b.dram_bytes;
  g.dram_bound_us += b.dram_bound_us;
  g.compute_bound_us = plus(g.compute_bound_us, b.compute_at_worker_cores_us);
  g.flop_count = plus(g.flop_count, b.flop_count);
  g.lower_bound_us += b.bound_us;
  g.unknown_tensors += b.unknown_tensors;
  g.model_ideal_us = plus(g.model_ideal_us, b.model_ideal_us);
  g.compute_modelled &&= b.compute_at_worker_cores_us !== null;
  const split = splitOf(b);
  g.split = g.split === null || split === null ? null : {
    not_kept_busy_us: g.split.not_kept_busy_us + split.not_kept_busy_us,
    dram_not_kept_busy_us: g.split.dram_not_kept_busy_us + split.dram_not_kept_busy_us,
    too_few_cores_us: g.split.too_few_cores_us + split.too_few_cores_us,
    compute_at_cores_used_us: g.split.compute_at_cores_used_us + split.compute_at_cores_used_us,
  };
  if (g.cores !== b.row.cores) g.cores = null;
  if (g.worker_cores !== b.worker_cores) g.worker_cores = null;
  if (g.worker_cores_source !== b.worker_cores_source) g.worker_cores_source = null;
  if (g.peak_tflops_per_core !== b.peak_tflops_per_core) g.peak_tflops_per_core = null;
}

/** Sums the bounds of `rows`, grouped by `keyOf`, in first-seen order. */
export function sumBounds(rows: readonly RowBound[], keyOf: (b: RowBound) => string): BoundSum[] {
  const groups = new Map<string, BoundSum>();
  for (const b of rows) {
    const key = keyOf(b);
    let g = groups.get(key);
    if (!g) groups.set(key, g = emptySum(key, b));
    addRow(g, b);
  }
  for (const g of groups.values()) {
    if (!g.compute_modelled) {
      g.compute_bound_us = null;
      g.flop_count = null;
      g.split = null;
    }
  }
  return [...groups.values()];
}

/**
 * The cores an operation would need for its compute time to reach its limit: FLOPs ÷ (limit ×
 * peak per core); null without a compute model, a single peak or a positive limit.
 */
export function coresNeededForLimit(s: BoundSum): number | null {
  if (s.flop_count === null || s.peak_tflops_per_core === null || !(s.lower_bound_us > 0)) {
    return null;
  }
  return s.flop_count / (s.lower_bound_us * 1e-6 * s.peak_tflops_per_core * 1e12);
}

/**
 * The shape-group key of a row: op code, then each tensor's shape, dtype, layout and memory;
 * made once for each op code and list of tensors.
 */
export function shapeKey(b: RowBound): string {
  // One string for each op code and list of tensors: rows of a class share it (and its hash).
  let byCode = SHAPE_KEYS.get(b.tensors);
  if (byCode === undefined) SHAPE_KEYS.set(b.tensors, byCode = new Map());
  let key = byCode.get(b.row.raw_op_code);
  if (key === undefined) {
    byCode.set(b.row.raw_op_code, key = `${b.row.raw_op_code} | ${tensorsOf(b)}`);
  }
  return key;
}

const SHAPE_KEYS = new WeakMap<TensorTraffic[], Map<string, string>>();
