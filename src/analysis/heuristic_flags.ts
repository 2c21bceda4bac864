/**
 * The performance view's heuristic flags, with the figures each fired on: dram_bound,
 * low_utilisation, underutilised_cores and recompute_candidate. The first three apply only to
 * an operation whose total_percent is at least 0.5; none applies to a signpost or a host op.
 * Two deliberate differences from the view: first calls and the report_rows core fallback
 * read the whole report even over a range, and a 1 ns ideal time (tt-metal's "not modelled"
 * placeholder) never flags low utilisation.
 *
 * @module
 */
import type { PerfRow } from "../perf_report/mod.ts";
import type { Inventory } from "../session/inventory.ts";
import { idealNs, type RowCells } from "./include_groups.ts";
import type { ProgramCall } from "./program_calls.ts";
import { round3 } from "../kit/rounding.ts";

/** tt-perf-report's mute threshold, which gates the first three flags. */
export const MIN_TOTAL_PERCENT = 0.5;
/** Core utilisation below this flags low_utilisation. */
export const LOW_UTILISATION_RATIO = 0.3;
/** Fewer cores than this share of the capacity flags underutilised_cores. */
export const UNDERUTILISED_CORES_RATIO = 0.25;

/** The flags in the order the view shows them. */
export const FLAG_NAMES = [
  "dram_bound",
  "low_utilisation",
  "underutilised_cores",
  "recompute_candidate",
] as const;

/** Worker cores per architecture where the web application knows the architecture. */
const ARCH_CORES: Record<string, number> = {
  grayskull: 108,
  wormhole_b0: 64,
  wormhole: 64,
  blackhole: 130,
};
const WORMHOLE_CORES = 64;

/** The device's core count and where it was read. */
export interface MaxCores {
  max_cores: number;
  max_cores_source: "device_log" | "architecture_default" | "report_rows" | "fallback_default";
}

/**
 * The device's core count as the web application reads it: the device log's Max Compute
 * Cores; else its architecture's default (Wormhole's when unknown), or the most cores any row
 * of the whole report used where that is more. A count of 0 falls back to Wormhole's.
 */
export function maxCoresOf(inv: Inventory, whole: readonly PerfRow[]): MaxCores {
  const capture = inv.performance?.deviceLog?.capture ?? {};
  const fromLog = capture["Max Compute Cores"];
  if (fromLog !== undefined && fromLog.trim() !== "") {
    const n = Number(fromLog);
    if (Number.isFinite(n) && n > 0) return { max_cores: n, max_cores_source: "device_log" };
    if (n === 0) return { max_cores: WORMHOLE_CORES, max_cores_source: "fallback_default" };
  }
  const arch = (capture.ARCH ?? "").trim().toLowerCase();
  const byArch = ARCH_CORES[arch] ?? WORMHOLE_CORES;
  const used = Math.max(0, ...whole.map((r) => r.cores ?? 0));
  if (used > byArch) return { max_cores: used, max_cores_source: "report_rows" };
  return { max_cores: byArch, max_cores_source: "architecture_default" };
}

/** What the flags read besides the row. */
export interface FlagContext {
  cells: RowCells;
  calls: Map<number, ProgramCall>;
  maxCores: MaxCores;
  /** Whether the row already carries program_hash (the cache group was included). */
  rowHasProgramHash: boolean;
}

/** One flag on a row and the figures behind it. */
export type Flag = Record<string, unknown> & { flag: typeof FLAG_NAMES[number] };

