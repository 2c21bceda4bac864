/**
 * `core_spread`: how evenly an operation's kernel time fell across the cores that ran it —
 * each core's span from its first kernel start to its last kernel end, on the operation's own
 * device, inside its own firmware window — for one performance row or the costliest ones.
 *
 * @module
 */
import { z } from "zod";
import { nextIf } from "./_next.ts";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg, opCodeArg, perfIdArg } from "./args.ts";
import { opFilter } from "../analysis/op_filter.ts";
import { coreSpreadUnavailable, deviceLogSummary } from "../session/device_log.ts";
import type { CoreSpanFigures, DeviceLogSummary, RowSpans, UnknownWhy } from "../device_log/mod.ts";
import { performanceReport, performanceTable, type Projection } from "../analysis/performance.ts";
import { round3 } from "../kit/rounding.ts";
import { caveatsOf, leftOutCaveat } from "../analysis/spread_caveats.ts";
import { cellOf, type CsvTable, type PerfRow, rowCountOf, rowIndexOf } from "../perf_report/mod.ts";

/** The most operations one answer describes. */
export const MAX_OPERATIONS = 25;

/** The most cores of unknown span named per operation (the note core_spread.spans says 5). */
export const MAX_UNKNOWN_CORES = 5;

const input = z.strictObject({
  handle: handleArg,
  perf_id: perfIdArg,
  op_code: opCodeArg,
  limit: limitArg("Operations", 5, MAX_OPERATIONS).describe("At most 25."),
});

/** Per-core span figures of one RISC, in µs. */
export interface RiscSpread {
  risc: string;
  cores: number;
  min_us: number;
  median_us: number;
  max_us: number;
}

/** One of the slowest cores, by NoC coordinate. */
export interface SlowCore {
  core_x: number;
  core_y: number;
  span_us: number;
}

/** A core whose span is unknown, and why. */
export interface UnknownSpanCore {
  core_x: number;
  core_y: number;
  span_us: null;
  why: UnknownWhy;
}

/** The span figures of an operation the log recorded. */
export interface SpreadFigures {
  cores_recorded: number;
  /** Recorded cores with a kernel zone that did not pair inside the window. */
  cores_unpaired: number;
  /** Cores whose record had stopped mid-kernel before this operation. */
  cores_record_stopped: number;
  /** Over the cores whose span is known; null when none is. */
  span_us: { min: number; median: number; mean: number; max: number } | null;
  imbalance: number | null;
  per_risc: RiscSpread[];
  slowest_cores: SlowCore[];
  unknown_cores: UnknownSpanCore[];
}

/** The CSV's own per-core figures of a row, in µs. */
export interface CsvPerCore {
  min: number | null;
  max: number | null;
  avg: number | null;
}

/** One operation's spread across its cores. */
export interface SpreadOperation extends Partial<SpreadFigures> {
  id: string;
  op_code: string;
  device: number | null;
  global_call_count: number | null;
  device_time: number | null;
  core_count: number | null;
  in_log: boolean;
  csv_per_core_us?: CsvPerCore;
  unpaired_zones?: { starts: number; ends: number };
  caveat?: string;
  /** When perf_id named another device's line of this merged row. */
  asked_perf_id?: string;
  note?: string;
}

/** The answer of `core_spread`. */
export interface CoreSpreadAnswer {
  handle: string;
  clock_mhz: number;
  op_count: number;
  returned: number;
  operations: SpreadOperation[];
  projection: Projection;
}

/** The rows to describe, how many were candidates, and the perf_id asked for. */
interface Chosen {
  rows: PerfRow[];
  opCount: number;
  askedFor: number | null;
}

