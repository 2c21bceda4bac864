/**
 * Test support: renders port stacked rows the way tt-perf-report prints them (console strings
 * of `format_stacked_report_df`) and writes them (`to_csv(float_format="%.2f")`), so the
 * goldens' `formatted_rows` and `tool_csv_text` can be compared too.
 * @module
 */

import { escapeCsvFormula } from "../../src/perf_report/cells.ts";
import { pyFormatFixed } from "../../src/kit/python_format.ts";
import type { StackedRow } from "../../src/perf_report/types.ts";

const FLOPS_KEYS = ["flops_min", "flops_max", "flops_mean", "flops_std", "flops_weighted_mean"];

/** The stacked DataFrame's columns for a report (`%` first). */
export function stackedColumns(rows: StackedRow[]): string[] {
  const cols = ["%", "OP Code Joined"];
  if (rows.some((r) => r.device !== undefined)) cols.push("Device");
  cols.push("Device_Time_Sum_us", "Ops_Count");
  if (rows.some((r) => r.op_category !== undefined)) {
    cols.push("Op_Category", "Flops_min", "Flops_max", "Flops_mean", "Flops_std");
    cols.push("Flops_weighted_mean");
  }
  return cols;
}

const CONSOLE_LABELS: Record<string, string> = {
  "%": "Total %",
  "OP Code Joined": "Op Code",
  "Device": "Device",
  "Device_Time_Sum_us": "Device Time Sum",
  "Ops_Count": "Op Count",
  "Op_Category": "Op Category",
  "Flops_min": "Min FLOPs",
  "Flops_max": "Max FLOPs",
  "Flops_mean": "Mean FLOPs",
  "Flops_std": "Std FLOPs",
  "Flops_weighted_mean": "Weighted Mean FLOPs",
};

const CSV_LABELS: Record<string, string> = {
  ...CONSOLE_LABELS,
  "%": "Total % [%]",
  "Device_Time_Sum_us": "Device Time Sum [μs]",
  "Flops_min": "Min FLOPs [%]",
  "Flops_max": "Max FLOPs [%]",
  "Flops_mean": "Mean FLOPs [%]",
  "Flops_std": "Std FLOPs [%]",
  "Flops_weighted_mean": "Weighted Mean FLOPs [%]",
};

function flopsKey(column: string): keyof StackedRow {
  return FLOPS_KEYS[
    ["Flops_min", "Flops_max", "Flops_mean", "Flops_std", "Flops_weighted_mean"]
      .indexOf(column)
  ] as keyof StackedRow;
}

/** `format_stacked_report_df`: the console strings, keyed by the console labels. */
export function formattedStackedRows(rows: StackedRow[]): Record<string, string>[] {
  const cols = stackedColumns(rows);
  return rows.map((r) => {
    const out: Record<string, string> = {};
    for (const c of cols) {
      let v: string;
      if (c === "%") v = `${pyFormatFixed(r.percent, 2)} %`;
      else if (c === "OP Code Joined") v = r.op_code_joined;
      else if (c === "Device") v = String(r.device);
      else if (c === "Device_Time_Sum_us") v = `${pyFormatFixed(r.device_time_sum_us, 2)} μs`;
      else if (c === "Ops_Count") v = String(r.ops_count);
      else if (c === "Op_Category") v = String(r.op_category);
      else {
        const x = r[flopsKey(c)] as number | null;
        v = x === null ? "" : `${pyFormatFixed(x, 2)} %`;
      }
      out[CONSOLE_LABELS[c]] = v;
    }
    return out;
  });
}

/** The console column labels. */
export function formattedStackedColumns(rows: StackedRow[]): string[] {
  return stackedColumns(rows).map((c) => CONSOLE_LABELS[c]);
}

function csvCell(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** `dump_stacked_report`: the stacked CSV text the tool writes. */
export function stackedCsvText(rows: StackedRow[]): string {
  const cols = stackedColumns(rows);
  const totalIsZero = rows.every((r) => r.device_time_sum_us === 0);
  const perDevice = cols.includes("Device");
  const lines = [cols.map((c) => csvCell(CSV_LABELS[c])).join(",")];
  for (const r of rows) {
    const cells = cols.map((c) => {
      if (c === "%") {
        return totalIsZero && !perDevice ? "0" : pyFormatFixed(r.percent, 2, false);
      }
      if (c === "OP Code Joined") return csvCell(String(escapeCsvFormula(r.op_code_joined)));
      if (c === "Device") return String(r.device);
      if (c === "Device_Time_Sum_us") return pyFormatFixed(r.device_time_sum_us, 2, false);
      if (c === "Ops_Count") return String(r.ops_count);
      if (c === "Op_Category") return csvCell(String(escapeCsvFormula(r.op_category)));
      const x = r[flopsKey(c)] as number | null;
      return x === null ? "" : pyFormatFixed(x, 2, false);
    });
    lines.push(cells.join(","));
  }
  return lines.join("\n") + "\n";
}
