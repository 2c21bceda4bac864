/**
 * Test support: one checker per kind of golden file. Each returns the mismatches it found;
 * an empty list means the port reproduces the file. Every golden key is either compared or
 * named in an explicit "descriptive" list, so nothing is passed silently.
 * @module
 */

import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { runTtPerfReport, type TtPerfReportOptions } from "../../src/perf_report/pipeline.ts";
import { pyFormatFixed } from "../../src/kit/python_format.ts";
import type { PerfReport, StackedRow } from "../../src/perf_report/types.ts";
import type { CsvTable } from "../../src/perf_report/csv_table.ts";
import {
  captureCsv,
  diffRecords,
  INTERNAL_FIELDS,
  ROW_FIELDS,
  sameValue,
  STACKED_FIELDS,
} from "./_golden.ts";
import {
  formattedStackedColumns,
  formattedStackedRows,
  stackedColumns,
  stackedCsvText,
} from "./_stacked_text.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

/** Golden keys that describe the golden itself (provenance, prose), not report values. */
export const DESCRIPTIVE_KEYS = new Set([
  "golden",
  "capture",
  "csv_file",
  "tool",
  "call",
  "call_kwargs",
  "description",
  "row_fields_note",
  "case",
  "case_description",
  "summary_numbers_are",
]);

const tables = new Map<string, CsvTable>();
const reports = new Map<string, PerfReport>();

/** The capture's parsed CSV (cached). */
export function captureTable(capture: string): CsvTable {
  let t = tables.get(capture);
  if (!t) {
    const { text, file } = captureCsv(capture);
    tables.set(capture, t = parseCsvTable(text, file));
  }
  return t;
}

/** The port's report for a golden call (cached per capture and options). */
export function reportFor(capture: string, kwargs: Json): PerfReport {
  const options = optionsFromKwargs(kwargs);
  const key = `${capture}|${JSON.stringify(options)}`;
  let r = reports.get(key);
  if (!r) reports.set(key, r = runTtPerfReport(captureTable(capture), options));
  return r;
}

/** Kwargs that only choose outputs; the values the goldens were made with. */
const OUTPUT_KWARGS: Record<string, unknown> = {
  no_advice: false,
  raw_op_codes: true,
  classic_colors: false,
  summary_file: null,
  no_stacked_report: false,
  no_stack_by_in0: false,
  stacked_csv: null,
  no_summary: false,
};

/** Maps `generate_perf_report` kwargs onto port options; an unexpected kwarg value throws. */
export function optionsFromKwargs(k: Json): TtPerfReportOptions {
  for (const [key, expected] of Object.entries(OUTPUT_KWARGS)) {
    if (key in k && !sameValue(k[key], expected)) {
      throw new Error(
        `golden call uses ${key}=${JSON.stringify(k[key])}, which the port does not model`,
      );
    }
  }
  return {
    startSignpost: k.start_signpost ?? null,
    endSignpost: k.end_signpost ?? null,
    ignoreSignposts: !!k.ignore_signposts,
    printSignposts: !!k.print_signposts,
    minPercentage: k.min_percentage ?? 0.5,
    idRange: k.id_range ? { start: k.id_range[0], end: k.id_range[1] } : null,
    arch: k.arch ?? null,
    tracingMode: !!k.tracing_mode,
    noHostOps: !!k.no_host_ops,
    noMergeDevices: !!k.no_merge_devices,
    activeExperts: k.active_experts ?? null,
  };
}

/** The tool's log without the file-writing lines (the port writes no files). */
export function comparableLog(log: string[]): string[] {
  return log.filter((l) => !/^(Writing |Plotting |Skipping plot)/.test(l));
}

export function unknownKeys(golden: Json, handled: string[]): string[] {
  return Object.keys(golden)
    .filter((k) => !DESCRIPTIVE_KEYS.has(k) && !handled.includes(k))
    .map((k) => `golden key '${k}' is not compared`);
}

export function eq(label: string, ours: unknown, golden: unknown): string[] {
  return sameValue(ours, golden)
    ? []
    : [`${label}: ours ${JSON.stringify(ours)}, golden ${JSON.stringify(golden)}`];
}

/**
 * The tool sorts groups by device time with numpy's unstable quicksort, whose order for equal
 * times depends on the CPU's SIMD sort (the spec calls it unspecified). Within a run of equal
 * times in the golden, our rows are put in the golden's order when they are a permutation of
 * it; every field is still compared afterwards.
 */
export function alignEqualTimeRuns(golden: Json[], ours: StackedRow[]): StackedRow[] {
  const out = [...ours];
  const key = (r: { op_code_joined?: string; device?: number }, g?: Json) =>
    g ? `${g["OP Code Joined"]}|${g.Device ?? ""}` : `${r.op_code_joined}|${r.device ?? ""}`;
  for (let i = 0; i < golden.length && i < out.length;) {
    let j = i + 1;
    while (j < golden.length && golden[j].Device_Time_Sum_us === golden[i].Device_Time_Sum_us) j++;
    const slice = out.slice(i, j);
    const wanted = golden.slice(i, j).map((g) => key({}, g));
    const byKey = new Map(slice.map((r) => [key(r), r]));
    const sameTime = slice.every((r) => r.device_time_sum_us === golden[i].Device_Time_Sum_us);
    if (sameTime && wanted.every((k) => byKey.has(k)) && byKey.size === wanted.length) {
      wanted.forEach((k, n) => (out[i + n] = byKey.get(k)!));
    }
    i = j;
  }
  return out;
}

