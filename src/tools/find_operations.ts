/**
 * `find_operations`: operations matching a name substring, a call-stack substring, or both,
 * with the ids operation_detail and operation_provenance take.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, helped, limitArg, rankArg } from "./args.ts";
import {
  findOperations,
  type ListedOperation,
  rankCaveat,
  rankFields,
  rankScope,
  recordsTraces,
  requireAttributable,
} from "../profiler_db/mod.ts";
import { cannotAnswerFrom, profilerDb } from "../session/profiler_db.ts";

const NEEDS = { operations: ["operation_id", "name"] } as const;

/** The longest search text taken (SQLite refuses LIKE patterns past 50,000 bytes). */
const MAX_NEEDLE = 4096;

const input = z.strictObject({
  handle: handleArg,
  name_contains: helped(
    z.string().max(MAX_NEEDLE).optional(),
    "A substring of the operation's name, matched literally.",
  ),
  called_from: z.string().max(MAX_NEEDLE).optional().describe("Substring of its stack trace."),
  limit: limitArg("Operations"),
  rank: rankArg,
});

/** The answer of `find_operations`. */
export interface FindOperationsAnswer {
  handle: string;
  /** The name substring searched for; null when blank or omitted (every name). */
  name_contains: string | null;
  /** The stack-trace substring searched for; null when omitted. */
  called_from: string | null;
  /** Every match, listed or not. */
  match_count: number;
  returned: number;
  /** The first matches in operation id order. */
  operations: ListedOperation[];
  duration_unit: "host_seconds";
  multi_host: boolean;
  rank: number | null;
}

/** What the caveat says when called_from is searched in a capture without stack traces. */
const NO_TRACES = "This capture records no stack traces, so called_from can match nothing. An " +
  "empty result here is not evidence that no operation came from there.";

/**
 * `text` without the spaces around it. A control character (a tab, a newline, a NUL) is
 * searched for like any other, never trimmed away into a blank search that matches every
 * operation.
 */
function trimSpaces(text: string): string {
  return text.replace(/^[^\S\p{Cc}]+|[^\S\p{Cc}]+$/gu, "");
}

/** The `find_operations` tool. */
export const findOperationsTool = reportTool({
  name: "find_operations",
  title: "Find operations",
  summary: "Profiler operations by name substring and/or called_from (a stack-trace " +
    "substring), in id order, with the operation_id the other tools take.",
  description:
    "Profiler operations by name and/or stack-trace substring (called_from), in execution " +
    "order, with operation_id.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS),
  handler(args, ctx): FindOperationsAnswer {
    const name = trimSpaces(args.name_contains ?? "");
    const calledFrom = args.called_from === undefined ? null : trimSpaces(args.called_from);
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
    ctx.parts.caveat(
      rankCaveat(scope),
      calledFrom !== null && !recordsTraces(pdb, scope) ? NO_TRACES : null,
    );
    ctx.parts.cut("operations", {
      total: found.matchCount,
      returned: found.operations.length,
      reason: "limit",
      more: "pass a higher limit (at most 100) or a narrower name_contains or called_from",
    });
    return {
      handle: args.handle,
      name_contains: name === "" ? null : name,
      called_from: calledFrom,
      match_count: found.matchCount,
      returned: found.operations.length,
      operations: found.operations,
      duration_unit: "host_seconds",
      ...rankFields(scope),
    };
  },
});
