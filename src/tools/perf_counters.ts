/**
 * `perf_counters`: what the Tensix performance counters tt-metal wrote into the device log
 * say about an operation — each counter as req ÷ ref with its group, FPU utilisation
 * (FPU_COUNTER ÷ ref), and each instruction thread's state breakdown — as medians and spread
 * over its cores and instances, for one performance row, every call of one op code (pooled,
 * as a deep dive pools an op's calls), or the operations that counted the most cycles.
 *
 * @module
 */
import { z } from "zod";
import { carriesLabel } from "../analysis/op_filter.ts";
import type { CsvTable, OpsCsvRead, PerfReport } from "../perf_report/mod.ts";
import { nextIf } from "./_next.ts";
import { OPS_CSV_FILE } from "../session/report_files.ts";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, deviceArg, handleArg, limitArg, opCodeArg, perfIdArg } from "./args.ts";
import {
  countedCycles,
  counterFigures,
  type CounterScan,
  GROUP_ORDER,
  groupOf,
  type OpCounters,
} from "../device_log/mod.ts";
import { countersFor, countersUnavailable } from "../session/device_log.ts";
import { csvIndex, type CsvOp, keyOfRow } from "../analysis/counter_rows.ts";
import {
  type CounterEntry,
  entry,
  lowestCores,
  type LowFpuCore,
  scanCaveats,
} from "./_counter_entries.ts";

export { MAX_CORES } from "./_counter_entries.ts";
export type {
  CounterEntry,
  CounterStats,
  GroupEntry,
  LowFpuCore,
  ThreadEntry,
  ThreadStateEntry,
} from "./_counter_entries.ts";

/** The most operations one answer describes. */
export const MAX_OPERATIONS = 10;

const input = z.strictObject({
  handle: handleArg,
  perf_id: perfIdArg,
  op_code: opCodeArg,
  device: deviceArg,
  limit: limitArg("Operations", 3, MAX_OPERATIONS).describe("At most 10."),
});

/** How every figure is computed, so an agent can redo the arithmetic. */
export const METHOD = "A counter row gives req (its value: the cycles, or events, the counter " +
  "counted) and ref (its ref cnt: the cycles its group counted for, from start to stop around " +
  "the compute kernel on that core). A sample is one counter on one core in one instance (a " +
  "replay) of one operation (a run host ID on one device). For each counter: pooled_pct = 100 × " +
  "req_sum ÷ ref_sum over its samples; median_pct, min_pct, max_pct and mean_pct are of the " +
  "samples' 100 × req ÷ ref, over cores and instances (and calls, for op_code). " +
  "fpu_utilisation is FPU_COUNTER's figures (the cycles the FPU executed a valid instruction ÷ " +
  "ref). An instruction thread's state (thread 0 unpack, 1 math, 2 pack) is the class of " +
  "instruction at the head of its instruction buffer: <CLASS>_INSTRN_AVAILABLE_<thread> ÷ ref " +
  "(MATH is FPU_INSTRN_AVAILABLE), and STALLED is THREAD_STALLS_<thread> ÷ ref; accounted_pct " +
  "is the sum of the states' pooled_pct and unaccounted_pct = 100 − accounted_pct, a " +
  "subtraction inside the INSTRN_THREAD group that assumes the states exclude one another, " +
  "which tt-metal does not document. Counters of different groups have different refs and " +
  "never are subtracted from one another: FPU_COUNTER (FPU group) is not a part of " +
  "FPU_INSTRN_AVAILABLE_1 (INSTRN_THREAD group) or of MATH_INSTRN_AVAILABLE (TDMA_UNPACK " +
  "group); compare them by size only. ref_us = ref cycles ÷ clock_mhz.";

/** One operation's counters, with its performance row when the CSV has it. */
export interface OperationEntry extends CounterEntry {
  device: number;
  run_host_id: number;
  perf_id: string | null;
  op_code: string | null;
  /** In a one-operation answer, when FPU_COUNTER was recorded. */
  lowest_fpu_cores?: LowFpuCore[];
}

/** The row perf_id named, when the log has no counters for it. */
export interface OperationNotInLog {
  perf_id: string;
  in_log: false;
}

/** What the mode (perf_id, op_code, or neither) adds to the answer. */
export interface ModePart {
  /** op_code: the calls the CSV has, and those with counter rows. */
  calls_in_csv?: number;
  calls_with_counters?: number;
  /** op_code: the calls' counters pooled, when any has some. */
  pooled?: CounterEntry;
  operation_count: number;
}

