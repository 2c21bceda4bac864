/**
 * tt-perf-report's `generate_perf_report`, step for step, with the tool's own options. The
 * product entry point is `generatePerfReport` in `report.ts`; this is the faithful core it and
 * the conformance tests use.
 * @module
 */

import type { CsvTable } from "./csv_table.ts";
import { Frame } from "./_frame.ts";
import { resolveArchitecture } from "./arch.ts";
import { HOST_START_TS, hostStartOrder } from "./_order.ts";
import { filterBySignpost } from "./signposts.ts";
import { KERNEL_DURATION, RowReader, type SourceRow } from "./_source.ts";
import { annotateOverlap, OVERLAP_REQUIRED_COLUMNS } from "./overlap.ts";
import { mergeDeviceRows } from "./_merge.ts";
import { type AnalysisContext, analyzeOp } from "./_analyze.ts";
import { classifyOperation, unclassifiedWarning } from "./categories.ts";
import { busyTime, gapTime, isHostOp, isMatmulOp, isSignpostOp, summedOpTime } from "./_rows.ts";
import { PythonSum } from "./summation.ts";
import { adviceSections, generateMatmulAdvice, matmulAdviceInput } from "./advice.ts";
import { evaluateFidelity } from "./fidelity.ts";
import { generateStackedReport } from "./stacked.ts";
import { pyFirstToken } from "./_python.ts";
import { pyFormatFixed } from "../kit/python_format.ts";
import { PerfReportInputError } from "./exceptions.ts";
import { ALWAYS_REQUIRED_COLUMNS } from "./columns.ts";
import { finiteFloat } from "./cells.ts";
import type { PerfReport, PerfRow, PerfTotals, StackedReports, StackedRow } from "./types.ts";
import { addDerivedColumns, reattributeOverlap } from "./_derived.ts";
import { rowIdOf } from "./row_id.ts";

/** The version of tt-perf-report this port reproduces. */
export const TT_PERF_REPORT_VERSION =
  "unreleased@6278e268 (after 1.2.9; version number not stored)";

/** `generate_perf_report`'s options that change the report (CLI defaults when omitted). */
export interface TtPerfReportOptions {
  startSignpost?: string | null;
  endSignpost?: string | null;
  /** Which occurrence of the start signpost (not a tt-perf-report option; default 1). */
  startOccurrence?: number;
  ignoreSignposts?: boolean;
  printSignposts?: boolean;
  /** Rows under this Total % skip the console colour rules (default 0.5). */
  minPercentage?: number;
  /** `--id-range`: keep IDs in [start, end]; either bound may be null, not both. */
  idRange?: { start: number | null; end: number | null } | null;
  arch?: string | null;
  tracingMode?: boolean;
  noHostOps?: boolean;
  noMergeDevices?: boolean;
  /**
   * Keep only this DEVICE ID's rows (and rows with none), as if the CSV held that device
   * alone (not a tt-perf-report option).
   */
  device?: number | null;
  activeExperts?: number | null;
}

