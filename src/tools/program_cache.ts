/**
 * `program_cache`: whether programs were built again rather than reused — per raw op code,
 * its calls, distinct programs, and how many repeat calls hit or missed the program cache.
 *
 * @module
 */
import { z } from "zod";
import { nextIf } from "./_next.ts";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import { performanceReport, performanceTable, type Projection } from "../analysis/performance.ts";
import { RowCells } from "../analysis/include_groups.ts";
import {
  CACHE_DISABLED_CAVEAT,
  everyRecordedRepeatMissed,
  programCacheUnavailable as cannotAnswer,
  type ProgramCall,
  programCalls,
} from "../analysis/program_calls.ts";
import { sharePercent } from "../kit/rounding.ts";
import {
  operationIdOf,
  type OperationLink,
  operationLink,
  type OperationLinkBlock,
  operationLinkBlock,
} from "../analysis/operation_link.ts";
import type { PerfRow } from "../perf_report/mod.ts";

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Op codes"),
});

/** How to read the counts. */
/** One raw op code's program calls. */
export interface ProgramCacheEntry {
  op_code: string;
  calls: number;
  distinct_programs: number;
  repeat_calls: number;
  repeat_hits: number;
  repeat_misses: number;
  repeat_unrecorded: number;
  calls_without_hash: number;
  repeat_hit_percent: number | null;
  /** A performance-CSV row, not a profiler operation_id. */
  first_repeat_miss_perf_id: string | null;
  /** When the handle holds a profiler report: the operation that row links to, or null. */
  first_repeat_miss_operation_id?: number | null;
}

/** Every op code's calls summed; distinct_programs counts each program hash once. */
export interface ProgramCacheTotals {
  calls: number;
  distinct_programs: number;
  repeat_calls: number;
  repeat_hits: number;
  repeat_misses: number;
  repeat_unrecorded: number;
  repeat_hit_percent: number | null;
}

/** The answer of `program_cache`. */
export interface ProgramCacheAnswer {
  handle: string;
  op_code_count: number;
  returned: number;
  op_codes: ProgramCacheEntry[];
  totals: ProgramCacheTotals;
  projection: Projection;
  operation_link: OperationLinkBlock;
}

/** One raw op code's calls as they are counted. */
interface Tally {
  op_code: string;
  calls: number;
  hashes: Set<string>;
  repeat_calls: number;
  repeat_hits: number;
  repeat_misses: number;
  repeat_unrecorded: number;
  calls_without_hash: number;
  first_repeat_miss_perf_id: string | null;
}

/** The `program_cache` tool. */
export const programCache = reportTool({
  name: "program_cache",
  title: "Program cache hits and rebuilds",
  summary: "Per raw op code: calls, distinct programs, and how many repeat calls hit or missed " +
    "the program cache; most repeat misses first.",
  description:
    "Whether programs were rebuilt: per op code, calls, distinct programs, repeat calls' " +
    "cache hits and misses.",
  input,
  reads: ["performance_csv"],
  cannotAnswer,
  fitList: "op_codes",
  async handler(args, ctx): Promise<ProgramCacheAnswer> {
    const { report } = ctx;
    const why = cannotAnswer(report.inventory);
    if (why) throw new Refusal(`${ctx.tool} cannot answer for ${args.handle}: ${why}`);
    const { perf, projection } = performanceReport(ctx, {});
    const calls = programCalls(perf.rows, new RowCells(performanceTable(ctx)));
    const tallies = tallyByOpCode(perf.rows, calls);
    const link = await operationLink(ctx);
    const entries = opCodeEntries(tallies, report.inventory.profiler !== null ? link : null);
    const shown = entries.slice(0, capped(args.limit));
    const totals = totalsOf(entries, calls);
    ctx.parts.caveat(unrecordedCaveat(totals.repeat_unrecorded));
    ctx.parts.note("program_cache.calls");
    ctx.parts.cut("op_codes", {
      total: entries.length,
      returned: shown.length,
      reason: "limit",
      more: "pass a higher limit (at most 100); totals count every op code",
    });
    if (everyRecordedRepeatMissed(calls.values())) ctx.parts.caveat(CACHE_DISABLED_CAVEAT);
    nextIf(ctx, {
      tool: "top_ops",
      why: "the rows with the largest op-to-op gaps, where rebuilt programs cost host time",
      arguments: { handle: args.handle, by: "op_to_op_gap" },
    });
    return {
      handle: args.handle,
      op_code_count: entries.length,
      returned: shown.length,
      op_codes: shown,
      totals,
      projection,
      operation_link: operationLinkBlock(report, link, perf.rows),
    };
  },
});

