/**
 * Test support: checkers for the golden files that are not per-op or stacked reports
 * (signposts, advice, meta, the tool's CSV and console text).
 * @module
 */

import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { TT_PERF_REPORT_VERSION } from "../../src/perf_report/report.ts";
import {
  listDeviceIds,
  listSignpostOccurrences,
  listSignposts,
} from "../../src/perf_report/signposts.ts";
import { pyFormatFixed } from "../../src/kit/python_format.ts";
import { diffRecords, ROW_FIELDS, sameValue } from "./_golden.ts";
import { captureTable, eq, type Json, reportFor, unknownKeys } from "./_checks.ts";

/** Checks `signposts.json`. */
export function checkSignposts(capture: string, golden: Json): string[] {
  const table = captureTable(capture);
  const occurrences = listSignpostOccurrences(table);
  const out: string[] = [];
  out.push(...eq("count", occurrences.length, golden.count));
  out.push(...eq("counts", listSignposts(table), golden.counts));
  out.push(
    ...eq("in_host_start_ts_order", occurrences.map((o) => o.name), golden.in_host_start_ts_order),
  );
  const byLine = [...occurrences].sort((a, b) => a.id - b.id);
  out.push(...eq(
    "in_file_order (csv_line, name)",
    byLine.map((o) => [o.id, o.name]),
    golden.in_file_order.map((g: Json) => [g.csv_line, g.name]),
  ));
  const canonical = reportFor(capture, { ignore_signposts: true });
  out.push(...eq(
    "in_report",
    canonical.rows.filter((r) => r.is_signpost).map((r) => ({
      "ID": r.id,
      "OP Code": r.op_code,
      "Raw OP Code": r.raw_op_code,
    })),
    golden.in_report,
  ));
  const defaults = reportFor(capture, {}).messages;
  out.push(...eq(
    "tool_detected_line",
    defaults.find((m) => m.startsWith("Detected signposts: ")) ?? null,
    golden.tool_detected_line,
  ));
  out.push(...eq(
    "tool_default_choice_line",
    defaults.find((m) => m.startsWith("Using last signpost: ")) ?? null,
    golden.tool_default_choice_line,
  ));
  const handled = [
    "count",
    "counts",
    "in_host_start_ts_order",
    "in_file_order",
    "in_report",
    "tool_detected_line",
    "tool_default_choice_line",
  ];
  return [...out, ...unknownKeys(golden, handled)];
}

function relClose(a: number, b: number, rel = 1e-12): boolean {
  return a === b || Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));
}

/** Checks `advice.json`: per-row advice and the console advice sections. */
export function checkAdvice(capture: string, golden: Json): string[] {
  const report = reportFor(capture, golden.call_kwargs);
  const out: string[] = [];
  const matmuls = report.rows.filter((r) => r.op_code.includes("Matmul"));
  out.push(...diffRecords("per_row", golden.per_row, matmuls, ROW_FIELDS));
  const s = report.advice_sections;
  const g = golden.console_sections;
  out.push(...eq("fallback.ids", s.fallback_ids, g.fallback.ids));
  const high = s.high_op_to_op_gap;
  out.push(...eq("high_op_to_op_gap.ids", high?.ids ?? [], g.high_op_to_op_gap.ids));
  if (g.high_op_to_op_gap.summary) {
    const overhead = pyFormatFixed(high?.max_gap_overhead_us ?? NaN, 0, false);
    const pct = pyFormatFixed(high?.percentage_saved ?? NaN, 1, false);
    const summary = g.high_op_to_op_gap.summary;
    out.push(
      ...eq(
        "summary.line",
        `Running with tracing could save ${overhead} μs (${pct}% of overall time)`,
        summary.line,
      ),
    );
    out.push(
      ...eq("summary.max_gap_overhead_us_printed", overhead, summary.max_gap_overhead_us_printed),
    );
    out.push(...eq("summary.percentage_saved_printed", pct, summary.percentage_saved_printed));
    // The harness's own unrounded re-computation: compared within 1e-12 relative, since it is
    // the harness's arithmetic, not the tool's.
    const h = g.high_op_to_op_gap.harness_recomputed_unrounded;
    if (!relClose(high!.max_gap_overhead_us, h.max_gap_overhead_us)) {
      out.push(`overhead ${high!.max_gap_overhead_us} vs harness ${h.max_gap_overhead_us}`);
    }
    if (!relClose(high!.percentage_saved, h.percentage_saved)) {
      out.push(`percentage ${high!.percentage_saved} vs harness ${h.percentage_saved}`);
    }
  } else if (high !== null) {
    out.push("the port lists a high-gap summary the golden does not have");
  }
  out.push(
    ...eq(
      "matmul_optimization.ids",
      s.matmul_optimization.map((m) => m.id),
      g.matmul_optimization.ids,
    ),
  );
  out.push(...eq(
    "matmul_optimization.advice",
    s.matmul_optimization.map((m) => ({ ID: m.id, advice_items: m.advice })),
    g.matmul_optimization.advice,
  ));
  out.push(...eq("tool_error", null, golden.tool_error));
  return [...out, ...unknownKeys(golden, ["per_row", "console_sections", "tool_error"])];
}

const CSV_FORMATS: Record<string, string> = { V1: "v1", V2: "v2", V2_1: "v2.1" };

