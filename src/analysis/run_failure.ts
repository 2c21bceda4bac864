/**
 * Where a failed run failed, for the answers on the out-of-memory path: the first operation
 * (by id) with an attached error, that error's type and allocation figures, and how many
 * operations the report holds after it — so l1_peak and memory_profile can say their figures
 * hold only what was allocated, never the failed request; and how many errors the report
 * holds and how many are attached to an operation, for load_report.
 *
 * @module
 */
import {
  andRank,
  type ProfilerDb,
  type RankScope,
  row,
  unattributable,
} from "../profiler_db/mod.ts";
import { type AllocationFailure, parseAllocationFailure } from "./allocation_failure.ts";
import { errorsTableProblem, keyed, message } from "./run_errors.ts";

/** The first failure the run recorded on an operation. */
export interface RunFailure {
  operation_id: number;
  operation_name: string | null;
  error_type: string | null;
  /** Its figures when the error is one of tt-metal's allocation failures, else null. */
  allocation_failure: AllocationFailure | null;
  /** Operations the report holds after it (a retry, or a run that went on). */
  operations_after: number;
  /** Errors attached to an operation, this one included, and those attached to none. */
  attached_errors: number;
  unattached_errors: number;
  /** One sentence naming the operation and the error. */
  summary: string;
}

/** Whether the rank's errors can be read: a table with operation_id, attributable to it. */
function readable(pdb: ProfilerDb, scope: RankScope): boolean {
  return pdb.schema.has("errors") && errorsTableProblem(pdb) === null &&
    unattributable(pdb, scope, ["errors"]) === null;
}

/** The errors at the rank and how many are attached; null when they cannot be read. */
export function errorCounts(
  pdb: ProfilerDb,
  scope: RankScope,
): { count: number; attached: number } | null {
  if (!readable(pdb, scope)) return null;
  const all = keyed(pdb, scope);
  return { count: all.length, attached: all.filter((r) => r.attached).length };
}

/** The run's first attached failure at the rank, or null when it recorded none. */
export function runFailure(pdb: ProfilerDb, scope: RankScope): RunFailure | null {
  if (!readable(pdb, scope)) return null;
  const all = keyed(pdb, scope);
  const attached = all.filter((r) => r.attached);
  if (attached.length === 0) return null;
  const first = attached.reduce((
    a,
    b,
  ) => (Number(b.operation_id) < Number(a.operation_id) ? b : a));
  const id = Number(first.operation_id);
  const failure = parseAllocationFailure(message(pdb, first.rid).head);
  const after = row<{ n: number }>(
    pdb,
    `SELECT COUNT(*) AS n FROM operations WHERE operation_id > ?${
      andRank(pdb, scope, "operations")
    }`,
    id,
  );
  const name = first.operation_name === null ? null : String(first.operation_name);
  const type = first.error_type === null ? null : String(first.error_type);
  return {
    operation_id: id,
    operation_name: name,
    error_type: type,
    allocation_failure: failure,
    operations_after: Number(after?.n ?? 0),
    attached_errors: attached.length,
    unattached_errors: all.length - attached.length,
    summary: `The run failed at operation ${id}${name ? ` (${name})` : ""}: ${
      failure ? failureText(failure) : `${type ?? "an error"}`
    }.`,
  };
}

/** An allocation failure in a few words, with its figures. */
function failureText(f: AllocationFailure): string {
  const where = f.buffer_type ? ` of ${f.buffer_type}` : "";
  const need = f.bytes_per_bank !== null ? `, ${f.bytes_per_bank} B per bank needed` : "";
  const free = f.largest_free_block_bytes !== null
    ? ` with a largest free block of ${f.largest_free_block_bytes} B`
    : "";
  return `${f.kind}${where}${need}${free}`;
}

/** An answer's `run_failure`: where the run failed, and what that means for its figures. */
export interface RunFailureField {
  operation_id: number;
  operation_name: string | null;
  error_type: string | null;
  /** The failed request's figures, bytes per bank, when it is an allocation failure. */
  allocation_failure: {
    kind: string;
    buffer_type: string | null;
    bytes_per_bank: number | null;
    largest_free_block_bytes: number | null;
  } | null;
  operations_after: number;
  note: string;
}

/**
 * `run_failure` for an answer whose figures hold only what was allocated: `figures` says,
 * in one clause, what they are (e.g. "the peak is what the run held").
 */
export function runFailureField(f: RunFailure, figures: string): RunFailureField {
  const a = f.allocation_failure;
  const after = f.operations_after > 0
    ? `The report holds ${f.operations_after} operation${
      f.operations_after > 1 ? "s" : ""
    } after it (a retry, or a run that went on), read as recorded.`
    : "The report ends there: no figure covers anything after it.";
  return {
    operation_id: f.operation_id,
    operation_name: f.operation_name,
    error_type: f.error_type,
    allocation_failure: a === null ? null : {
      kind: a.kind,
      buffer_type: a.buffer_type,
      bytes_per_bank: a.bytes_per_bank,
      largest_free_block_bytes: a.largest_free_block_bytes,
    },
    operations_after: f.operations_after,
    note: `${f.summary} ${
      a === null ? "Of the figures here, " : "That request was never placed, so it is in no " +
        "figure here: "
    }${figures}, and operation ${f.operation_id}'s own figures stop where it failed. ${after}`,
  };
}
