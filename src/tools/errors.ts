/**
 * `errors`: where a run stopped and why an allocation failed — the rows of the report's errors
 * table as the web application shows them, each attached to its operation or not, with the
 * device operations whose launch failed and, for one of tt-metal's four allocation failures,
 * its figures and a diagnosis.
 *
 * @module
 */
import { z } from "zod";
import { type ReportContext, reportTool } from "./tool.ts";
import { atRank, l1Footprints, l1PeakTells } from "./_failure_steps.ts";
import { nextOrSay } from "./_next.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg, rankArg } from "./args.ts";
import type { Inventory } from "../session/inventory.ts";
import { PROFILER_DB_NAME, rankCaveat, rankFields } from "../profiler_db/mod.ts";
import {
  type ErrorList,
  errorsTableProblem,
  type ErrorView,
  listErrors,
  MAX_FAILED_DEVICE_OPERATIONS,
  NAME_CAP_CHARS,
} from "../analysis/run_errors.ts";
import { FIGURES_READ_CHARS } from "../analysis/allocation_failure.ts";
import { VALUE_CAP_CHARS } from "../analysis/provenance.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";

const NEEDS = { operations: ["operation_id", "name"] } as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
const RANKED = ["errors"];

/**
 * At most this many errors are listed: one at its caps (a cut message, a cut core range and
 * 20 failed launches) runs to several KB, and 100 of them would pass a client's limit on one
 * tool answer. error_count still counts every one.
 */
export const MAX_ERRORS = 25;

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Errors", 10, MAX_ERRORS).describe("At most 25."),
  rank: rankArg,
});

/** Why errors cannot answer: no operations, or an errors table it cannot read. */
function cannotAnswer(inv: Inventory): string | null {
  const why = cannotAnswerFrom(NEEDS, RANKED)(inv);
  if (why !== null) return why;
  const cols = inv.profiler!.db!.columns;
  const table = Object.keys(cols).find((t) => t.toLowerCase() === "errors");
  if (table === undefined) return null;
  return cols[table].some((c) => c.toLowerCase() === "operation_id")
    ? null
    : `\`errors\` in ${PROFILER_DB_NAME} has no \`operation_id\` column`;
}

const NOTE = "Attached errors come first, then those attached to no operation, each in row " +
  "order; an unattached error (attached false) keeps the operation_id its row holds, which " +
  "names no operation of its name. " +
  "Allocation figures are bytes per bank except requested_bytes, the whole request " +
  `across num_banks. Figures are read from a message's first ${FIGURES_READ_CHARS} characters; ` +
  `error_message itself is cut at ${VALUE_CAP_CHARS}. An incomplete_operation error is an ` +
  "operation that started and never completed, so the run most likely crashed inside it. " +
  "failed_device_operations are the device operations in the operation's captured graph whose " +
  `launch did not complete (at most ${MAX_FAILED_DEVICE_OPERATIONS} named, each cut at ` +
  `${NAME_CAP_CHARS} characters; ` +
  "failed_device_operation_count counts them all); such a launch never reached the device.";

/** The answer of `errors`; without an errors table only the first six keys are given. */
export interface ErrorsAnswer {
  handle: string;
  /** Whether the report has an errors table; without one, error_count and errors are null. */
  errors_table: boolean;
  error_count: number | null;
  /** The first errors in row order. */
  errors: ErrorView[] | null;
  multi_host: boolean;
  rank: number | null;
  attached_count?: number;
  unattached_count?: number;
  incomplete_operation_count?: number;
  returned?: number;
  note?: string;
}

/** What the caveat says about a report without an errors table. */
const NO_ERRORS_TABLE = "This report predates the errors table (tt-metal's older writers did " +
  "not record errors; a capture cut short may also lack it), so it cannot say whether the run " +
  "recorded errors: errors is null here, which is not evidence of none.";

/** The `errors` tool. */
export const errorsTool = reportTool({
  name: "errors",
  title: "Errors and failed allocations",
  summary: "The rows of the profiler report's errors table: where the run stopped, the " +
    "device operations whose launch failed, and why an allocation failed.",
  description:
    "The errors the run recorded: where it stopped, failed launches and why an allocation " +
    "failed; start out-of-memory questions here.",
  input,
  reads: ["profiler_db"],
  cannotAnswer,
  handler(args, ctx): ErrorsAnswer {
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const problem = errorsTableProblem(pdb);
    if (problem !== null) throw new Refusal(`errors cannot answer for this capture: ${problem}`);
    if (!pdb.schema.has("errors")) {
      ctx.parts.caveat(rankCaveat(scope), NO_ERRORS_TABLE);
      return {
        handle: args.handle,
        errors_table: false,
        error_count: null,
        errors: null,
        ...rankFields(scope),
      };
    }
    const list = listErrors(pdb, scope, capped(args.limit, MAX_ERRORS));
    const unattached = list.count - list.attachedCount;
    ctx.parts.cut("errors", {
      total: list.count,
      returned: list.listed.length,
      reason: "limit",
      more: `pass a higher limit (at most ${MAX_ERRORS}); the counts cover every error`,
    });
    ctx.parts.caveat(rankCaveat(scope), ...listCaveats(list));
    nextFromErrors(ctx, list, scope.rank);
    return {
      handle: args.handle,
      errors_table: true,
      error_count: list.count,
      attached_count: list.attachedCount,
      unattached_count: unattached,
      incomplete_operation_count: list.incompleteCount,
      returned: list.listed.length,
      errors: list.listed,
      ...rankFields(scope),
      note: NOTE,
    };
  },
});

/** The tool to call next: the first attached error's operation, or a search by name. */
function nextFromErrors(ctx: ReportContext, list: ErrorList, rank: number | null): void {
  const at = atRank(ctx.report.handle, rank);
  const first = list.listed[0];
  if (first === undefined) return;
  if (first.attached) {
    ctx.parts.next({
      tool: "operation_detail",
      why: `operation ${first.operation_id} failed: its error's figures beside the memory ` +
        "recorded after it, its tensors and its circular buffers",
      arguments: { ...at, operation_id: first.operation_id },
    });
    const f = first.allocation_failure;
    if (f && l1PeakTells(f.buffer_type)) {
      const peak = nextOrSay(ctx, {
        tool: "l1_peak",
        why: "what held L1 across the run, circular buffers included",
        arguments: at,
      });
      if (!peak) l1Footprints(ctx, at);
    }
    return;
  }
  if (first.operation_name) {
    ctx.parts.next({
      tool: "find_operations",
      why: "no error is attached to an operation, so find the one its name gives",
      arguments: { ...at, name_contains: first.operation_name },
    });
  }
}

/**
 * What the caveat says about the errors read: those not attached to an operation, and errors
 * whose failed_device_operations are withheld.
 */
function listCaveats(list: ErrorList): (string | null)[] {
  const unattached = list.count - list.attachedCount;
  return [
    unattached > 0
      ? `${unattached} error${unattached > 1 ? "s are" : " is"} not attached to an ` +
        "operation: its recorded id and operation_name match no operation (or a row before " +
        "it already holds that key), so it has attached false: its operation_id can name an " +
        "unrelated operation and is not one to open with app_link_template or pass to " +
        "operation_detail."
      : null,
    list.listed.some((e) => e.failed_device_operations_unavailable?.startsWith("withheld"))
      ? "failed_device_operations is withheld for an error whose operation's captured graph " +
        "cannot be read; failed_device_operations_unavailable says why, and the rest of " +
        "the error still answers."
      : null,
  ];
}