/** The `core_spread` tool. */
export const coreSpread = reportTool({
  name: "core_spread",
  title: "Kernel time across cores",
  summary: "How evenly one operation's kernel time, or the costliest operations', fell across " +
    "its cores: per-core span, per RISC, imbalance, slowest cores.",
  description:
    "How evenly an operation's kernel time fell across its cores: per-core spans, per RISC, " +
    "imbalance, slowest cores.",
  input,
  reads: ["performance_csv", "device_log"],
  cannotAnswer: coreSpreadUnavailable,
  async handler(args, ctx): Promise<CoreSpreadAnswer> {
    const why = coreSpreadUnavailable(ctx.report.inventory);
    if (why !== null) throw new Refusal(`core_spread cannot answer for ${args.handle}: ${why}`);
    const { perf, projection } = performanceReport(ctx, {});
    const table = performanceTable(ctx);
    if (args.perf_id !== undefined && args.op_code !== undefined) {
      throw new Refusal("core_spread takes perf_id or op_code, not both");
    }
    const rows = args.op_code === undefined
      ? perf.rows
      : opFilter(ctx.tool, perf.rows, args.op_code).rows;
    const chosen = chooseRows(rows, table, args.perf_id, args.limit);
    ctx.parts.cut("operations", {
      total: chosen.opCount,
      returned: chosen.rows.length,
      reason: "limit",
      more: `pass a higher limit (at most ${MAX_OPERATIONS}), or perf_id for one operation`,
    });
    const log = await deviceLogSummary(ctx);
    ctx.parts.caveat(leftOutCaveat(log));
    ctx.parts.note("core_spread.spans");
    const first = chosen.rows.find((r) => !r.is_host_op && r.device !== null);
    if (first) {
      nextIf(ctx, {
        tool: "core_states",
        why: `inside row ${first.id}'s cores: time before, in and after its math kernel`,
        arguments: { handle: args.handle, perf_id: String(first.id), device: first.device },
      });
    }
    return {
      handle: args.handle,
      clock_mhz: log.clockMhz!,
      op_count: chosen.opCount,
      returned: chosen.rows.length,
      operations: chosen.rows.map((row) => operationOf(row, table, log, chosen.askedFor)),
      projection,
    };
  },
});

/**
 * The row `perfId` names (refusing one that ran on no device), or else the `limit` costliest
 * by device time (ties in report order).
 */
function chooseRows(
  rows: readonly PerfRow[],
  table: CsvTable,
  perfId: number | string | undefined,
  limit: number,
): Chosen {
  if (perfId !== undefined) {
    const askedFor = Number(perfId);
    return { rows: [rowFor(rows, askedFor, rowCountOf(table))], opCount: 1, askedFor };
  }
  const ranked = rows
    .filter((r) => !r.is_signpost && r.device_time !== null && Number.isFinite(r.device_time))
    .map((row, i) => ({ row, i }))
    .sort((a, b) => b.row.device_time! - a.row.device_time! || a.i - b.i);
  return {
    rows: ranked.slice(0, capped(limit, MAX_OPERATIONS)).map((x) => x.row),
    opCount: ranked.length,
    askedFor: null,
  };
}

/** One row's entry, noting when perf_id named another device's line of the merged row. */
function operationOf(
  row: PerfRow,
  table: CsvTable,
  log: DeviceLogSummary,
  askedFor: number | null,
): SpreadOperation {
  return {
    ...describe(row, table, log.spans?.byRow.get(rowIndexOf(row.id)), log.clockMhz!),
    ...(askedFor !== null && askedFor !== row.id
      ? {
        asked_perf_id: String(askedFor),
        note: `perf_id ${askedFor} is device ${
          deviceOfLine(table, askedFor)
        }'s line of this merged row; the merged row reports device ${row.device}.`,
      }
      : {}),
  };
}

/**
 * Cycles as µs in the CSV's own precision: whole nanoseconds, rounded as tt-metal writes its
 * per-core columns (`%.0f`, half to even), so a span and the CSV figure it reproduces compare
 * equal rather than close.
 */
export function usAsTtMetal(cycles: number, clockMhz: number): number {
  const ns = (cycles * 1000) / clockMhz;
  const r = Math.round(ns);
  return (Math.abs(ns % 1) === 0.5 ? 2 * Math.round(ns / 2) : r) / 1000;
}

