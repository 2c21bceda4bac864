/**
 * tt-perf-report 6278e268's advice: per-matmul advice (`generate_matmul_advice`) and what the
 * console advice sections list (fallback ops, high op-to-op gaps, matmuls).
 * @module
 */

import { evaluateFidelity } from "./fidelity.ts";
import { pythonSum } from "./summation.ts";
import { busyTime, gapTime, isHostOp, isMatmulOp } from "./_rows.ts";
import type { AdviceSections, PerfRow } from "./types.ts";
import { pyFirstToken } from "./_python.ts";

/** What `generate_matmul_advice` reads of a row. */
export type MatmulAdviceInput =
  & Pick<
    PerfRow,
    | "op_code"
    | "bound"
    | "math_fidelity"
    | "cores"
    | "available_cores"
    | "dram_sharded"
    | "flops_percent"
    | "input_0_memory"
    | "inner_dim_block_size"
    | "output_subblock_h"
    | "output_subblock_w"
  >
  & {
    /** Datatypes: text, null for a blank cell (NaN), undefined when the column is absent. */
    output_datatype: string | null | undefined;
    input_0_datatype: string | null | undefined;
    input_1_datatype: string | null | undefined;
    sparse_matmul: boolean;
    sparse_active_batches_missing: boolean;
  };

/** The advice input of a report row. */
export function matmulAdviceInput(row: PerfRow): MatmulAdviceInput {
  return {
    ...row,
    sparse_matmul: row.internal.sparse_matmul,
    sparse_active_batches_missing: row.internal.sparse_active_batches_missing,
  };
}

const DRAM_SHARDED_HINT =
  "Try a DRAM-sharded program config (MatmulMultiCoreReuseMultiCastDRAMShardedProgramConfig) to improve throughput further";

/**
 * The advice list tt-perf-report gives a matmul row (possibly empty).
 * @throws {PerfReportInputError} kind `unknown_math_fidelity` where the tool would abort
 */
export function generateMatmulAdvice(row: MatmulAdviceInput): string[] {
  if (row.sparse_active_batches_missing) {
    return [
      "Sparse matmul utilization is omitted because the CSV row has nnz=std::nullopt; pass --active-experts K to model K active experts per input batch group",
    ];
  }
  const advice: string[] = [];
  const fidelity = row.math_fidelity ? (pyFirstToken(row.math_fidelity) ?? null) : null;
  const { verdict, advice: fidelityAdvice } = evaluateFidelity(
    row.input_0_datatype,
    row.input_1_datatype,
    row.output_datatype,
    fidelity,
  );
  const sparse = row.sparse_matmul || row.op_code.includes("SparseMatmul");
  if (row.bound === "DRAM" || row.bound === "BOTH") {
    if (!row.dram_sharded && !sparse) advice.push(DRAM_SHARDED_HINT);
    if (verdict === "too_low" && (row.flops_percent as number) < 40) advice.push(fidelityAdvice!);
    if (verdict === "too_high") advice.push(fidelityAdvice!);
  } else if (row.bound === "FLOP") {
    const cores = row.cores;
    const available = row.available_cores;
    if (!row.dram_sharded && cores !== null && available !== null && cores < available) {
      advice.push(`Increase grid size (currently using ${cores} of ${available})`);
    }
    if (verdict === "too_high") advice.push(fidelityAdvice!);
  } else if (row.bound === "SLOW") {
    const memory = row.input_0_memory;
    if (memory && !memory.includes("L1")) {
      advice.push(`If possible place input 0 in L1 (currently in ${memory})`);
    }
    const inner = row.inner_dim_block_size;
    const h = row.output_subblock_h;
    const w = row.output_subblock_w;
    const sharded = row.dram_sharded;
    if (!sharded && inner === null && h === null && w === null) {
      advice.push(
        "No program_config specified, try using one to override in0_block_w and out_subblock_h/w",
      );
    } else {
      let allGood = true;
      if (inner !== null) {
        if (inner < 2) {
          advice.push(`in0_block_w=${inner} is small, try in0_block_w=2 or above`);
          allGood = false;
        }
      } else {
        advice.push("No inner dim block size found");
        allGood = false;
      }
      if (!sharded) {
        if (h !== null && w !== null) {
          if (h * w < 2) {
            advice.push(
              `Output subblock ${h}x${w} is small, try out_subblock_h * out_subblock_w >= 2 if possible`,
            );
            allGood = false;
          }
        } else {
          advice.push("No output subblock size found");
          allGood = false;
        }
      }
      if (allGood) {
        const innerText = inner === null ? "None" : String(inner);
        advice.push(
          sharded
            ? `in0_block_w=${innerText} looks good 🤷`
            : `in0_block_w=${innerText} and output subblock ${h}x${w} look good 🤷`,
        );
      }
      if (fidelityAdvice) advice.push(fidelityAdvice);
    }
  }
  return advice;
}

/** Gap above which a row is listed in the High Op-to-Op Gap section, in µs. */
export const HIGH_GAP_THRESHOLD_US = 6.5;

/**
 * The console advice sections for the final rows: host ops, rows whose gap exceeds 6.5 µs
 * with the tracing-savings estimate (Σ(gap − 6) over busy time + visible gaps), and matmuls.
 */
export function adviceSections(rows: readonly PerfRow[], gateOpen = false): AdviceSections {
  const fallback = rows.filter((r) => isHostOp(r.op_code)).map((r) => r.id);
  const highGap = rows.filter((r) =>
    r.op_to_op_gap !== null && r.op_to_op_gap > HIGH_GAP_THRESHOLD_US
  );
  let high: AdviceSections["high_op_to_op_gap"] = null;
  if (highGap.length > 0) {
    const overhead = pythonSum(highGap.map((r) => (r.op_to_op_gap as number) - 6));
    const total = busyTime(rows, gateOpen) + gapTime(rows);
    high = {
      ids: highGap.map((r) => r.id),
      max_gap_overhead_us: overhead,
      percentage_saved: (overhead / total) * 100,
    };
  }
  const matmul = rows.filter((r) => isMatmulOp(r.op_code)).map((r) => ({
    id: r.id,
    advice: r.advice ?? [],
  }));
  return { fallback_ids: fallback, high_op_to_op_gap: high, matmul_optimization: matmul };
}
