/**
 * Internal: what the out-of-memory tools (errors, operation_detail, l1_peak, memory_profile)
 * name as the next call on a failed run, said once: the arguments that keep the handle and
 * rank, whether l1_peak can tell what held the memory a failed request wanted, and the step
 * to the failed operation itself.
 *
 * @module
 */
import type { ReportContext } from "./tool.ts";

/** A next step's arguments: the answer's handle, and its rank when one was read. */
export function atRank(handle: string, rank: number | null): { handle: string; rank?: number } {
  return { handle, ...(rank === null ? {} : { rank }) };
}

/**
 * Whether l1_peak can say what held the memory a failed request of `bufferType` wanted: an
 * L1 type, or one the error did not name.
 *
 * @example
 * ```ts
 * import { l1PeakTells } from "./_failure_steps.ts";
 * if (!l1PeakTells(null) || !l1PeakTells("L1_SMALL") || l1PeakTells("DRAM")) throw new Error();
 * ```
 */
export function l1PeakTells(bufferType: string | null | undefined): boolean {
  return !bufferType || bufferType === "L1" || bufferType === "L1_SMALL";
}

/** The step to the operation a run failed on: operation_detail, at the rank read. */
export function nextToFailedOperation(
  ctx: ReportContext,
  rank: number | null,
  operationId: number,
): void {
  ctx.parts.next({
    tool: "operation_detail",
    why: `operation ${operationId} failed: its failed request beside the memory recorded ` +
      "after it",
    arguments: { ...atRank(ctx.report.handle, rank), operation_id: operationId },
  });
}

/**
 * The step when l1_peak cannot answer: memory_profile's L1 footprints (a floor of what held
 * L1, without circular buffers).
 */
export function l1Footprints(ctx: ReportContext, at: { handle: string; rank?: number }): void {
  ctx.parts.next({
    tool: "memory_profile",
    why: "l1_peak cannot answer here: the L1 buffers recorded after each operation, a floor " +
      "of what held L1 (circular buffers left out)",
    arguments: { ...at, buffer_type: "L1" },
  });
}