/** Each raw op code's calls, in report order of first call: hits, misses, program hashes. */
function tallyByOpCode(
  rows: readonly PerfRow[],
  calls: ReadonlyMap<number, ProgramCall>,
): Tally[] {
  const byOp = new Map<string, Tally>();
  for (const row of rows) {
    const call = calls.get(row.id);
    if (!call) continue;
    let t = byOp.get(row.raw_op_code);
    if (!t) {
      t = {
        op_code: row.raw_op_code,
        calls: 0,
        hashes: new Set(),
        repeat_calls: 0,
        repeat_hits: 0,
        repeat_misses: 0,
        repeat_unrecorded: 0,
        calls_without_hash: 0,
        first_repeat_miss_perf_id: null,
      };
      byOp.set(row.raw_op_code, t);
    }
    t.calls++;
    if (call.hash === null) t.calls_without_hash++;
    else t.hashes.add(call.hash);
    if (!call.repeat) continue;
    t.repeat_calls++;
    if (call.hit === true) t.repeat_hits++;
    else if (call.hit === false) {
      t.repeat_misses++;
      t.first_repeat_miss_perf_id ??= String(row.id);
    } else t.repeat_unrecorded++;
  }
  return [...byOp.values()];
}

/**
 * The answer's entries, most repeat misses first, then most calls, then by op code; with
 * `link` (the handle holds a profiler report), each first repeat miss's operation id.
 */
function opCodeEntries(tallies: readonly Tally[], link: OperationLink | null): ProgramCacheEntry[] {
  return tallies
    .map((t): ProgramCacheEntry => ({
      op_code: t.op_code,
      calls: t.calls,
      distinct_programs: t.hashes.size,
      repeat_calls: t.repeat_calls,
      repeat_hits: t.repeat_hits,
      repeat_misses: t.repeat_misses,
      repeat_unrecorded: t.repeat_unrecorded,
      calls_without_hash: t.calls_without_hash,
      repeat_hit_percent: sharePercent(t.repeat_hits, t.repeat_hits + t.repeat_misses),
      first_repeat_miss_perf_id: t.first_repeat_miss_perf_id,
      ...(link
        ? {
          first_repeat_miss_operation_id: t.first_repeat_miss_perf_id === null
            ? null
            : operationIdOf(link, Number(t.first_repeat_miss_perf_id)),
        }
        : {}),
    }))
    .sort((a, b) =>
      b.repeat_misses - a.repeat_misses || b.calls - a.calls ||
      (a.op_code < b.op_code ? -1 : a.op_code > b.op_code ? 1 : 0)
    );
}

/** Every entry summed, and the distinct program hashes of every call. */
function totalsOf(
  entries: readonly ProgramCacheEntry[],
  calls: ReadonlyMap<number, ProgramCall>,
): ProgramCacheTotals {
  const sum = (
    k: "calls" | "repeat_calls" | "repeat_hits" | "repeat_misses" | "repeat_unrecorded",
  ) => entries.reduce((n, e) => n + e[k], 0);
  return {
    calls: sum("calls"),
    distinct_programs: new Set(
      [...calls.values()].map((c) => c.hash).filter((h) => h !== null),
    ).size,
    repeat_calls: sum("repeat_calls"),
    repeat_hits: sum("repeat_hits"),
    repeat_misses: sum("repeat_misses"),
    repeat_unrecorded: sum("repeat_unrecorded"),
    repeat_hit_percent: sharePercent(
      sum("repeat_hits"),
      sum("repeat_hits") + sum("repeat_misses"),
    ),
  };
}

/** The caveat when repeat calls recorded no cache result, or null. */
function unrecordedCaveat(unrecorded: number): string | null {
  return unrecorded > 0
    ? `${unrecorded} repeat calls recorded no cache result: they are counted in ` +
      "repeat_unrecorded, neither hit nor miss, and the hit percentages are of the rest."
    : null;
}
