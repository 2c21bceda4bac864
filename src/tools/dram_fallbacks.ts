/**
 * `dram_fallbacks`: operations that likely fell back from L1 to DRAM — inferred, since
 * tt-metal records nothing when one does — from memory config arguments that asked for L1
 * while the outputs landed in DRAM, and from retries after an L1 allocation failure.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { capped, handleArg, limitArg, rankArg } from "./args.ts";
import { rankCaveat, rankFields } from "../profiler_db/mod.ts";
import {
  DRAM_FALLBACK_NEEDS,
  DRAM_FALLBACK_RANKED,
  type DramFallback,
  dramFallbacks,
  RETRY_WINDOW,
} from "../analysis/dram_fallbacks.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";

const NEEDS = DRAM_FALLBACK_NEEDS;
const RANKED = DRAM_FALLBACK_RANKED;

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Operations"),
  rank: rankArg,
});

const NOTE = "These are inferred: tt-metal records nothing when an operation falls back from " +
  "L1 to DRAM. argument_mismatch: every memory config argument asked for L1 or L1_SMALL " +
  "(arguments named for an intermediate are not counted) while every output the operation " +
  "allocated itself is in DRAM. retry_after_failure: the first operation of the same name " +
  `within ${RETRY_WINDOW} operations after one that failed to allocate L1 (per errors), with ` +
  "every output it allocated itself in DRAM; it outranks a mismatch. An output at the " +
  "address of a DRAM input on the same device may be a view of it, so it is not one the " +
  "operation allocated and is not counted in dram_output_count; output_count counts every " +
  "output.";

/** The answer of `dram_fallbacks`. */
export interface DramFallbacksAnswer {
  handle: string;
  /** Every likely fallback, listed or not, and how many of each signal. */
  fallback_count: number;
  argument_mismatch_count: number;
  retry_after_failure_count: number;
  operations_read: number;
  returned: number;
  /** The first fallbacks in operation id order. */
  fallbacks: DramFallback[];
  /** Whether retries after an L1 allocation failure were looked for. */
  retry_signal_checked: boolean;
  multi_host: boolean;
  rank: number | null;
  note: string;
}

/** The `dram_fallbacks` tool. */
export const dramFallbacksTool = reportTool({
  name: "dram_fallbacks",
  title: "Likely DRAM fallbacks",
  summary: "Profiler operations that likely fell back from L1 to DRAM (inferred: an argument " +
    "mismatch, or a retry after an L1 allocation failure).",
  description:
    "Operations that likely fell back from L1 to DRAM (from memory configs and retries after " +
    "L1 failures).",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  async handler(args, ctx): Promise<DramFallbacksAnswer> {
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const found = await dramFallbacks(pdb, scope, ctx.signal);
    const listed = found.fallbacks.slice(0, capped(args.limit));
    ctx.parts.cut("fallbacks", {
      total: found.fallbacks.length,
      returned: listed.length,
      reason: "limit",
      more: "pass a higher limit (at most 100); the counts cover every fallback",
    });
    ctx.parts.caveat(
      rankCaveat(scope),
      found.retryUnchecked !== null
        ? "Retries after an L1 allocation failure were not looked for, so only " +
          `argument_mismatch is reported: ${found.retryUnchecked}.`
        : null,
    );
    return {
      handle: args.handle,
      fallback_count: found.fallbacks.length,
      argument_mismatch_count: countOf(found.fallbacks, "argument_mismatch"),
      retry_after_failure_count: countOf(found.fallbacks, "retry_after_failure"),
      operations_read: found.operationCount,
      returned: listed.length,
      fallbacks: listed,
      retry_signal_checked: found.retryUnchecked === null,
      ...rankFields(scope),
      note: NOTE,
    };
  },
});

/** How many of the fallbacks carry `signal`. */
function countOf(fallbacks: readonly DramFallback[], signal: DramFallback["signal"]): number {
  return fallbacks.filter((f) => f.signal === signal).length;
}