/** Runs tt-perf-report's pipeline on a parsed CSV. */
export function runTtPerfReport(table: CsvTable, options: TtPerfReportOptions = {}): PerfReport {
  const frame = Frame.of(table);
  const missing = ALWAYS_REQUIRED_COLUMNS.filter((c) => !frame.has(c));
  if (missing.length > 0) {
    throw new PerfReportInputError(
      "missing_columns",
      `tt-perf-report cannot read this CSV without ${missing.join(", ")}`,
    );
  }
  const idRange = options.idRange ?? null;
  if (idRange && idRange.start === null && idRange.end === null) {
    throw new PerfReportInputError("invalid_option", "an id range needs a start or an end");
  }
  const reader = new RowReader(frame);
  const arch = resolveArchitecture(frame, options.arch ?? null);
  const messages = [...arch.messages];

  let order: number[];
  if (frame.has(HOST_START_TS) && !options.tracingMode) {
    messages.push("Sorting CSV by 'HOST START TS' column...");
    order = hostStartOrder(frame);
  } else {
    messages.push(
      options.tracingMode
        ? "Tracing mode enabled. CSV will not be sorted by 'HOST START TS'."
        : "Warning: 'HOST START TS' column not found. CSV will not be sorted.",
    );
    order = Array.from({ length: frame.length }, (_, i) => i);
  }
  const window = filterBySignpost(frame, order, options);
  messages.push(...window.messages);

  const device = options.device ?? null;
  const positions = device === null ? window.positions : window.positions.filter((pos) => {
    const d = frame.numeric(pos, "DEVICE ID");
    return Number.isNaN(d) || d === device;
  });
  let rows: SourceRow[] = positions.map((pos) => ({
    pos,
    overlapNs: null,
    busyNs: null,
    merged: null,
  }));
  const valid = rows.map((r) => !reader.isInvalidDuration(r));
  const preMerge = rows.map((r, i) => ({
    deviceId: frame.numeric(r.pos, "DEVICE ID"),
    opType: typeof frame.value(r.pos, "OP TYPE") === "string"
      ? frame.value(r.pos, "OP TYPE") as string
      : null,
    fwStartCycle: frame.numeric(r.pos, "DEVICE FW START CYCLE"),
    fwEndCycle: frame.numeric(r.pos, "DEVICE FW END CYCLE"),
    fwDurationNs: frame.numeric(r.pos, "DEVICE FW DURATION [ns]"),
    kernelNs: frame.numeric(r.pos, KERNEL_DURATION),
    valid: valid[i],
  }));
  const overlapColumns = OVERLAP_REQUIRED_COLUMNS.every((c) => frame.has(c));
  const sweep = annotateOverlap(preMerge, overlapColumns);
  rows.forEach((r, i) => {
    r.overlapNs = sweep.overlapNs[i];
    r.busyNs = sweep.busyNs[i];
  });
  const preMergeRows = rows.map((r) => r.pos);

  const deviceValues = new Set<number>();
  for (const r of rows) {
    const d = frame.numeric(r.pos, "DEVICE ID");
    if (!Number.isNaN(d)) deviceValues.add(d);
  }
  const uniqueDevices = deviceValues.size;
  if (options.noMergeDevices && uniqueDevices > 1) {
    messages.push(`Detected data from ${uniqueDevices} devices. Keeping separate device data...`);
  } else if (uniqueDevices === 0) {
    messages.push("No device operations found in the CSV data.");
  } else {
    messages.push(`Detected data from ${uniqueDevices} devices. Merging device data...`);
    const merged = mergeDeviceRows(reader, rows);
    messages.push(...merged.messages);
    rows = merged.rows;
  }

  const ctx: AnalysisContext = {
    reader,
    format: arch.format,
    spec: arch.spec,
    activeExperts: options.activeExperts ?? null,
  };
  const warned = new Set<string>();
  let report: PerfRow[] = [];
  let prev: { invalid: boolean } | null = null;
  const counts = { device: 0, host: 0, signpost: 0 };
  for (const source of rows) {
    const row = withRow(rowIdOf(source.pos), () => analyzeOp(ctx, source, prev));
    const opType = reader.requiredText(source, "OP TYPE", "for every row it reports");
    if (opType.includes("signpost")) {
      row.op_code = `${row.raw_op_code} (signpost)`;
      row.device_time = null;
      row.is_signpost = true;
    } else {
      prev = { invalid: row.internal.invalid_device_duration };
      row.op_category = classifyOperation(row.op_code, (base) => {
        const w = unclassifiedWarning(base);
        if (!warned.has(w.key)) {
          warned.add(w.key);
          messages.push(w.message);
        }
      });
    }
    row.is_host_op = isHostOp(row.op_code);
    row.is_signpost = isSignpostOp(row.op_code);
    if (row.is_host_op) counts.host++;
    else if (row.is_signpost) counts.signpost++;
    else counts.device++;
    report.push(row);
  }

  addDerivedColumns(report);
  if (idRange) {
    report = filterByIdRange(report, idRange, messages);
    reattributeOverlap(
      report,
      preMerge,
      preMergeRows,
      (inputs) => annotateOverlap(inputs, overlapColumns),
    );
  }
  if (options.noHostOps) report = report.filter((r) => !r.is_host_op);
  addDerivedColumns(report);
  checkFidelityColours(report, options.minPercentage ?? 0.5);

  if (report.some((r) => r.internal.sparse_active_batches_missing)) {
    messages.push(
      "Warning: SparseMatmulDeviceOperation rows without numeric nnz were found. " +
        "Their DRAM/FLOP utilization is omitted; pass --active-experts K to model K active experts per input batch group.",
    );
  }
  const invalidRows = report.filter((r) => r.internal.invalid_device_duration && !r.is_signpost);
  if (invalidRows.length > 0) {
    messages.push(
      `Warning: ${invalidRows.length} rows had invalid device durations. ` +
        "Their device time, utilization, and timing-total contributions were omitted.",
    );
  }
  const subIds = new Set<string>();
  const budgetSet = new Set<number>();
  for (const r of report) {
    if (r.sub_device_id !== null) subIds.add(`${typeof r.sub_device_id}:${r.sub_device_id}`);
    budgetSet.add(r.available_cores);
  }
  const budgets = [...budgetSet].sort((a, b) => b - a);
  const showIds = subIds.size > 0;
  const showCores = showIds || budgets.length > 1;
  if (showIds) {
    messages.push(`Subdevices: ${subIds.size} - using per-op worker core budgets.`);
  } else if (showCores) {
    messages.push(
      `Worker core budgets vary across ops [${budgets.join(", ")}] - using per-op values.`,
    );
  }
  const hasOverlapData = showCores && report.some((r) => r.internal.busy_time_before_gate !== null);
  const gateOpen = hasOverlapData && report.some((r) => r.internal.overlap_before_gate);
  for (const r of report) r.overlap = gateOpen ? r.internal.overlap_before_gate : null;
  const totals = computeTotals(report, gateOpen, counts);
  overlapMessages(messages, gateOpen, hasOverlapData, showCores, totals);

  for (const r of report) {
    if (isMatmulOp(r.op_code)) r.advice = generateMatmulAdvice(matmulAdviceInput(r));
  }
  if (totals.overall_dram_percent !== null) {
    messages.push(
      `Overall DRAM roofline (modeled ops): ${
        pyFormatFixed(totals.overall_dram_percent, 1, false)
      }% (${pyFormatFixed(totals.overall_dram_gb_s!, 0, false)} GB/s)`,
    );
  }
  const stackedOptions = { perDevice: !!options.noMergeDevices, noHostOps: !!options.noHostOps };
  const stacked = (groupBy: "op" | "memory" | "category") =>
    report.length === 0 ? null : generateStackedReport(report, { ...stackedOptions, groupBy });
  return {
    tt_perf_report_version: TT_PERF_REPORT_VERSION,
    csv_format: arch.format,
    arch: arch.spec,
    rows: report,
    window: {
      start_signpost: options.ignoreSignposts ? null : options.startSignpost || null,
      end_signpost: options.ignoreSignposts ? null : options.endSignpost || null,
      signpost_range_ignored: false,
    },
    totals,
    sub_devices: { count: subIds.size, show_available_cores: showCores, budgets },
    overlap: { has_overlap_data: hasOverlapData, gate_open: !!gateOpen },
    invalid_duration_rows: invalidRows.length,
    advice_sections: adviceSections(report, !!gateOpen),
    stacked: lazyStacked(stacked),
    messages,
  };
}