/** Checks a stacked golden (`rows`, `columns`, `formatted_*`, `tool_csv_text`, `generated`). */
export function checkStacked(label: string, golden: Json, ours: StackedRow[] | null): string[] {
  const out: string[] = [];
  out.push(...eq(`${label}.generated`, ours !== null, golden.generated));
  const rows = alignEqualTimeRuns(golden.rows, ours ?? []);
  if (golden.generated) {
    out.push(...eq(`${label}.columns`, stackedColumns(rows), golden.columns));
    out.push(
      ...eq(`${label}.formatted_columns`, formattedStackedColumns(rows), golden.formatted_columns),
    );
    out.push(...eq(`${label}.tool_csv_text`, stackedCsvText(rows), golden.tool_csv_text));
    const f = formattedStackedRows(rows);
    golden.formatted_rows.forEach((g: Json, i: number) => {
      for (const [k, v] of Object.entries(g)) {
        out.push(...eq(`${label}.formatted_rows[${i}].${k}`, f[i]?.[k], v));
      }
    });
  }
  out.push(...diffRecords(`${label}.rows`, golden.rows, rows, STACKED_FIELDS));
  return out;
}

/** Checks an ops-style golden (`ops.json`, `ops_no_host.json`, `ops_no_merge.json`, ranges). */
export function checkOpsLike(capture: string, golden: Json): string[] {
  const report = reportFor(capture, golden.call_kwargs);
  const out = diffRecords("rows", golden.rows, report.rows, ROW_FIELDS, INTERNAL_FIELDS);
  const handled = ["rows", "tool_error", "tool_log"];
  out.push(...eq("tool_error", null, golden.tool_error));
  out.push(...eq("tool_log", report.messages, comparableLog(golden.tool_log)));
  if ("row_count" in golden) {
    handled.push("row_count");
    out.push(...eq("row_count", report.rows.length, golden.row_count));
  }
  if ("columns" in golden) {
    handled.push("columns");
    for (const c of golden.columns) {
      if (!(c in ROW_FIELDS)) out.push(`column '${c}' has no port field`);
    }
  }
  if ("first_id" in golden) {
    handled.push("first_id", "last_id");
    out.push(...eq("first_id", report.rows[0]?.id ?? null, golden.first_id));
    out.push(...eq("last_id", report.rows.at(-1)?.id ?? null, golden.last_id));
  }
  if ("console_total_row" in golden) {
    handled.push("console_total_row", "console_op_counts");
    const t = report.totals;
    const g = golden.console_total_row;
    out.push(
      ...eq(
        "device_time_sum printed",
        pyFormatFixed(t.device_time_us, 0),
        g.device_time_sum_us_printed,
      ),
    );
    out.push(
      ...eq("gap sum printed", pyFormatFixed(t.op_to_op_gap_us, 0), g.op_to_op_gap_sum_us_printed),
    );
    out.push(...eq(
      "overall DRAM printed",
      t.overall_dram_gb_s === null ? null : pyFormatFixed(t.overall_dram_gb_s, 0),
      g.overall_dram_gb_s_printed,
    ));
    out.push(...eq(
      "overall DRAM % printed",
      t.overall_dram_percent === null ? null : pyFormatFixed(t.overall_dram_percent, 1),
      g.overall_dram_percent_printed,
    ));
    out.push(...eq("op counts", {
      device_ops: t.device_ops,
      host_ops: t.host_ops,
      signposts: t.signposts,
    }, golden.console_op_counts));
  }
  if ("stacked_op" in golden) {
    handled.push("stacked_op");
    out.push(...checkStacked("stacked_op", golden.stacked_op, report.stacked.op));
  }
  if ("stacked" in golden) {
    handled.push("stacked");
    out.push(
      ...checkStacked(
        "stacked",
        golden.stacked,
        report.stacked[golden.call_kwargs.group_by as "op"],
      ),
    );
  }
  return [...out, ...unknownKeys(golden, handled)];
}

/** Checks `stacked_<group>[_no_host].json`. */
export function checkStackedFile(capture: string, golden: Json): string[] {
  const report = reportFor(capture, golden.call_kwargs);
  const group = golden.group_by as "op" | "memory" | "category";
  const out = checkStacked("stacked", golden, report.stacked[group]);
  out.push(...eq("group_by", golden.call_kwargs.group_by, group));
  out.push(...eq("no_host_ops", !!golden.call_kwargs.no_host_ops, golden.no_host_ops));
  out.push(...eq("tool_error", null, golden.tool_error));
  out.push(...eq("tool_log", report.messages, comparableLog(golden.tool_log)));
  const handled = [
    "generated",
    "columns",
    "rows",
    "formatted_columns",
    "formatted_rows",
    "tool_csv_text",
    "group_by",
    "no_host_ops",
    "tool_error",
    "tool_log",
  ];
  return [...out, ...unknownKeys(golden, handled)];
}
