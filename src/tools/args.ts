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

/** A handle argument (the instructions say where handles come from). */
export const handleArg = z.string();

/**
 * A limit argument: a whole number of at least 1; more than the cap returns the cap. The
 * instructions give the usual cap of 100; a tool with another says so.
 */
export function limitArg(_what: string, fallback = 10, cap = MAX_LIMIT) {
  const limit = z.number().int().min(1).default(fallback);
  return cap === MAX_LIMIT ? limit : limit.describe(`At most ${cap}.`);
}

/** The limit actually applied. */
export function capped(limit: number, cap = MAX_LIMIT): number {
  return Math.min(limit, cap);
}

/** The start and end of a signpost range, read as the instructions say. */
export const rangeArgs = {
  start_signpost: z.string().optional(),
  end_signpost: z.string().optional(),
  start_occurrence: z.number().int().min(1).optional(),
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
]).optional();

/** The device (PCIe slot) whose clock a device-log answer reads; default the lowest. */
export const deviceArg = z.number().int().min(0).optional();

/** Every instance of one op code. */
export const opCodeArg = z.string().min(1).optional();

/** The rank of a multi-host report to read (default 0). */
export const rankArg = z.number().int().min(0).optional();

/** A profiler operation id, never a performance row id. */
export const operationIdArg = z.number().int();