function filterByIdRange(
  rows: PerfRow[],
  range: { start: number | null; end: number | null },
  messages: string[],
): PerfRow[] {
  const { start, end } = range;
  let kept: PerfRow[];
  if (start === null) {
    messages.push(`Filtering rows with IDs up to ${end}`);
    kept = rows.filter((r) => r.id <= end!);
  } else if (end === null) {
    messages.push(`Filtering rows with IDs from ${start} onwards`);
    kept = rows.filter((r) => r.id >= start);
  } else {
    messages.push(`Filtering rows with IDs from ${start} to ${end}`);
    kept = rows.filter((r) => start <= r.id && r.id <= end);
  }
  if (kept.length > 0) kept[0].op_to_op_gap = null;
  return kept;
}

/**
 * The console colour pass evaluates the fidelity of every matmul and OptimizedConvNew row at
 * or above `--min-percentage`; where that evaluation fails the tool aborts, and so does this.
 */
function checkFidelityColours(rows: PerfRow[], minPercentage: number): void {
  for (const r of rows) {
    if (r.total_percent !== null && r.total_percent < minPercentage && !r.is_host_op) continue;
    if (!(r.op_code.includes("Matmul") || r.op_code.includes("OptimizedConvNew"))) continue;
    if (!r.math_fidelity) continue;
    const fidelity = r.math_fidelity;
    withRow(r.id, () =>
      evaluateFidelity(
        r.input_0_datatype,
        r.input_1_datatype,
        r.output_datatype,
        pyFirstToken(fidelity) ?? null,
      ));
  }
}

