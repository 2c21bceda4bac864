/**
 * `program_cache`: whether programs were built again rather than reused — per raw op code,
 * its calls, distinct programs, and how many repeat calls hit or missed the program cache.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import type { Inventory } from "../session/inventory.ts";
import { performanceCsvUnavailable } from "../session/inventory.ts";
import { performanceReport, performanceTable } from "../analysis/performance.ts";
import { RowCells } from "../analysis/include_groups.ts";
import {
  CACHE_DISABLED_CAVEAT,
  everyRecordedRepeatMissed,
  PROGRAM_CACHE_COLUMNS,
  programCalls,
} from "../analysis/program_calls.ts";
import { sharePercent } from "../kit/figures.ts";
import { operationIdOf, operationLink, operationLinkBlock } from "../analysis/operation_link.ts";

const input = z.strictObject({
  handle: handleArg,
  limit: limitArg("Op codes"),
});

/** Why the capture cannot say anything about the program cache, or null. */
function cannotAnswer(inv: Inventory): string | null {
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

interface Counts {
  op_code: string;
  calls: number;
  distinct_programs: number;
  repeat_calls: number;
  repeat_hits: number;
  repeat_misses: number;
  repeat_unrecorded: number;
  calls_without_hash: number;
  repeat_hit_percent: number | null;
  first_repeat_miss_perf_id: string | null;
}

/** The `program_cache` tool. */
export const programCache = reportTool({
  name: "program_cache",
  title: "Program cache hits and rebuilds",
  description:
    "Per raw op code (every shape of a matmul in one entry): calls, distinct programs (PROGRAM " +
    "HASH), repeat calls — a row whose hash an earlier row of the report carries — and how many " +
    "hit or missed the program cache; most repeat misses first. A first call builds its program " +
    "and misses by design; a repeat miss rebuilt a program the run had already built (the view's " +
    "recompute candidate). Reads the whole report (no signpost range: a program first called " +
    "before a window would read as a first call inside it). first_repeat_miss_perf_id is a " +
    "performance-CSV row, not a profiler operation_id; when the handle also holds a profiler " +
    "report that links, first_repeat_miss_operation_id is the id to pass to " +
    "operation_provenance (null when the row did not link; operation_link says why).",
  input,
  reads: ["performance_csv"],
  cannotAnswer,
  async handler(args, ctx) {
    const { report } = ctx;
    const why = cannotAnswer(report.inventory);
    if (why) throw new Refusal(`program_cache cannot answer for ${args.handle}: ${why}`);
    const { perf, projection } = performanceReport(ctx, {});
    const calls = programCalls(perf.rows, new RowCells(performanceTable(ctx)));
    const byOp = new Map<string, Counts & { hashes: Set<string> }>();
    for (const row of perf.rows) {
      const call = calls.get(row.id);
      if (!call) continue;
      let c = byOp.get(row.raw_op_code);
      if (!c) {
        c = {
          op_code: row.raw_op_code,
          calls: 0,
          distinct_programs: 0,
          repeat_calls: 0,
          repeat_hits: 0,
          repeat_misses: 0,
          repeat_unrecorded: 0,
          calls_without_hash: 0,
          repeat_hit_percent: null,
          first_repeat_miss_perf_id: null,
          hashes: new Set(),
        };
        byOp.set(row.raw_op_code, c);
      }
      c.calls++;
      if (call.hash === null) c.calls_without_hash++;
      else c.hashes.add(call.hash);
      if (!call.repeat) continue;
      c.repeat_calls++;
      if (call.hit === true) c.repeat_hits++;
      else if (call.hit === false) {
        c.repeat_misses++;
        c.first_repeat_miss_perf_id ??= String(row.id);
      } else c.repeat_unrecorded++;
    }
    const link = operationLink(report);
    const withProfiler = report.inventory.profiler !== null;
    const entries = [...byOp.values()].map(({ hashes, ...c }) => ({
      ...c,
      distinct_programs: hashes.size,
      repeat_hit_percent: sharePercent(c.repeat_hits, c.repeat_hits + c.repeat_misses),
      ...(withProfiler
        ? {
          first_repeat_miss_operation_id: c.first_repeat_miss_perf_id === null
            ? null
            : operationIdOf(link, Number(c.first_repeat_miss_perf_id)),
        }
        : {}),
    }));
    entries.sort((a, b) =>
      b.repeat_misses - a.repeat_misses || b.calls - a.calls ||
      (a.op_code < b.op_code ? -1 : a.op_code > b.op_code ? 1 : 0)
    );
    const shown = entries.slice(0, capped(args.limit));
    const sum = (
      k: "calls" | "repeat_calls" | "repeat_hits" | "repeat_misses" | "repeat_unrecorded",
    ) => entries.reduce((n, e) => n + e[k], 0);
    const totals = {
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
    const caveats: string[] = [];
    if (totals.repeat_unrecorded > 0) {
      caveats.push(
        `${totals.repeat_unrecorded} repeat calls recorded no cache result: they are counted in ` +
          "repeat_unrecorded, neither hit nor miss, and the hit percentages are of the rest.",
      );
    }
    if (everyRecordedRepeatMissed(calls.values())) caveats.push(CACHE_DISABLED_CAVEAT);
    return {
      handle: args.handle,
      op_code_count: entries.length,
      returned: shown.length,
      op_codes: shown,
      totals,
      ...(caveats.length > 0 ? { caveat: caveats.join(" ") } : {}),
      projection,
      operation_link: operationLinkBlock(report, link, perf.rows),
    };
  },
});