/** Facts in meta.json that describe the CSV rather than a report value. */
export const DESCRIPTIVE_FACTS = [
  "op_type_counts",
  "DEVICE_ARCH_values",
  "AVAILABLE_WORKER_CORE_COUNT_values",
  "tool_messages_while_reading_arch",
  "has_SUB_DEVICE_ID_column",
  "SUB_DEVICE_ID_nonblank_values",
  "has_fw_cycle_columns",
  "host_start_ts_monotonic_in_file_order",
  "host_start_ts_duplicates",
];

/** Provenance keys of meta.json. */
export const META_PROVENANCE = [
  "csv_sha256",
  "csv_bytes",
  "source",
  "set",
  "generated_utc",
  "in_process_seconds",
  "files",
];

/** Checks the report-relevant facts of `meta.json`. */
export function checkMeta(capture: string, golden: Json): string[] {
  const table = captureTable(capture);
  const f = golden.facts;
  const report = reportFor(capture, { ignore_signposts: true });
  const out: string[] = [];
  out.push(...eq("tool.version", TT_PERF_REPORT_VERSION, golden.tool.version));
  out.push(...eq("data_rows", table.rows.length, f.data_rows));
  out.push(...eq("columns", table.header, f.columns));
  out.push(...eq("csv_format", report.csv_format, CSV_FORMATS[f.csv_format]));
  out.push(...eq("device_ids", listDeviceIds(table), f.device_ids));
  out.push(...eq("device_count", listDeviceIds(table).length, f.device_count));
  const a = report.arch;
  out.push(...eq("arch_spec_used", {
    name: a.name,
    worker_cores: a.worker_cores,
    observed_budgets: a.observed_budgets,
    dram_sharded_matmul_cores: a.dram_sharded_matmul_cores,
    dram_bandwidth_gb_s: a.dram_bandwidth_gb_s,
    tflops_per_core: a.tflops_per_core,
  }, f.arch_spec_used));
  const occurrences = listSignpostOccurrences(table);
  out.push(...eq(
    "signposts_in_host_start_ts_order",
    occurrences.map((o) => o.name),
    f.signposts_in_host_start_ts_order.map((s: Json) => (typeof s === "string" ? s : s.name)),
  ));
  out.push(...eq(
    "signposts_in_file_order",
    [...occurrences].sort((x, y) => x.id - y.id).map((o) => o.name),
    f.signposts_in_file_order.map((s: Json) => s.name),
  ));
  const compared = [
    "data_rows",
    "columns",
    "csv_format",
    "device_ids",
    "device_count",
    "arch_spec_used",
    "signposts_in_host_start_ts_order",
    "signposts_in_file_order",
  ];
  for (const k of Object.keys(f)) {
    if (!compared.includes(k) && !DESCRIPTIVE_FACTS.includes(k)) {
      out.push(`fact '${k}' is not compared`);
    }
  }
  return [...out, ...unknownKeys(golden, ["facts", ...META_PROVENANCE])];
}

/**
 * Checks `ops.tool.csv` by value: its header is the golden column list, and every cell parses
 * (Python repr round-trips) to the port's value. Its text formatting is not part of the contract.
 */
export function checkToolCsv(capture: string, text: string, columns: string[]): string[] {
  const report = reportFor(capture, { ignore_signposts: true, raw_op_codes: true });
  const csv = parseCsvTable(text, "ops.tool.csv");
  const expected = [
    ...columns.filter((c) => !["advice_items", "Advice", "Raw OP Code"].includes(c)),
    "Advice",
    "Raw OP Code",
  ];
  const out = eq("header", csv.header, expected);
  out.push(...eq("row count", csv.rows.length, report.rows.length));
  for (let i = 0; i < Math.min(csv.rows.length, report.rows.length) && out.length < 20; i++) {
    csv.header.forEach((c, j) => {
      const cell = csv.rows[i][j];
      const ours = ROW_FIELDS[c](report.rows[i]);
      let parsed: unknown = cell;
      if (typeof ours === "number") parsed = cell === "" || cell === "nan" ? null : Number(cell);
      else if (typeof ours === "boolean") parsed = cell === "True";
      else if (ours === null) parsed = cell === "" || cell === "nan" ? null : cell;
      if (!sameValue(ours, parsed)) {
        out.push(`row ${i} ${c}: ours ${JSON.stringify(ours)}, csv ${cell}`);
      }
    });
  }
  return out;
}

/**
 * Checks what `console_canonical.txt` shows that the port computes: the total row printed in
 * ops.json, and the busy-time line, printed exactly when summed op time (Python sum) exceeds
 * busy time (plain loop). The rest is console layout, not part of the contract.
 */
export function checkConsole(capture: string, text: string, totalLine: string | null): string[] {
  const report = reportFor(capture, { ignore_signposts: true, raw_op_codes: true });
  const out: string[] = [];
  if (totalLine !== null && !text.includes(totalLine)) out.push("total row line not found");
  const busyShown = text.includes("Busy time: ");
  out.push(...eq("busy-time line shown", report.totals.overlapped_time_us > 0, busyShown));
  if (busyShown) {
    const t = report.totals;
    const line = `Busy time: ${pyFormatFixed(t.device_time_us - t.overlapped_time_us, 0)} μs ` +
      `(summed op time ${pyFormatFixed(t.device_time_us, 0)} μs, overlap ${
        pyFormatFixed(t.overlapped_time_us, 0)
      } μs).`;
    if (!text.includes(line)) out.push(`busy-time line differs: expected ${line}`);
  }
  return out;
}