/** The answer of `perf_counters`. */
export interface PerfCountersAnswer extends ModePart {
  handle: string;
  arch: string | null;
  clock_mhz: number | null;
  counter_rows: number;
  groups_recorded: { group: string; counters: number }[];
  returned: number;
  operations: OperationEntry[] | [OperationNotInLog];
  method: string;
}

/** The operations one mode chose, its part of the answer, and its caveat. */
interface Mode {
  part: ModePart;
  chosen: OpCounters[];
  /** perf_id: the row, when the log has no counters for it. */
  absent?: OperationNotInLog;
  caveat?: string;
}

/** The performance CSV as perf_counters reads it. */
interface CsvSide {
  table: CsvTable | null;
  /** Why there is no table ("" when there is). */
  problem: string;
  /** Its device operations by `${device}|${run}`. */
  rows: Map<string, CsvOp>;
}

/** The `perf_counters` tool. */
export const perfCounters = reportTool({
  name: "perf_counters",
  title: "Tensix performance counters",
  summary: "Tensix counters of an operation, an op code's calls or the costliest operations: " +
    "req ÷ ref by group, FPU utilisation, thread states.",
  description:
    "Tensix performance counters, when captured: req ÷ ref by group, FPU utilisation and " +
    "thread states of an operation or op code.",
  input,
  reads: ["device_log"],
  cannotAnswer: countersUnavailable,
  async handler(args, ctx): Promise<PerfCountersAnswer> {
    if (args.perf_id !== undefined && args.op_code !== undefined) {
      throw new Refusal("give perf_id or op_code, not both");
    }
    const scan = await countersFor(ctx);
    const log = ctx.report.inventory.performance!.deviceLog!;
    const csv = csvSide(ctx.report.inventory.performance!.csvRead);
    const mode = args.perf_id !== undefined
      ? onePerfId(scan, csv, Number(args.perf_id), args.device)
      : args.op_code !== undefined
      ? oneOpCode(
        scan,
        csv,
        args.op_code,
        args.device,
        log.clockMhz,
        labelIds(ctx.report.inventory.performance?.whole ?? null, args.op_code),
      )
      : topOperations(scan, args.device);
    ctx.parts.caveat(mode.caveat, ...scanCaveats(scan));
    const shown = byCountedCycles(mode.chosen).slice(0, capped(args.limit, MAX_OPERATIONS));
    const id = shown[0] ? csv.rows.get(`${shown[0].device}|${shown[0].run}`)?.id : undefined;
    if (id !== undefined) {
      nextIf(ctx, {
        tool: "core_states",
        why: `inside row ${id}'s cores: time before, in and after the math kernel`,
        arguments: { handle: args.handle, perf_id: String(id), device: shown[0].device },
      });
    }
    return {
      handle: args.handle,
      arch: log.capture.ARCH ?? null,
      clock_mhz: log.clockMhz,
      counter_rows: scan.rows,
      groups_recorded: groupsRecorded(scan.ops.values()),
      ...mode.part,
      returned: shown.length,
      operations: shown.length === 0 && mode.absent
        ? [mode.absent]
        : shown.map((op) => operationEntry(op, csv.rows, log.clockMhz, shown.length === 1)),
      method: METHOD,
    };
  },
});

/** The performance CSV's table and device operations, or why there is none. */
function csvSide(read: OpsCsvRead | null): CsvSide {
  const table = read?.ok ? read.table : null;
  return {
    table,
    problem: !read ? `the report has no ${OPS_CSV_FILE.name}` : read.ok ? "" : read.problem,
    rows: table ? csvIndex(table) : new Map<string, CsvOp>(),
  };
}

/**
 * perf_id: the operation of row `id` (refusing a row of another device than `device`), with a
 * caveat when the log has no counters for it.
 */
function onePerfId(
  scan: CounterScan,
  csv: CsvSide,
  id: number,
  device: number | undefined,
): Mode {
  const key = keyOfRow(csv.table, id, csv.problem);
  const [slot, run] = key.split("|");
  const rowDevice = Number(slot);
  if (device !== undefined && device !== rowDevice) {
    throw new Refusal(`row ${id} ran on device ${rowDevice}, not device ${device}`);
  }
  const op = scan.ops.get(key);
  if (op) return { part: { operation_count: 1 }, chosen: [op] };
  return {
    part: { operation_count: 0 },
    chosen: [],
    absent: { perf_id: String(id), in_log: false },
    caveat: `The device log has no counter rows for row ${id} (device ${rowDevice}, run host ` +
      `ID ${run}): counters cover only what the capture recorded — often a window of the run, ` +
      "since the profiler buffer fills.",
  };
}

