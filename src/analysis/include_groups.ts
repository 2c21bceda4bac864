/**
 * The `include` groups of a performance row: the fields that say why an operation took its
 * time, read from the same merged row tt-perf-report reports (for a collective, the first
 * device's CSV row), with times converted from the CSV's nanoseconds to microseconds.
 *
 * @module
 */
import { cellOf, type CsvTable, type PerfRow, rowClasses, rowIndexOf } from "../perf_report/mod.ts";
import { round3 } from "../kit/rounding.ts";

/** The groups `include` takes, in the order they are documented. */
export const INCLUDE_GROUPS = [
  "config",
  "utilisation",
  "noc",
  "riscs",
  "cores",
  "dispatch",
  "cache",
  "kernels",
  "advice",
  "flags",
] as const;

/** One include group. */
export type IncludeGroup = typeof INCLUDE_GROUPS[number];

/** Where a field comes from and how its cell is read. */
type Reader =
  | { from: "row"; get: (row: PerfRow) => unknown }
  | {
    from: "csv";
    column: string;
    as: "us" | "ideal_us" | "fpu_util" | "number" | "text" | "fidelity" | "bool" | "list";
  };

/** One field of a group. */
export interface IncludeField {
  name: string;
  group: IncludeGroup;
  read: Reader;
  /** What would fill the field when no row of a report carries it. */
  filledBy?: string;
}

const NOC = "--collect-noc-traces";
const DISPATCH = "--profile-dispatch-cores";
const TRACE = "a captured metal trace";
const MODEL = "a performance model that computes them";

const row = (get: (r: PerfRow) => unknown): Reader => ({ from: "row", get });
const csv = (column: string, as: Extract<Reader, { from: "csv" }>["as"]): Reader => ({
  from: "csv",
  column,
  as,
});
const f = (group: IncludeGroup, name: string, read: Reader, filledBy?: string): IncludeField => ({
  name,
  group,
  read,
  filledBy,
});