/** The flags that apply to `row`, in the view's order. */
export function flagsOf(row: PerfRow, ctx: FlagContext): Flag[] {
  if (row.is_signpost || row.is_host_op || row.op_type === "signpost" || row.bound === "HOST") {
    return [];
  }
  const flags: Flag[] = [];
  const impact = row.total_percent !== null && row.total_percent >= MIN_TOTAL_PERCENT;
  if (impact) {
    const dram = row.dram_percent;
    const flops = row.flops_percent;
    if (row.bound === "DRAM") {
      flags.push({
        flag: "dram_bound",
        reason: "bound_dram",
        dram_percent: round3(dram),
        flops_percent: round3(flops),
      });
    } else if (row.bound === "SLOW" && dram !== null && flops !== null && dram > flops) {
      flags.push({
        flag: "dram_bound",
        reason: "slow_dram_above_flops",
        dram_percent: round3(dram),
        flops_percent: round3(flops),
      });
    }
    const capacity = coreCapacity(row, ctx);
    const ideal = idealNs(row, ctx.cells);
    if (
      ideal !== null && row.device_time !== null && row.device_time > 0 && row.cores !== null &&
      row.cores > 0
    ) {
      const u = (ideal / (row.device_time * 1000)) * capacity.core_capacity / row.cores;
      if (u > 0 && u < LOW_UTILISATION_RATIO) {
        flags.push({
          flag: "low_utilisation",
          core_utilisation_percent: cut3(u * 100),
          roofline_modelled: row.bound_analysis === undefined
            ? null
            : row.bound_analysis !== "none",
        });
      }
    }
    if (
      row.cores !== null && row.cores > 0 && capacity.core_capacity > 0 &&
      row.cores / capacity.core_capacity < UNDERUTILISED_CORES_RATIO
    ) {
      flags.push({ flag: "underutilised_cores", ...capacity });
    }
  }
  const call = ctx.calls.get(row.id);
  if (call?.repeat && call.hit === false) {
    flags.push({
      flag: "recompute_candidate",
      ...(ctx.rowHasProgramHash ? {} : { program_hash: call.hash }),
    });
  }
  return flags;
}

/**
 * The capacity a row's core count is read against, and where it came from: the row's own
 * AVAILABLE WORKER CORE COUNT, else the device's core count.
 */
function coreCapacity(
  row: PerfRow,
  ctx: FlagContext,
): { core_capacity: number; core_capacity_from: string } {
  const own = Number(ctx.cells.cell(row, "AVAILABLE WORKER CORE COUNT") || NaN);
  return Number.isFinite(own) && own > 0
    ? { core_capacity: own, core_capacity_from: "available_cores" }
    : { core_capacity: ctx.maxCores.max_cores, core_capacity_from: "max_cores" };
}

/** What flag_basis.cores_rule says: the core count underutilised_cores reads, as the view does. */
export const CORES_RULE =
  "underutilised_cores reads a row's cores as tt-perf-report reports them, as the performance " +
  "view does: for a DRAM-sharded matmul that is the architecture's DRAM-sharded core count (12 " +
  "on Wormhole, 8 on Blackhole), not the CSV's CORE COUNT (the cores its kernels ran on, which " +
  "the row gives as csv_core_count), so a DRAM-sharded matmul is flagged whenever that count is " +
  "under a quarter of core_capacity.";

/** What flag_basis.note says. */
export const FLAG_NOTE =
  "Two deliberate differences from the performance view: over a signpost range, first calls " +
  "and the report_rows core fallback are read from the whole report (the view reads the rows " +
  "it shows, so a program first called before the window reads as first called inside it); " +
  "and a 1 ns perf-model ideal time, tt-metal's placeholder for an op it does not model, never " +
  "flags low_utilisation (the view reads it as a measured time).";

/**
 * `x` cut (not rounded) to three decimals, so a figure under a threshold never reads as at
 * it; binary noise below 1e-9 is settled first, so 29.96 is not cut to 29.959.
 *
 * @example
 * ```ts
 * import { cut3 } from "./heuristic_flags.ts";
 * if (cut3(29.9999) !== 29.999 || cut3(0.2996 * 100) !== 29.96) throw new Error();
 * ```
 */
export function cut3(x: number): number {
  const text = x.toFixed(9); // decimal digits, so the cut is exact
  return Number(text.slice(0, text.indexOf(".") + 4));
}
