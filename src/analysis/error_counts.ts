/**
 * How many errors a handle's profiler database records, and how many are attached to an
 * operation, over every rank — what load_report says of a failed run. Apart from the handle's
 * connection (`session/profiler_db.ts`) so a tool that never counts errors does not load the error
 * readers with it.
 *
 * @module
 */
import { type ProfilerDb, type RankScope, rankScope, Schema } from "../profiler_db/mod.ts";
import { errorCounts } from "./run_failure.ts";
import { profilerDb, profilerDbUnavailable } from "../session/profiler_db.ts";
import type { ReportCall } from "../session/handles.ts";

/**
 * How many errors the handle's database records and how many are attached to an operation,
 * over every rank; null when it has no errors table that can be read and attributed.
 */
export function profilerErrorCounts(call: ReportCall): { count: number; attached: number } | null {
  const probe = call.report.inventory.profiler?.db;
  if (profilerDbUnavailable(call.report.inventory) !== null || !probe) return null;
  const schema = new Schema(probe.columns);
  if (!schema.has("errors") || schema.unmet({ operations: ["operation_id", "name"] }) !== null) {
    return null;
  }
  let pdb: ProfilerDb;
  let scopes: RankScope[];
  try {
    pdb = profilerDb(call, { operations: ["operation_id", "name"] });
    const ranks = probe.operationRanks;
    scopes = ranks === null || ranks.length === 0
      ? [rankScope(pdb, undefined)]
      : ranks.map((rank) => ({ multiHost: true, rank, ranks }));
  } catch {
    return null;
  }
  let count = 0;
  let attached = 0;
  for (const scope of scopes) {
    const c = errorCounts(pdb, scope);
    if (c === null) return null;
    count += c.count;
    attached += c.attached;
  }
  return { count, attached };
}
