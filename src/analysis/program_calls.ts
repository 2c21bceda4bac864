/**
 * Which performance rows are a program's first call and which repeat it. A row is its
 * program's first call when no earlier row of the whole report carries its program hash, and
 * a repeat call otherwise — how the performance view counts cache hits. A first call builds
 * its program, so it misses the cache by design; a repeat call should hit it.
 *
 * @module
 */
import type { PerfRow } from "../perf_report/mod.ts";
import type { RowCells } from "./include_groups.ts";
import { type Inventory, performanceCsvUnavailable } from "../session/inventory.ts";

/** The CSV columns program-cache questions need. */
export const PROGRAM_CACHE_COLUMNS = ["PROGRAM HASH", "PROGRAM CACHE HIT"] as const;

/** One device operation's program call. */
export interface ProgramCall {
  hash: string | null;
  /** PROGRAM CACHE HIT as recorded; null when the cell is blank. */
  hit: boolean | null;
  /** Whether an earlier row of the report carries the same hash. */
  repeat: boolean;
}

/**
 * The program call of every device-operation row of the whole report (signposts and host ops
 * have none), keyed by row id, decided in report order.
 */
export function programCalls(whole: readonly PerfRow[], cells: RowCells): Map<number, ProgramCall> {
  const seen = new Set<string>();
  const calls = new Map<number, ProgramCall>();
  for (const row of whole) {
    if (row.is_signpost || row.is_host_op) continue;
    const hash = cells.cell(row, "PROGRAM HASH") || null;
    const hitCell = cells.cell(row, "PROGRAM CACHE HIT");
    const hit = hitCell === "True" ? true : hitCell === "False" ? false : null;
    const repeat = hash !== null && seen.has(hash);
    if (hash !== null) seen.add(hash);
    calls.set(row.id, { hash, hit, repeat });
  }
  return calls;
}

/** Whether every repeat call that recorded a cache result missed (and there was one). */
export function everyRecordedRepeatMissed(calls: Iterable<ProgramCall>): boolean {
  let recorded = 0;
  for (const c of calls) {
    if (!c.repeat || c.hit === null) continue;
    if (c.hit) return false;
    recorded++;
  }
  return recorded > 0;
}

/** The caveat for a run whose recorded repeat calls all missed. */
export const CACHE_DISABLED_CAVEAT =
  "every repeat call that recorded a cache result missed the program cache: that is what a run " +
  "with the program cache disabled records, so check whether it was before reading each miss " +
  "as a program built again.";

/** Why the capture cannot say anything about the program cache, or null. */
export function programCacheUnavailable(inv: Inventory): string | null {
  const csv = performanceCsvUnavailable(inv);
  if (csv) return csv;
  const read = inv.performance!.csvRead;
  if (!read?.ok) return "the performance CSV cannot be read";
  const missing = PROGRAM_CACHE_COLUMNS.filter((c) => !read.table.header.includes(c));
  return missing.length === 0
    ? null
    : `${inv.performance!.csv!.name} has no ${missing.join(" or ")} column, ` +
      "so the capture does not record which programs were cached";
}
