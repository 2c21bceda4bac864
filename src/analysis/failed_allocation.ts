/**
 * operation_detail's `failed_allocation`: for an operation whose attached error is one of
 * tt-metal's allocation failures, the allocator's account at the failing request (from the
 * error message) beside the buffers snapshot after the operation (its l1_pressure, or what
 * was allocated of the failed buffer type), each labelled, so the two are never read as one
 * figure — they are different instants.
 *
 * @module
 */
import type { ErrorView } from "./run_errors.ts";
import type { OperationL1Pressure } from "./l1_pressure_at.ts";
import type { TypeAllocation } from "../profiler_db/mod.ts";

/** The allocator's account when the allocation failed, as the error message gives it. */
export interface AtFailedAllocation {
  source: string;
  kind: string;
  buffer_type: string | null;
  bytes_per_bank_needed: number | null;
  bank_size_bytes: number | null;
  allocated_bytes: number | null;
  free_bytes: number | null;
  largest_free_block_bytes: number | null;
}

/** The buffers snapshot after the operation, of the failed buffer type. */
export interface AfterOperation {
  source: string;
  /** L1 and L1_SMALL: l1_pressure's figures on its most constrained device. */
  largest_free_block_bytes?: number;
  used_bytes?: number;
  usable_bytes?: number;
  fullness_pct?: number;
  /** Another buffer type: bytes per bank allocated on its most loaded device. */
  allocated_bytes_per_bank?: number;
}

/** Both accounts of a failed allocation, side by side. */
export interface FailedAllocation {
  size_unit: "bytes_per_bank";
  at_failed_allocation: AtFailedAllocation;
  /** Null when the report holds no snapshot of that buffer type after the operation. */
  after_operation: AfterOperation | null;
  why_they_differ: string;
}

const AT_SOURCE = "the error message: the allocator's own figures at the request that failed";
const AFTER_SOURCE = "the buffers snapshot after the operation";

/**
 * The failed allocation of `error`, beside the snapshot after its operation; null when the
 * error is not an allocation failure.
 */
export function failedAllocationField(
  error: ErrorView | null,
  pressure: OperationL1Pressure | null,
  allocations: Record<string, TypeAllocation>,
): FailedAllocation | null {
  const f = error?.allocation_failure ?? null;
  if (f === null) return null;
  const onL1 = f.buffer_type === null || f.buffer_type === "L1" || f.buffer_type === "L1_SMALL";
  let after: AfterOperation | null = null;
  if (onL1 && pressure !== null) {
    after = {
      source: `${AFTER_SOURCE} (l1_pressure), on device ${pressure.device_id}`,
      largest_free_block_bytes: pressure.largest_free_block,
      used_bytes: pressure.used_bytes,
      usable_bytes: pressure.usable_bytes,
      fullness_pct: pressure.fullness_pct,
    };
  } else if (!onL1 && allocations[f.buffer_type!]) {
    const a = allocations[f.buffer_type!];
    after = {
      source: `${AFTER_SOURCE} (allocations.${f.buffer_type}), on device ${a.device_id}`,
      allocated_bytes_per_bank: a.size,
    };
  }
  return {
    size_unit: "bytes_per_bank",
    at_failed_allocation: {
      source: AT_SOURCE,
      kind: f.kind,
      buffer_type: f.buffer_type,
      bytes_per_bank_needed: f.bytes_per_bank,
      bank_size_bytes: f.bank_size_bytes,
      allocated_bytes: f.allocated_bytes,
      free_bytes: f.free_bytes,
      largest_free_block_bytes: f.largest_free_block_bytes,
    },
    after_operation: after,
    why_they_differ: whyTheyDiffer(f.largest_free_block_bytes, after),
  };
}

function whyTheyDiffer(atFailure: number | null, after: AfterOperation | null): string {
  const instants = "They are two instants: at_failed_allocation is the allocator's account " +
    "at the failing request — every buffer allocated until then, the operation's own earlier " +
    "ones included — and the request itself was never placed; after_operation is the buffers " +
    "the report recorded once the operation was over, without any it allocated and freed, so " +
    "its free space is an upper bound.";
  if (after === null) {
    return `${instants} The report holds no snapshot of that buffer type after the operation.`;
  }
  const a = after.largest_free_block_bytes;
  return atFailure !== null && a !== undefined && a !== atFailure
    ? `${instants} Here the largest free block reads ${atFailure} B at the failure and ${a} B ` +
      "after the operation."
    : instants;
}
