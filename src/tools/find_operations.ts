/**
 * `find_operations`: operations matching a name substring, a call-stack substring, or both,
 * with the ids operation_detail and operation_provenance take.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import { rankArg } from "./args.ts";
import {
  joinCaveats,
  rankCaveat,
  rankFields,
  rankScope,
  requireAttributable,
} from "../profiler_db/rank.ts";
import { findOperations, recordsTraces } from "../profiler_db/operations.ts";
import { profilerDb } from "../session/profiler_db.ts";
import { cannotAnswerFrom } from "../session/profiler_db.ts";

const NEEDS = { operations: ["operation_id", "name"] } as const;

/** The longest search text taken (SQLite refuses LIKE patterns past 50,000 bytes). */
const MAX_NEEDLE = 4096;

const input = z.strictObject({
  handle: handleArg,
  name_contains: z.string().max(MAX_NEEDLE).optional().describe(
    "Case-insensitive substring of the operation name (e.g. 'matmul'); blank matches every name.",
  ),
  called_from: z.string().max(MAX_NEEDLE).optional().describe(
    "Case-insensitive substring matched anywhere in the operation's recorded stack trace — a " +
      "file, helper or module name — so a layer finds the operations it called through helpers.",
  ),
  limit: limitArg("Operations"),
  rank: rankArg,
});

/** The `find_operations` tool. */
export const findOperationsTool = reportTool({
  name: "find_operations",
  title: "Find operations",
  description:
    "Find profiler operations by name substring and/or by called_from, a substring matched " +
    "anywhere in each operation's recorded stack trace (frames and source lines). Both are " +
    "literal text, not patterns, and narrow together. Returns operations in execution (id) " +
    "order with their host duration in seconds, match_count counting every match, and the " +
    "operation_id that operation_detail and operation_provenance take.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS),
  async handler(args, ctx) {
    const { report } = ctx;
    const name = (args.name_contains ?? "").trim();
    const calledFrom = args.called_from === undefined ? null : args.called_from.trim();
    if (calledFrom === "") {
      throw new Refusal("called_from is empty; omit it to search every operation");
    }
    const pdb = profilerDb(ctx, NEEDS);
    const scope = rankScope(pdb, args.rank);
    if (calledFrom !== null) requireAttributable(pdb, scope, ["stack_traces"]);
    const found = findOperations(pdb, scope, {
      nameContains: name,
      calledFrom,
      limit: capped(args.limit),
    });
    const noTraces = calledFrom !== null && !recordsTraces(pdb, scope)
      ? "This capture records no stack traces, so called_from can match nothing. An empty " +
        "result here is not evidence that no operation came from there."
      : null;
    const caveat = joinCaveats([rankCaveat(scope), noTraces]);
    return {
      handle: args.handle,
      name_contains: name === "" ? null : name,
      called_from: calledFrom,
      match_count: found.matchCount,
      returned: found.operations.length,
      operations: found.operations,
      duration_unit: "host_seconds",
      ...rankFields(scope),
      ...(caveat ? { caveat } : {}),
    };
  },
});