/**
 * The CSV lines behind the rows whose decorated op code (the label top_ops prints, e.g.
 * `Matmul 32 x 8192 x 2048`) is `label`: every device's line of a merged row.
 */
function labelIds(whole: PerfReport | null, label: string): Set<number> {
  const ids = new Set<number>();
  for (const row of whole?.rows ?? []) {
    if (!row.is_signpost && carriesLabel(row, label)) {
      for (const id of row.merged_ids ?? [row.id]) ids.add(id);
    }
  }
  return ids;
}

/** op_code: every call of the op code in the CSV (on `device`), with its counters pooled. */
function oneOpCode(
  scan: CounterScan,
  csv: CsvSide,
  opCode: string,
  device: number | undefined,
  clock: number | null,
  labelled: ReadonlySet<number>,
): Mode {
  if (!csv.table) throw new Refusal(`op_code needs the performance CSV: ${csv.problem}`);
  const code = opCode.trim();
  const calls = [...csv.rows.entries()].filter(([key, r]) =>
    (r.opCode === code || labelled.has(r.id)) &&
    (device === undefined || key.startsWith(`${device}|`))
  );
  if (calls.length === 0) {
    throw new Refusal(
      `no row of the performance CSV has OP CODE ${JSON.stringify(code)}` +
        (device === undefined ? "" : ` on device ${device}`) + `; its op codes: ` +
        listed([...new Set([...csv.rows.values()].map((r) => r.opCode))]),
    );
  }
  const ops = calls.map(([key]) => scan.ops.get(key)).filter((o) => o !== undefined);
  return {
    part: {
      calls_in_csv: calls.length,
      calls_with_counters: ops.length,
      ...(ops.length > 0 ? { pooled: entry(counterFigures(ops), clock) } : {}),
      operation_count: ops.length,
    },
    chosen: ops,
  };
}

/** Neither: every operation with counters (on `device`, refusing one without any). */
function topOperations(scan: CounterScan, device: number | undefined): Mode {
  const inScope = [...scan.ops.values()].filter(
    (op) => device === undefined || op.device === device,
  );
  if (inScope.length === 0) {
    const devices = [...new Set([...scan.ops.values()].map((op) => op.device))].sort((a, b) =>
      a - b
    );
    throw new Refusal(
      `device ${device} has no counter rows; devices with counters: ${devices.join(", ")}`,
    );
  }
  return { part: { operation_count: inScope.length }, chosen: inScope };
}

/** The operations by the cycles their counters ran, most first (ties by run host ID). */
function byCountedCycles(ops: readonly OpCounters[]): OpCounters[] {
  return ops.map((op) => ({ op, cycles: countedCycles(op) }))
    .sort((a, b) => b.cycles - a.cycles || a.op.run - b.op.run)
    .map((x) => x.op);
}

/** One operation's entry; the only one of its answer also names its lowest-FPU cores. */
function operationEntry(
  op: OpCounters,
  rows: Map<string, CsvOp>,
  clock: number | null,
  alone: boolean,
): OperationEntry {
  const csv = rows.get(`${op.device}|${op.run}`);
  return {
    device: op.device,
    run_host_id: op.run,
    perf_id: csv ? String(csv.id) : null,
    op_code: csv?.opCode ?? null,
    ...entry(counterFigures([op]), clock),
    ...(alone ? lowestCores(op) : {}),
  };
}

/** Each group the log recorded and how many distinct counters of it, in group order. */
function groupsRecorded(ops: Iterable<OpCounters>): { group: string; counters: number }[] {
  const names = new Set<string>();
  for (const op of ops) for (const name of op.series.keys()) names.add(name);
  const count = new Map<string, number>();
  for (const name of names) count.set(groupOf(name), (count.get(groupOf(name)) ?? 0) + 1);
  return GROUP_ORDER.filter((g) => count.has(g)).map((group) => ({
    group,
    counters: count.get(group)!,
  }));
}

/** Op codes a refusal lists before it counts the rest. */
const LISTED_OP_CODES = 15;

function listed(codes: readonly string[]): string {
  return codes.slice(0, LISTED_OP_CODES).join(", ") +
    (codes.length > LISTED_OP_CODES ? ` and ${codes.length - LISTED_OP_CODES} more` : "");
}