/** The merged row `id` names (or stands for, as one device's line), or a Refusal. */
function rowFor(rows: readonly PerfRow[], id: number, tableRows: number): PerfRow {
  const row = rows.find((r) => r.id === id) ?? rows.find((r) => r.merged_ids?.includes(id));
  if (!row) {
    throw new Refusal(
      `no performance row has id ${id}: ids are the CSV's lines, 2 to ${tableRows + 1} ` +
        "(top_ops gives them)",
    );
  }
  if (row.is_signpost) throw new Refusal(`row ${id} is a signpost, which ran nothing on a device`);
  if (row.device === null || row.is_host_op) {
    throw new Refusal(
      `row ${id} (${row.raw_op_code}) ran on no device: it is a host operation or has no DEVICE ID`,
    );
  }
  return row;
}

function deviceOfLine(table: CsvTable, line: number): string {
  const col = table.header.indexOf("DEVICE ID");
  return col < 0 || rowIndexOf(line) >= rowCountOf(table)
    ? "?"
    : cellOf(table, rowIndexOf(line), col).trim();
}

function describe(
  row: PerfRow,
  table: CsvTable,
  spans: RowSpans | undefined,
  clock: number,
): SpreadOperation {
  const us = (cycles: number) => usAsTtMetal(cycles, clock);
  const figures = spans?.figures ?? null;
  const coreCount = csvCoreCount(table, row.id);
  const csv = csvPerCore(table, row.id);
  const caveat = caveatsOf(row, coreCount, spans, figures);
  return {
    id: String(row.id),
    op_code: row.op_code || row.raw_op_code,
    device: row.device,
    global_call_count: row.global_call_count,
    device_time: round3(row.device_time),
    core_count: coreCount,
    in_log: figures !== null,
    ...(figures ? figuresOf(figures, us) : {}),
    ...(csv ? { csv_per_core_us: csv } : {}),
    ...(spans && (spans.unpaired.starts > 0 || spans.unpaired.ends > 0)
      ? { unpaired_zones: spans.unpaired }
      : {}),
    ...(caveat.length > 0 ? { caveat: caveat.join(" ") } : {}),
  };
}

function figuresOf(f: CoreSpanFigures, us: (c: number) => number): SpreadFigures {
  const stopped = f.unknown.filter((c) => c.why === "record_stopped").length;
  return {
    cores_recorded: f.cores,
    cores_unpaired: f.unknown.length - stopped,
    cores_record_stopped: stopped,
    span_us: f.known === 0
      ? null
      : { min: us(f.min!), median: us(f.median!), mean: us(f.mean!), max: us(f.max!) },
    imbalance: f.median !== null && f.median > 0 ? round3(f.max! / f.median) : null,
    per_risc: f.perRisc.map((r) => ({
      risc: r.risc,
      cores: r.cores,
      min_us: us(r.min),
      median_us: us(r.median),
      max_us: us(r.max),
    })),
    slowest_cores: f.slowest.map((c) => ({ core_x: c.x, core_y: c.y, span_us: us(c.span) })),
    unknown_cores: f.unknown.slice(0, MAX_UNKNOWN_CORES).map((c) => ({
      core_x: c.x,
      core_y: c.y,
      span_us: null,
      why: c.why,
    })),
  };
}

const PER_CORE = {
  min: "DEVICE KERNEL DURATION PER CORE MIN [ns]",
  max: "DEVICE KERNEL DURATION PER CORE MAX [ns]",
  avg: "DEVICE KERNEL DURATION PER CORE AVG [ns]",
};

/** The row's CORE COUNT as the CSV records it (tt-perf-report re-derives a matmul's). */
function csvCoreCount(table: CsvTable, id: number): number | null {
  const col = table.header.indexOf("CORE COUNT");
  const n = col < 0 ? NaN : Number(cellOf(table, rowIndexOf(id), col).trim() || NaN);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** The CSV's own per-core figures of the row, in µs, or null when it has none. */
function csvPerCore(table: CsvTable, id: number): CsvPerCore | null {
  const us = (column: string) => {
    const col = table.header.indexOf(column);
    const text = col < 0 ? "" : cellOf(table, rowIndexOf(id), col).trim();
    const ns = text === "" ? NaN : Number(text);
    return Number.isFinite(ns) ? round3(ns / 1000) : null;
  };
  const out = { min: us(PER_CORE.min), max: us(PER_CORE.max), avg: us(PER_CORE.avg) };
  return out.min !== null || out.max !== null || out.avg !== null ? out : null;
}