/** Every field of every group but flags (which adds no CSV fields). */
export const INCLUDE_FIELDS: readonly IncludeField[] = [
  f("config", "math_fidelity", csv("MATH FIDELITY", "fidelity")),
  f("config", "input_0_datatype", row((r) => r.input_0_datatype)),
  f("config", "input_1_datatype", row((r) => r.input_1_datatype)),
  f("config", "output_datatype", row((r) => r.output_datatype)),
  f("config", "input_0_memory", row((r) => r.input_0_memory)),
  f("config", "dram_sharded", row((r) => r.dram_sharded)),
  f("config", "inner_dim_block_size", row((r) => r.inner_dim_block_size)),
  f("config", "output_subblock_h", row((r) => r.output_subblock_h)),
  f("config", "output_subblock_w", row((r) => r.output_subblock_w)),
  f("utilisation", "dram", row((r) => round3(r.dram))),
  f("utilisation", "dram_percent", row((r) => round3(r.dram_percent))),
  f("utilisation", "flops", row((r) => round3(r.flops))),
  f("utilisation", "flops_percent", row((r) => round3(r.flops_percent))),
  f("utilisation", "pm_ideal_us", csv("PM IDEAL [ns]", "ideal_us"), MODEL),
  f("utilisation", "pm_compute_us", csv("PM COMPUTE [ns]", "ideal_us"), MODEL),
  f("utilisation", "pm_bandwidth_us", csv("PM BANDWIDTH [ns]", "ideal_us"), MODEL),
  f("utilisation", "pm_fpu_util_percent", csv("PM FPU UTIL (%)", "fpu_util"), MODEL),
  f("noc", "noc_util_percent", csv("NOC UTIL (%)", "number"), NOC),
  f("noc", "multicast_noc_util_percent", csv("MULTICAST NOC UTIL (%)", "number"), NOC),
  f("noc", "dram_bw_util_percent", csv("DRAM BW UTIL (%)", "number"), NOC),
  f("noc", "eth_bw_util_percent", csv("ETH BW UTIL (%)", "number"), NOC),
  f("noc", "npe_cong_impact_percent", csv("NPE CONG IMPACT (%)", "number"), NOC),
  f("riscs", "brisc_kernel_us", csv("DEVICE BRISC KERNEL DURATION [ns]", "us")),
  f("riscs", "ncrisc_kernel_us", csv("DEVICE NCRISC KERNEL DURATION [ns]", "us")),
  f("riscs", "trisc0_kernel_us", csv("DEVICE TRISC0 KERNEL DURATION [ns]", "us")),
  f("riscs", "trisc1_kernel_us", csv("DEVICE TRISC1 KERNEL DURATION [ns]", "us")),
  f("riscs", "trisc2_kernel_us", csv("DEVICE TRISC2 KERNEL DURATION [ns]", "us")),
  f("riscs", "erisc_kernel_us", csv("DEVICE ERISC KERNEL DURATION [ns]", "us")),
  f("riscs", "compute_cb_wait_front_us", csv("DEVICE COMPUTE CB WAIT FRONT [ns]", "us")),
  f("riscs", "compute_cb_reserve_back_us", csv("DEVICE COMPUTE CB RESERVE BACK [ns]", "us")),
  f("cores", "available_cores", csv("AVAILABLE WORKER CORE COUNT", "number")),
  f("cores", "kernel_first_to_last_start_us", csv("DEVICE KERNEL FIRST TO LAST START [ns]", "us")),
  f("cores", "kernel_per_core_min_us", csv("DEVICE KERNEL DURATION PER CORE MIN [ns]", "us")),
  f("cores", "kernel_per_core_max_us", csv("DEVICE KERNEL DURATION PER CORE MAX [ns]", "us")),
  f("cores", "kernel_per_core_avg_us", csv("DEVICE KERNEL DURATION PER CORE AVG [ns]", "us")),
  f("dispatch", "op_to_op_gap", row((r) => round3(r.op_to_op_gap))),
  f(
    "dispatch",
    "dispatch_cq_cmd_op_time_us",
    csv("DISPATCH TOTAL CQ CMD OP TIME [ns]", "us"),
    DISPATCH,
  ),
  f("dispatch", "dispatch_go_send_wait_us", csv("DISPATCH GO SEND WAIT TIME [ns]", "us"), DISPATCH),
  f("dispatch", "metal_trace_id", csv("METAL TRACE ID", "number"), TRACE),
  f(
    "dispatch",
    "metal_trace_replay_session_id",
    csv("METAL TRACE REPLAY SESSION ID", "number"),
    TRACE,
  ),
  f("cache", "program_hash", csv("PROGRAM HASH", "text")),
  f("cache", "program_cache_hit", csv("PROGRAM CACHE HIT", "bool")),
  f("cache", "global_call_count", row((r) => r.global_call_count)),
  f("kernels", "compute_kernel_sources", csv("COMPUTE KERNEL SOURCE", "list")),
  f("kernels", "compute_kernel_hashes", csv("COMPUTE KERNEL HASH", "list")),
  f("kernels", "data_movement_kernel_sources", csv("DATA MOVEMENT KERNEL SOURCE", "list")),
  f("kernels", "data_movement_kernel_hashes", csv("DATA MOVEMENT KERNEL HASH", "list")),
  f("advice", "advice", row((r) => r.advice)),
];

/** tt-metal leaves a performance model's ideal times at this when it does not model an op. */
export const IDEAL_PLACEHOLDER_NS = 1;

/** Fidelities a MATH FIDELITY cell can name. */
const FIDELITIES = new Set(["LoFi", "HiFi2", "HiFi3", "HiFi4"]);

