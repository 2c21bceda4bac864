/**
 * The theoretical lower bound of each operation — the larger of its DRAM time (bytes its DRAM
 * tensors move ÷ DRAM bandwidth) and its compute time (FLOPs ÷ the cores it ran on × their
 * peak at its math fidelity) — and the gap between that and the measured device time, the
 * quantity the users' method ranks operations by.
 *
 * @module
 */
import type { PerfReport, PerfRow } from "../perf_report/types.ts";
import type { RowCells } from "./include_groups.ts";
import { describeTensor, rowTraffic, type TensorTraffic } from "./dram_traffic.ts";

/** The bound of one device-operation row. */
export interface RowBound {
  row: PerfRow;
  tensors: TensorTraffic[];
  measured_us: number;
  dram_bytes: number;
  /** Tensors in DRAM whose bytes are unknown (shape or dtype missing). */
  unknown_tensors: number;
  dram_bound_us: number;
  flop_count: number | null;
  peak_tflops_per_core: number | null;
  compute_bound_us: number | null;
}

/** What the bounds are computed against. */
export interface BoundSettings {
  dramBandwidthGbps: number;
  cells: RowCells;
  slots: readonly string[];
}

/** The bound of every device-operation row with a device time. */
export function rowBounds(perf: PerfReport, settings: BoundSettings): RowBound[] {
  const out: RowBound[] = [];
  for (const row of perf.rows) {
    if (row.is_signpost || row.is_host_op || row.device_time === null || !(row.device_time > 0)) {
      continue;
    }
    const tensors = rowTraffic(row, settings.cells, settings.slots, perf.csv_format);
    const known = tensors.filter((t) => t.dram_bytes !== null);
    const dramBytes = known.reduce((n, t) => n + (t.dram_bytes as number), 0);
    const fidelity = settings.cells.cell(row, "MATH FIDELITY") ?? "";
    const peak = Object.hasOwn(perf.arch.tflops_per_core, fidelity)
      ? perf.arch.tflops_per_core[fidelity as keyof typeof perf.arch.tflops_per_core]
      : null;
    // tt-perf-report's FLOPs column is a rate (TFLOP/s over the device time): undo it.
    const flopCount = row.flops !== null && row.flops > 0
      ? row.flops * 1e12 * row.device_time * 1e-6
      : null;
    const compute = flopCount !== null && peak !== null && row.cores !== null && row.cores > 0
      ? (flopCount / (row.cores * peak * 1e12)) * 1e6
      : null;
    out.push({
      row,
      tensors,
      measured_us: row.device_time,
      dram_bytes: dramBytes,
      unknown_tensors: tensors.length - known.length,
      dram_bound_us: (dramBytes / (settings.dramBandwidthGbps * 1e9)) * 1e6,
      flop_count: flopCount,
      peak_tflops_per_core: peak,
      compute_bound_us: compute,
    });
  }
  return out;
}

/** Bounds summed over rows (one row, or every row of a shape group). */
export interface BoundSum {
  key: string;
  op_code: string;
  shape: string;
  ids: number[];
  measured_us: number;
  dram_bytes: number;
  dram_bound_us: number;
  compute_bound_us: number | null;
  lower_bound_us: number;
  unknown_tensors: number;
  flop_count: number | null;
  cores: number | null;
  peak_tflops_per_core: number | null;
  is_matmul: boolean;
}

/** Sums the bounds of `rows`, grouped by `keyOf`, in first-seen order. */
export function sumBounds(rows: readonly RowBound[], keyOf: (b: RowBound) => string): BoundSum[] {
  const groups = new Map<string, BoundSum>();
  for (const b of rows) {
    const key = keyOf(b);
    let g = groups.get(key);
    if (!g) {
      g = {
        key,
        op_code: b.row.raw_op_code,
        shape: b.tensors.map(describeTensor).join("; "),
        ids: [],
        measured_us: 0,
        dram_bytes: 0,
        dram_bound_us: 0,
        compute_bound_us: null,
        lower_bound_us: 0,
        unknown_tensors: 0,
        flop_count: null,
        cores: b.row.cores,
        peak_tflops_per_core: b.peak_tflops_per_core,
        is_matmul: b.row.bound_analysis === "full",
      };
      groups.set(key, g);
    }
    g.ids.push(b.row.id);
    g.measured_us += b.measured_us;
    g.dram_bytes += b.dram_bytes;
    g.dram_bound_us += b.dram_bound_us;
    if (b.compute_bound_us !== null) {
      g.compute_bound_us = (g.compute_bound_us ?? 0) + b.compute_bound_us;
    }
    if (b.flop_count !== null) g.flop_count = (g.flop_count ?? 0) + b.flop_count;
    g.lower_bound_us += Math.max(b.dram_bound_us, b.compute_bound_us ?? 0);
    g.unknown_tensors += b.unknown_tensors;
    if (g.cores !== b.row.cores) g.cores = null; // cores differ within the group
  }
  return [...groups.values()];
}

/** The shape-group key of a row: op code, then each tensor's shape, dtype, layout and memory. */
export function shapeKey(b: RowBound): string {
  return `${b.row.raw_op_code} | ${b.tensors.map(describeTensor).join("; ")}`;
}

/** The formulas, for the answer's `method`. */
export const METHOD = {
  dram_bound_us: "Σ bytes of the tensors in DRAM (inputs read once, outputs written once) ÷ " +
    "dram_bandwidth_gbps; tiled tensors by whole 32×32 tiles (BFLOAT16 2048 B, FLOAT32 4096 B, " +
    "BFLOAT8_B 1088 B, BFLOAT4_B 576 B), row-major ones by element size",
  compute_bound_us: "FLOPs ÷ (cores × peak TFLOP/s per core at the row's MATH FIDELITY); FLOPs = " +
    "tt-perf-report's FLOPs rate × device_time, so only ops tt-perf-report models (matmul, conv) have one",
  lower_bound_us: "max(dram_bound_us, compute_bound_us) per row, summed over a group's rows",
  gap_us:
    "measured_us − lower_bound_us (measured_us is tt-perf-report's device_time: the kernel duration)",
  ratio: "measured_us ÷ lower_bound_us, shown but never used to rank",
  cores_needed_for_dram_bound: "FLOPs ÷ (dram_bound_us × peak per core)",
  effective_dram_gbps: "dram bytes ÷ measured time",
};
