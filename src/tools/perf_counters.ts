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
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, deviceArg, handleArg, limitArg, opCodeArg, perfIdArg } from "./args.ts";
import {
  CORE_SPAN,
  countedCycles,
  type CounterFigures,
  counterFigures,
  type CounterGroup,
  type CounterScan,
  GROUP_ORDER,
  groupOf,
  type OpCounters,
  perCore,
  type RatioStats,
} from "../device_log/counters.ts";
import { round3 } from "../kit/figures.ts";
import { cellOf, type CsvTable, rowCountOf } from "../perf_report/csv_table.ts";
import { countersFor, countersUnavailable } from "../session/device_log.ts";
import type { OpsCsvRead } from "../perf_report/probe.ts";
import { isRowId, rowIdOf, rowIndexOf } from "../perf_report/row_id.ts";

/** The most operations one answer describes. */
export const MAX_OPERATIONS = 10;

/** The most cores a one-operation answer lists. */
export const MAX_CORES = 16;

const input = z.strictObject({
  handle: handleArg,
  perf_id: perfIdArg,
  op_code: opCodeArg.describe("Pools its calls."),
  device: deviceArg.describe("Only this PCIe slot."),
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

/** One counter's figures over its samples, as percentages of ref. */
export interface CounterStats {
  pooled_pct: number | null;
  median_pct: number | null;
  min_pct: number | null;
  max_pct: number | null;
  mean_pct: number | null;
  samples: number;
  req_sum: number;
  ref_sum: number;
}

/** One state of an instruction thread. */
export interface ThreadStateEntry {
  state: string;
  counter: string;
  pooled_pct: number | null;
  median_pct: number | null;
}

/** An instruction thread's state breakdown. */
export interface ThreadEntry {
  thread: number;
  role: string;
  states: ThreadStateEntry[];
  accounted_pct: number | null;
  unaccounted_pct: number | null;
  missing?: string[];
}

/** One group's counters. */
export interface GroupEntry {
  group: CounterGroup;
  ref_cycles_median: number | null;
  counters: ({ counter: string } & CounterStats)[];
}

/** The figures of one operation, or of several pooled. */
export interface CounterEntry {
  /** Present when more than one operation is pooled. */
  operations?: number;
  instances: number;
  cores: number;
  ref_cycles_median: number | null;
  ref_us_median: number | null;
  fpu_utilisation: CounterStats | null;
  instruction_threads: ThreadEntry[];
  groups: GroupEntry[];
  riscs: string[];
  caveat?: string;
}

/** One of an operation's cores with the lowest FPU utilisation. */
export interface LowFpuCore {
  core_x: number;
  core_y: number;
  fpu_utilisation_pct: number | null;
  ref_cycles_median: number | null;
  instances: number;
}

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
      ? oneOpCode(scan, csv, args.op_code, args.device, log.clockMhz)
      : topOperations(scan, args.device);
    ctx.parts.caveat(mode.caveat, ...scanCaveats(scan));
    const shown = byCountedCycles(mode.chosen).slice(0, capped(args.limit, MAX_OPERATIONS));
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
    problem: !read ? "the report has no ops_perf_results*.csv" : read.ok ? "" : read.problem,
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

/** op_code: every call of the op code in the CSV (on `device`), with its counters pooled. */
function oneOpCode(
  scan: CounterScan,
  csv: CsvSide,
  opCode: string,
  device: number | undefined,
  clock: number | null,
): Mode {
  if (!csv.table) throw new Refusal(`op_code needs the performance CSV: ${csv.problem}`);
  const code = opCode.trim();
  const calls = [...csv.rows.entries()].filter(([key, r]) =>
    r.opCode === code && (device === undefined || key.startsWith(`${device}|`))
  );
  if (calls.length === 0) {
    throw new Refusal(
      `no row of the performance CSV has OP CODE ${JSON.stringify(code)}` +
        (device === undefined ? "" : ` on device ${device}`),
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

/** A CSV row's id and OP CODE, by `${DEVICE ID}|${GLOBAL CALL COUNT}`. */
interface CsvOp {
  id: number;
  opCode: string;
}

/** Where the columns a row's counter key is made of sit in the header (−1 when absent). */
function keyColumns(table: CsvTable): { run: number; device: number } {
  return {
    run: table.header.indexOf("GLOBAL CALL COUNT"),
    device: table.header.indexOf("DEVICE ID"),
  };
}

function wholeCell(table: CsvTable, r: number, c: number): number | null {
  const text = c < 0 ? "" : cellOf(table, r, c).trim();
  return /^\d+(\.0*)?$/.test(text) ? Number(text) : null;
}

/** The `${device}|${run}` of data row `r`, or null when either is not a whole number. */
function rowKey(table: CsvTable, r: number, cols = keyColumns(table)): string | null {
  const run = wholeCell(table, r, cols.run);
  const device = wholeCell(table, r, cols.device);
  return run === null || device === null ? null : `${device}|${run}`;
}

/** The CSV's device operations by device and call count (the first row of each). */
function csvIndex(table: CsvTable): Map<string, CsvOp> {
  const out = new Map<string, CsvOp>();
  const code = table.header.indexOf("OP CODE");
  const cols = keyColumns(table);
  const rows = rowCountOf(table);
  for (let i = 0; i < rows; i++) {
    const key = rowKey(table, i, cols);
    if (key !== null && !out.has(key)) {
      out.set(key, { id: rowIdOf(i), opCode: cellOf(table, i, code).trim() });
    }
  }
  return out;
}

/** The `${device}|${run}` of performance row `id`, or a Refusal. */
function keyOfRow(table: CsvTable | null, id: number, problem: string): string {
  if (!table) throw new Refusal(`perf_id needs the performance CSV: ${problem}`);
  const rows = rowCountOf(table);
  if (!isRowId(id, rows)) {
    throw new Refusal(
      `no performance row has id ${id}: ids are the CSV's lines, 2 to ${rows + 1}`,
    );
  }
  const key = rowKey(table, rowIndexOf(id));
  if (key === null) {
    throw new Refusal(
      `row ${id} has no whole-number GLOBAL CALL COUNT and DEVICE ID, so no counter row can be ` +
        "matched to it (a signpost or host operation)",
    );
  }
  return key;
}

const pct = (x: number | null) => (x === null ? null : round3(100 * x));

function counterOut(s: RatioStats): CounterStats {
  return {
    pooled_pct: pct(s.pooled),
    median_pct: pct(s.median),
    min_pct: pct(s.min),
    max_pct: pct(s.max),
    mean_pct: pct(s.mean),
    samples: s.samples,
    req_sum: s.reqSum,
    ref_sum: s.refSum,
  };
}

/** The figures of one operation, or of several pooled. */
function entry(f: CounterFigures, clock: number | null): CounterEntry {
  const refMedian = f.fpu?.refMedian ?? f.groups[0]?.counters[0]?.stats.refMedian ?? null;
  const caveats = entryCaveats(f);
  return {
    ...(f.operations > 1 ? { operations: f.operations } : {}),
    instances: f.instances,
    cores: f.cores,
    ref_cycles_median: refMedian,
    ref_us_median: refMedian === null || clock === null ? null : round3(refMedian / clock),
    fpu_utilisation: f.fpu ? counterOut(f.fpu) : null,
    instruction_threads: f.threads.map((t) => ({
      thread: t.thread,
      role: t.role,
      states: t.states.map((s) => ({
        state: s.state,
        counter: s.counter,
        pooled_pct: pct(s.stats.pooled),
        median_pct: pct(s.stats.median),
      })),
      accounted_pct: pct(t.accounted),
      unaccounted_pct: pct(t.unaccounted),
      ...(t.missing.length > 0 ? { missing: t.missing } : {}),
    })),
    groups: f.groups.map((g) => ({
      group: g.group,
      ref_cycles_median: g.counters[0].stats.refMedian,
      counters: g.counters.map((c) => ({ counter: c.name, ...counterOut(c.stats) })),
    })),
    riscs: f.riscs,
    ...(caveats.length > 0 ? { caveat: caveats.join(" ") } : {}),
  };
}

function entryCaveats(f: CounterFigures): string[] {
  const out: string[] = [];
  const all = f.groups.flatMap((g) => g.counters);
  const over = all.reduce((n, c) => n + c.stats.overOne, 0);
  if (over > 0) {
    out.push(
      `${over} samples counted more than their ref: a ref cnt that wrapped (older tt-metal kept ` +
        "it in 25 or 28 bits, about 25 or 200 ms at 1.35 GHz) or counters read outside their " +
        "window; their ratios are not utilisations.",
    );
  }
  const zero = all.reduce((n, c) => n + c.stats.zeroRef, 0);
  if (zero > 0) out.push(`${zero} samples had ref cnt 0 and are left out of every figure.`);
  if (f.repeats > 0) {
    out.push(
      `${f.repeats} counter rows repeated a counter already read for the same core and ` +
        "instance; each was added to that sample's req and ref.",
    );
  }
  if (!f.fpu) out.push("No FPU_COUNTER was recorded (the FPU group was not enabled).");
  return out;
}

/** The cores of one operation with the lowest FPU utilisation, for a one-operation answer. */
function lowestCores(op: OpCounters): { lowest_fpu_cores?: LowFpuCore[] } {
  const fpu = op.series.get("FPU_COUNTER");
  if (!fpu) return {};
  const cores = perCore(fpu).sort((a, b) => (a.ratio ?? -1) - (b.ratio ?? -1) || a.core - b.core);
  return {
    lowest_fpu_cores: cores.slice(0, MAX_CORES).map((c) => ({
      core_x: Math.floor(c.core / CORE_SPAN),
      core_y: c.core % CORE_SPAN,
      fpu_utilisation_pct: pct(c.ratio),
      ref_cycles_median: c.ref,
      instances: c.instances,
    })),
  };
}

function scanCaveats(scan: CounterScan): string[] {
  const out: string[] = [];
  if (scan.bad > 0) {
    out.push(
      `${scan.bad} counter rows could not be read (a slot, core or run host ID that is not a ` +
        `whole number, or meta data without counter type, ref cnt and value); the first: ` +
        `${JSON.stringify(scan.firstBad)}.`,
    );
  }
  if (scan.numericNames > 0) {
    out.push(
      `${scan.numericNames} counter rows name their counter by number, as older tt-metal wrote ` +
        "it; numbering changed between versions, so they are listed as #<n> in group unknown.",
    );
  }
  if (scan.otherTypes > 0) {
    out.push(`${scan.otherTypes} zone rows mentioning "counter type" were not counter rows.`);
  }
  if (scan.outsideOps > 0) {
    out.push(
      `${scan.outsideOps} counter rows had run host ID 0, which belongs to no operation, and ` +
        "are left out, as tt-metal leaves them out.",
    );
  }
  return out;
}
