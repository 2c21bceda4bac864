/**
 * Arguments the performance tools share: the handle, the capped limit and the signpost range.
 *
 * @module
 */
import { z } from "zod";

/** The most rows or groups any performance answer lists. */
export const MAX_LIMIT = 100;

/** A handle argument. */
export const handleArg = z.string().describe("A handle returned by load_report.");

/** A limit argument: a whole number of at least 1; more than the cap returns the cap. */
export function limitArg(what: string, fallback = 10) {
  return z.number().int().min(1).default(fallback).describe(
    `${what} to return (default ${fallback}); more than ${MAX_LIMIT} returns ${MAX_LIMIT}.`,
  );
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
};

/** The limit actually applied. */
export function capped(limit: number): number {
  return Math.min(limit, MAX_LIMIT);
}