/** A CSV table with its header indexed. */
export class RowCells {
  readonly #index: Map<string, number>;
  constructor(readonly table: CsvTable) {
    this.#index = new Map(table.header.map((h, i) => [h, i]));
  }
  /** Whether the report has the column. */
  has(column: string): boolean {
    return this.#index.has(column);
  }
  /**
   * Each CSV row's class over `columns` (see `rowClasses`): rows of one class hold the same
   * cells in all of them. A column the report lacks is left out.
   */
  classes(columns: readonly string[]): { of: Int32Array; count: number } {
    const at = columns.map((c) => this.#index.get(c)).filter((i) => i !== undefined);
    return rowClasses(this.table, at);
  }
  /** The CSV row (0-based) behind `row`. */
  position(row: PerfRow): number {
    return rowIndexOf(row.id);
  }
  /** The raw cell of `column` on the CSV row behind `row` (trimmed), or undefined. */
  cell(row: PerfRow, column: string): string | undefined {
    const i = this.#index.get(column);
    if (i === undefined) return undefined;
    return cellOf(this.table, rowIndexOf(row.id), i).trim();
  }
}

/** The value of one field of `row`: null when the row does not carry it. */
export function readField(field: IncludeField, row: PerfRow, cells: RowCells): unknown {
  if (field.read.from === "row") return field.read.get(row) ?? null;
  const raw = cells.cell(row, field.read.column);
  if (raw === undefined || raw === "" || /^nan$/i.test(raw)) return null;
  switch (field.read.as) {
    case "us":
      return finite(Number(raw) / 1000);
    case "ideal_us": {
      // The 1 ns placeholder means "not modelled", never a measured time.
      const ns = Number(raw);
      return Number.isFinite(ns) && ns > IDEAL_PLACEHOLDER_NS ? ns / 1000 : null;
    }
    case "fpu_util":
      // Derived from the ideal time: null with it when that is the placeholder.
      return idealNs(row, cells) === null ? null : finite(Number(raw));
    case "number":
      return finite(Number(raw));
    case "text":
      return raw;
    case "fidelity":
      return FIDELITIES.has(raw) ? raw : null;
    case "bool":
      return raw === "True" ? true : raw === "False" ? false : null;
    case "list":
      return parseKernelList(raw);
  }
}

/** The perf model's ideal time of `row` in ns, or null when absent or the 1 ns placeholder. */
export function idealNs(row: PerfRow, cells: RowCells): number | null {
  const ns = Number(cells.cell(row, "PM IDEAL [ns]") || NaN);
  return Number.isFinite(ns) && ns > IDEAL_PLACEHOLDER_NS ? ns : null;
}

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * A kernel list cell as tt-metal writes it — a Python list with its commas replaced by
 * semicolons — as a list of strings.
 *
 * @example
 * ```ts
 * import { parseKernelList } from "./include_groups.ts";
 * const l = parseKernelList("['a/b.cpp'; 'c.cpp']");
 * if (l.length !== 2 || l[1] !== "c.cpp" || parseKernelList("[]").length !== 0) throw new Error();
 * ```
 */
export function parseKernelList(cell: string): string[] {
  const body = cell.trim().replace(/^\[/, "").replace(/\]$/, "").trim();
  if (body === "") return [];
  return body.split(";").map((s) => s.trim().replace(/^['"]/, "").replace(/['"]$/, "")).filter((
    s,
  ) => s !== "");
}

/** A field no row of the report carries, and why. */
export interface EmptyField {
  field: string;
  group: IncludeGroup;
  /** `no_column`: the report has no such column; `empty`: the column is blank in every row. */
  why: "no_column" | "empty";
  column?: string;
  filled_by?: string;
}

/**
 * Fields of `groups` that no row of the whole report carries: left out of every row and
 * named instead, with what would fill them.
 */
export function emptyInReport(
  groups: readonly IncludeGroup[],
  whole: readonly PerfRow[],
  cells: RowCells,
): EmptyField[] {
  const out: EmptyField[] = [];
  for (const field of INCLUDE_FIELDS) {
    if (!groups.includes(field.group)) continue;
    if (field.read.from === "csv" && !cells.has(field.read.column)) {
      out.push({
        field: field.name,
        group: field.group,
        why: "no_column",
        column: field.read.column,
      });
      continue;
    }
    if (whole.some((r) => !isBlank(readField(field, r, cells)))) continue;
    out.push({
      field: field.name,
      group: field.group,
      why: "empty",
      ...(field.read.from === "csv" ? { column: field.read.column } : {}),
      ...(field.filledBy ? { filled_by: field.filledBy } : {}),
    });
  }
  return out;
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0);
}

/** The fields of `groups` to put on rows: every field but those empty in the report. */
export function fieldsToInclude(
  groups: readonly IncludeGroup[],
  empty: readonly EmptyField[],
): IncludeField[] {
  const skip = new Set(empty.map((e) => e.field));
  return INCLUDE_FIELDS.filter((f) => groups.includes(f.group) && !skip.has(f.name));
}

/** What `detail_note` says about the included fields. */
export const DETAIL_NOTE =
  "Included times are microseconds, converted from the CSV's nanoseconds (the *_us fields; " +
  "op_to_op_gap as tt-perf-report reports it). Every field comes from the same merged row as " +
  "the rest of the row: the slowest device's CSV row, except for an all-gather, " +
  "reduce-scatter or all-reduce, where tt-perf-report averages device_time and keeps the first " +
  "device's row for everything else, so its per-RISC and per-core times are one device's. A " +
  "1 ns perf-model ideal time is tt-metal's placeholder for an op it does not model and reads " +
  "as null, as does an FPU utilisation derived from it.";