/** Runs `fn`, attributing a row-less input error to row `id`. */
function withRow<T>(id: number, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof PerfReportInputError && error.row === null) {
      throw new PerfReportInputError(error.kind, error.message, id);
    }
    throw error;
  }
}

function computeTotals(
  rows: PerfRow[],
  gateOpen: boolean,
  counts: { device: number; host: number; signpost: number },
): PerfTotals {
  const device = summedOpTime(rows);
  const busy = busyTime(rows, gateOpen);
  const timed = rows.filter((r) => r.device_time !== null && !r.is_signpost);
  const timedBusy = busyTime(timed, gateOpen);
  let dramGbS: number | null = null;
  let dramPercent: number | null = null;
  if (timedBusy !== 0) {
    const byteSum = new PythonSum();
    for (const r of rows) {
      const b = finiteFloat(r.internal.dram_bytes);
      if (b !== null) byteSum.add(b);
    }
    const bytes = byteSum.value;
    const weightedSum = new PythonSum();
    for (const r of timed) {
      if (r.dram_percent !== null) weightedSum.add(r.dram_percent * r.device_time!);
    }
    const weighted = weightedSum.value;
    if (bytes !== 0) {
      dramGbS = bytes / (timedBusy * 1e-6) / 1e9;
      dramPercent = weighted / timedBusy;
    }
  }
  return {
    device_time_us: device,
    op_to_op_gap_us: gapTime(rows),
    busy_time_us: busy,
    overlapped_time_us: device - busy,
    overall_dram_gb_s: dramGbS,
    overall_dram_percent: dramPercent,
    device_ops: counts.device,
    host_ops: counts.host,
    signposts: counts.signpost,
  };
}

function overlapMessages(
  messages: string[],
  gateOpen: boolean,
  hasOverlapData: boolean,
  showCores: boolean,
  totals: PerfTotals,
): void {
  if (gateOpen) {
    const overlapped = totals.overlapped_time_us;
    messages.push(
      `Overlap: ${
        pyFormatFixed(overlapped, 0)
      } μs of op time ran concurrently with other ops on the same ` +
        `device (${
          pyFormatFixed((overlapped / totals.device_time_us) * 100, 1, false)
        }% of summed op time). The overall ` +
        "DRAM roofline and the tracing-savings estimate use wall-clock busy time; Total % and the " +
        "summary report remain shares of summed op time.",
    );
  } else if (hasOverlapData) {
    messages.push("No overlap detected between subdevices.");
  } else if (showCores) {
    messages.push(
      "Warning: this capture has no usable DEVICE FW END CYCLE data, so overlap between subdevices " +
        "cannot be detected. Totals assume ops ran sequentially and overcount any overlapped work: " +
        "summed device time, the overall DRAM roofline (so its achieved GB/s is understated) and " +
        "the tracing-savings estimate.",
    );
  }
}

/**
 * The three stacked reports, each generated on first read: most answers read one or none,
 * and each costs a pass over every row with pandas-exact sums.
 */
function lazyStacked(
  make: (groupBy: "op" | "memory" | "category") => StackedRow[] | null,
): StackedReports {
  const made = new Map<string, StackedRow[] | null>();
  const get = (groupBy: "op" | "memory" | "category") => {
    if (!made.has(groupBy)) made.set(groupBy, make(groupBy));
    return made.get(groupBy)!;
  };
  return {
    get op() {
      return get("op");
    },
    get memory() {
      return get("memory");
    },
    get category() {
      return get("category");
    },
  };
}
