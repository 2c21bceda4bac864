/**
 * Arguments the profiler-database tools share: the rank of a multi-host report and a profiler
 * operation id (never a performance row id).
 *
 * @module
 */
import { z } from "zod";

/** The rank to read. */
export const rankArg = z.number().int().min(0).optional().describe(
  "Rank to read in a multi-host report (default 0). Operation ids restart per rank, so one " +
    "rank is read at a time.",
);

/** A profiler operation id. */
export const operationIdArg = z.number().int().describe(
  "A profiler operation_id (from find_operations, memory_profile, or a top_ops row's " +
    "operation_id field) — not a top_ops row id, which numbers performance CSV rows.",
);
