/**
 * The shapes the perf-report port returns.
 * @module
 */

import type { ArchitectureSpec, CsvFormat } from "./arch.ts";
import type { OpCategory } from "./categories.ts";

/** tt-perf-report's bound verdict; `""` when none was derived. */
export type Bound = "" | "SLOW" | "FLOP" | "DRAM" | "BOTH" | "HOST";

/** Which roofline model ran for a row. */
export type BoundAnalysis = "full" | "flops_only" | "none";

/**
 * One row of tt-perf-report's per-op report (its `--csv` columns in snake_case, plus the
 * values it keeps but does not write). Times are µs, DRAM is GB/s, FLOPs are TFLOPs,
 * percentages are 0–100. `table.rows[id - 2]` is the CSV row behind it.
 */
export interface PerfRow {
  /** tt-perf-report's ID: the CSV line (header = line 1) of the row that produced this one. */
  id: number;
  total_percent: number | null;
  bound: Bound;
  /** Decorated op code: matmul/conv size and config, halo config, ` (signpost)` suffix. */
  op_code: string;
  /** The unmodified OP CODE cell. */
  raw_op_code: string;
  /** The OP TYPE cell (of the winning device row for merged rows), null when blank. */
  op_type: string | null;
  device: number | null;
  device_time: number | null;
  op_to_op_gap: number | null;
  cores: number | null;
  dram: number | null;
  dram_percent: number | null;
  flops: number | null;
  flops_percent: number | null;
  /** Datatype summary (`BF16, BF16 => BF16`), or `<fidelity> <in0> x <in1> => <out>` for matmul/conv. */
  math_fidelity: string | null;
  output_datatype: string | null;
  input_0_datatype: string | null;
  input_1_datatype: string | null;
  dram_sharded: boolean;
  input_0_memory: string | null;
  inner_dim_block_size: number | null;
  output_subblock_h: number | null;
  output_subblock_w: number | null;
  global_call_count: number | null;
  /** Int for a whole-number id, text for anything else, null for none. */
  sub_device_id: number | string | null;
  available_cores: number;
  /** Null for signposts. */
  op_category: OpCategory | null;
  bound_analysis: BoundAnalysis;
  /** µs of this op's time that ran concurrently with others; null unless the overlap gate passed. */
  overlap: number | null;
  /** tt-perf-report's matmul advice; null for rows it gives no matmul advice to. */
  advice: string[] | null;
  is_signpost: boolean;
  is_host_op: boolean;
  /**
   * CSV lines of every per-device row this row stands for: merged rows only, so null for a
   * row that stands for itself alone (one device's, or not a device op); read `?? [id]`.
   */
  merged_ids: number[] | null;
  /** Values tt-perf-report computes but does not write to its CSV. */
  internal: PerfRowInternal;
}

/** Per-row values the tool keeps off its CSV. */
export interface PerfRowInternal {
  /** Busy time in µs before the overlap gate. */
  busy_time_before_gate: number | null;
  /** Overlap in µs before the overlap gate (null when 0). */
  overlap_before_gate: number | null;
  dram_bytes: number | null;
  invalid_device_duration: boolean;
  sparse_matmul: boolean;
  sparse_active_batches_missing: boolean;
  sparse_active_source: string | null;
}

/** One row of the stacked (summary) report. */
export interface StackedRow {
  percent: number;
  /** The group key: first word of the op code, plus ` (in0:…)` by memory, or the category. */
  op_code_joined: string;
  /** Only when devices are not merged. */
  device?: number;
  device_time_sum_us: number;
  ops_count: number;
  /** Op and memory grouping only. */
  op_category?: string | null;
  flops_min?: number | null;
  flops_max?: number | null;
  flops_mean?: number | null;
  flops_std?: number | null;
  flops_weighted_mean?: number | null;
}

/** The three groupings tt-perf-report's stacked report offers. */
export type StackedGroupBy = "op" | "memory" | "category";

/** The stacked reports over the final rows; null when no row is left for one. */
export interface StackedReports {
  op: StackedRow[] | null;
  memory: StackedRow[] | null;
  category: StackedRow[] | null;
}

/** What the console advice sections list. */
export interface AdviceSections {
  fallback_ids: number[];
  high_op_to_op_gap: {
    ids: number[];
    /** Σ(gap − 6) over the listed rows, µs. */
    max_gap_overhead_us: number;
    /** That over (busy time + visible gaps), in percent. */
    percentage_saved: number;
  } | null;
  matmul_optimization: { id: number; advice: string[] }[];
}

/** Totals of the final rows (the console total row and the lines under it). */
export interface PerfTotals {
  /** Σ Device Time (Python sum), µs. */
  device_time_us: number;
  /** Σ positive Op-to-Op Gap (Python sum), µs. */
  op_to_op_gap_us: number;
  /** Wall-clock busy time (plain loop), µs. */
  busy_time_us: number;
  /** device_time_us − busy_time_us. */
  overlapped_time_us: number;
  overall_dram_gb_s: number | null;
  overall_dram_percent: number | null;
  /** Counted before `--id-range` and `--no-host-ops`. */
  device_ops: number;
  host_ops: number;
  signposts: number;
}

/** The signpost window a report was generated over. */
export interface ReportWindow {
  start_signpost: string | null;
  end_signpost: string | null;
  /** A range was asked for but the report holds no signposts, so the whole file was read. */
  signpost_range_ignored: boolean;
  /** The occurrence of the start signpost the window starts after, and how many there are. */
  start_occurrence?: { used: number; of: number } | null;
}

/** A generated report. */
export interface PerfReport {
  /** The tt-perf-report state reproduced. */
  tt_perf_report_version: string;
  csv_format: CsvFormat;
  arch: ArchitectureSpec;
  rows: PerfRow[];
  window: ReportWindow;
  totals: PerfTotals;
  sub_devices: {
    /** Distinct non-blank sub-device ids over the final rows. */
    count: number;
    /** Whether the tool shows Available Cores (ids shown, or budgets vary). */
    show_available_cores: boolean;
    /** Distinct Available Cores values over the final rows, descending. */
    budgets: number[];
  };
  overlap: { has_overlap_data: boolean; gate_open: boolean };
  /** Final non-signpost rows whose device duration was invalid. */
  invalid_duration_rows: number;
  advice_sections: AdviceSections;
  stacked: StackedReports;
  /** The messages tt-perf-report prints in `--csv` mode (file-writing lines left out). */
  messages: string[];
}
