/**
 * `operation_provenance`: what one operation was called with, and where in the model code it
 * came from — the innermost frame of its recorded stack trace, then the chain outward.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg, operationIdArg, rankArg } from "./args.ts";
import {
  type Frame,
  noOperation,
  operationById,
  rankCaveat,
  rankFields,
} from "../profiler_db/mod.ts";
import {
  type Argument,
  argumentsOf,
  type Trace,
  traceOf,
  VALUE_CAP_CHARS,
} from "../analysis/provenance.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";

const NEEDS = {
  operations: ["operation_id", "name"],
  operation_arguments: ["operation_id", "name", "value"],
} as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
const RANKED = ["operation_arguments", "stack_traces"];

const input = z.strictObject({
  handle: handleArg,
  operation_id: operationIdArg,
  limit: limitArg("Frames of the outward chain (the call site is not counted)").describe(
    "Frames outward.",
  ),
  rank: rankArg,
});

/** Whether the operation's stack trace gave a call site, and if not, why. */
type CallSiteStatus = "recorded" | "no_trace_recorded" | "trace_unreadable";

/** The answer of `operation_provenance`. */
export interface OperationProvenanceAnswer {
  handle: string;
  operation_id: number;
  name: string | null;
  /** Its arguments in table order, each value capped at value_cap_chars. */
  arguments: Argument[];
  argument_count: number;
  value_cap_chars: number;
  truncated_count: number;
  call_site_status: CallSiteStatus;
  /** The innermost frame of its stack trace, or null without a readable one. */
  call_site: Frame | null;
  /** The frames outward from the call site, up to limit. */
  frames: Frame[];
  returned_frames: number;
  chain_length: number;
  multi_host: boolean;
  rank: number | null;
}

/** The `operation_provenance` tool. */
export const operationProvenanceTool = reportTool({
  name: "operation_provenance",
  title: "Where an operation came from",
  summary: "What one profiler operation was called with (its arguments) and where in the " +
    "model code it came from: its call site and the frames outward.",
  description:
    "What one profiler operation was called with and where in the model code it came from " +
    "(call site, frames).",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  handler(args, ctx): OperationProvenanceAnswer {
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const op = operationById(pdb, scope, args.operation_id);
    if (op === null) throw new Refusal(noOperation(args.operation_id, scope));
    const { count, listed } = argumentsOf(pdb, scope, op.operation_id);
    const trace = traceOf(pdb, scope, op.operation_id);
    const frames = trace.kind === "frames" ? trace.frames : [];
    const outward = frames.slice(1, 1 + capped(args.limit));
    ctx.parts.caveat(rankCaveat(scope), traceCaveat(trace));
    return {
      handle: args.handle,
      operation_id: op.operation_id,
      name: op.name,
      arguments: listed,
      argument_count: count,
      value_cap_chars: VALUE_CAP_CHARS,
      truncated_count: listed.filter((a) => "truncated" in a).length,
      call_site_status: callSiteStatus(trace),
      call_site: frames[0] ?? null,
      frames: outward,
      returned_frames: outward.length,
      chain_length: Math.max(0, frames.length - 1),
      ...rankFields(scope),
    };
  },
});

/** call_site_status: a trace with frames, none recorded, or one this tool cannot read. */
function callSiteStatus(trace: Trace): CallSiteStatus {
  return trace.kind === "frames"
    ? "recorded"
    : trace.kind === "none"
    ? "no_trace_recorded"
    : "trace_unreadable";
}

/** Why the answer has no call site, or null when it has one. */
function traceCaveat(trace: Trace): string | null {
  if (trace.kind === "none") {
    return "This capture recorded no stack trace for this operation, so it has no call site. " +
      "Older reports and captures without Python stack traces omit them.";
  }
  if (trace.kind === "unreadable") {
    return "A stack trace is recorded for this operation but holds no frame this tool could " +
      `read${trace.native ? " (it is a native C++ backtrace)" : ""}, so the call site is ` +
      "unknown rather than absent. The parser reads CPython traceback text.";
  }
  return null;
}
