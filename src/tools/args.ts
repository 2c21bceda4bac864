/**
 * The arguments several tools take, each defined once: the handle, the capped limit, the
 * signpost range, a performance row's id, a device, an op code, a rank and a profiler
 * operation id. A tool that needs a different wording of one says so with `.describe()` on
 * the shared definition, never with a second definition.
 *
 * @module
 */
import { z } from "zod";
import { FIRST_ROW_ID } from "../perf_report/row_id.ts";

/** The most rows or groups any performance answer lists. */
export const MAX_LIMIT = 100;

/** A handle argument. */
export const handleArg = z.string().describe("A handle returned by load_report.");

/** A limit argument: a whole number of at least 1; more than the cap returns the cap. */
export function limitArg(what: string, fallback = 10, cap = MAX_LIMIT) {
  return z.number().int().min(1).default(fallback).describe(
    `${what} to return (default ${fallback}); more than ${cap} returns ${cap}.`,
  );
}

/** The limit actually applied. */
export function capped(limit: number, cap = MAX_LIMIT): number {
  return Math.min(limit, cap);
}

/** The start and end of a signpost range. */
export const rangeArgs = {
  start_signpost: z.string().optional().describe(
    "Read only the rows after this signpost (its earliest occurrence by host start time), " +
      "as tt-perf-report --start-signpost does.",
  ),
  end_signpost: z.string().optional().describe(
    "Read only the rows before this signpost; naming the start signpost again means its " +
      "second occurrence, as tt-perf-report --end-signpost does.",
  ),
  start_occurrence: z.number().int().min(1).optional().describe(
    "Which occurrence of start_signpost to start after (default 1, tt-perf-report's earliest); " +
      "past 1 the end is end_signpost's first occurrence after it. Use it to skip cold iterations.",
  ),
};

/** The range a ranged tool's arguments ask for. */
export function rangeOf(args: {
  start_signpost?: string;
  end_signpost?: string;
  start_occurrence?: number;
}): { start_signpost?: string; end_signpost?: string; start_occurrence?: number } {
  return {
    start_signpost: args.start_signpost,
    end_signpost: args.end_signpost,
    ...(args.start_occurrence === undefined ? {} : { start_occurrence: args.start_occurrence }),
  };
}

/**
 * One performance row's id: its line in the CSV, a number or digits in a string (as top_ops
 * gives ids), at least the first data line.
 */
export const perfIdArg = z.union([
  z.number().int().min(FIRST_ROW_ID),
  z.string().regex(/^\s*\d+\s*$/),
]).optional().describe("One performance row's id (its CSV line, as top_ops gives it).");

/** The device whose clock a device-log answer reads. */
export const deviceArg = z.number().int().min(0).optional().describe(
  "The device (PCIe slot = DEVICE ID) whose clock to read; default the lowest one with " +
    "device operations. Cycle counters of different devices are never compared.",
);

/** Every instance of one op code. */
export const opCodeArg = z.string().min(1).optional().describe(
  "Every instance of this op code (the CSV's OP CODE, e.g. Matmul or MatmulDeviceOperation).",
);

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
