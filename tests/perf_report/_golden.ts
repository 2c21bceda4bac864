/**
 * Test support: reading the shared captures and their tt-perf-report goldens, and comparing
 * port output with golden records field by field.
 * @module
 */

import { escapeCsvFormula } from "../../src/perf_report/cells.ts";
import type { PerfRow, StackedRow } from "../../src/perf_report/types.ts";

/** Where the shared captures live: `shared/` beside the repository. */
export const CAPTURES_URL = new URL("../../../shared/captures/perf/", import.meta.url);

/** The golden folder of the tt-perf-report state the port reproduces. */
export const GOLDEN_DIR = "golden-6278e268";

/** True when the shared captures are present. */
export function capturesPresent(): boolean {
  try {
    return Deno.statSync(CAPTURES_URL).isDirectory;
  } catch {
    return false;
  }
}

/** The same directory as a path, ending in `/`. */
export const CAPTURES_DIR = decodeURIComponent(CAPTURES_URL.pathname);

/** captureNames(), saying so on stderr when the shared captures are absent. */
export function captureNamesOrSkip(): string[] {
  if (!capturesPresent()) console.error("skipped: ../shared/captures not found");
  return captureNames();
}

/** Capture folder names (those holding a golden folder), sorted. */
export function captureNames(): string[] {
  if (!capturesPresent()) return [];
  const names: string[] = [];
  for (const e of Deno.readDirSync(CAPTURES_URL)) {
    if (!e.isDirectory) continue;
    try {
      if (Deno.statSync(new URL(`${e.name}/${GOLDEN_DIR}/`, CAPTURES_URL)).isDirectory) {
        names.push(e.name);
      }
    } catch { /* not a capture */ }
  }
  return names.sort();
}

/** The capture's CSV text. */
export function captureCsv(name: string): { text: string; file: string } {
  const dir = new URL(`${name}/`, CAPTURES_URL);
  for (const e of Deno.readDirSync(dir)) {
    if (e.isFile && /^ops_perf_results.*\.csv$/.test(e.name)) {
      return { text: Deno.readTextFileSync(new URL(e.name, dir)), file: e.name };
    }
  }
  throw new Error(`no ops_perf_results CSV in ${name}`);
}

/** The golden files of a capture. */
export function goldenFiles(name: string): string[] {
  return [...Deno.readDirSync(new URL(`${name}/${GOLDEN_DIR}/`, CAPTURES_URL))]
    .filter((e) => e.isFile)
    .map((e) => e.name)
    .sort();
}

/** Parses one golden JSON file. */
// deno-lint-ignore no-explicit-any
export function readGolden(name: string, file: string): any {
  return JSON.parse(
    Deno.readTextFileSync(new URL(`${name}/${GOLDEN_DIR}/${file}`, CAPTURES_URL)),
  );
}

type Getter = (row: PerfRow) => unknown;

/** Golden per-op field → how to read it from a port row. Text cells are compared escaped. */
export const ROW_FIELDS: Readonly<Record<string, Getter>> = {
  "ID": (r) => r.id,
  "Total %": (r) => r.total_percent,
  "Bound": (r) => r.bound,
  "OP Code": (r) => escapeCsvFormula(r.op_code),
  "Device": (r) => r.device,
  "Device Time": (r) => r.device_time,
  "Op-to-Op Gap": (r) => r.op_to_op_gap,
  "Cores": (r) => r.cores,
  "DRAM": (r) => r.dram,
  "DRAM %": (r) => r.dram_percent,
  "FLOPs": (r) => r.flops,
  "FLOPs %": (r) => r.flops_percent,
  "Math Fidelity": (r) => escapeCsvFormula(r.math_fidelity),
  "Output Datatype": (r) => escapeCsvFormula(r.output_datatype),
  "Input 0 Datatype": (r) => escapeCsvFormula(r.input_0_datatype),
  "Input 1 Datatype": (r) => escapeCsvFormula(r.input_1_datatype),
  "DRAM Sharded": (r) => r.dram_sharded,
  "Input 0 Memory": (r) => escapeCsvFormula(r.input_0_memory),
  "Inner Dim Block Size": (r) => r.inner_dim_block_size,
  "Output Subblock H": (r) => r.output_subblock_h,
  "Output Subblock W": (r) => r.output_subblock_w,
  "Global Call Count": (r) => r.global_call_count,
  "Sub Device ID": (r) => escapeCsvFormula(r.sub_device_id),
  "Available Cores": (r) => r.available_cores,
  "Op Category": (r) => r.op_category,
  "Bound Analysis": (r) => r.bound_analysis,
  "Overlap": (r) => r.overlap,
  "Raw OP Code": (r) => escapeCsvFormula(r.raw_op_code),
  "Advice": (r) => escapeCsvFormula((r.advice ?? []).join(" • ")),
  "advice_items": (r) => r.advice,
};

/** Golden `_internal` field → port row. */
export const INTERNAL_FIELDS: Readonly<Record<string, Getter>> = {
  "Busy Time (before overlap gate)": (r) => r.internal.busy_time_before_gate,
  "Overlap (before overlap gate)": (r) => r.internal.overlap_before_gate,
  "DRAM Bytes": (r) => r.internal.dram_bytes,
  "Invalid Device Duration": (r) => r.internal.invalid_device_duration,
  "Sparse Matmul": (r) => r.internal.sparse_matmul,
  "Sparse Active Batches Missing": (r) => r.internal.sparse_active_batches_missing,
  "Sparse Active Source": (r) => r.internal.sparse_active_source,
};

/** Golden keys that describe a record rather than hold a report value. */
const ANNOTATION_KEYS = new Set(["_nan_fields", "_special"]);

/** Golden stacked field → port stacked row. */
export const STACKED_FIELDS: Readonly<Record<string, (r: StackedRow) => unknown>> = {
  "%": (r) => r.percent,
  "OP Code Joined": (r) => escapeCsvFormula(r.op_code_joined),
  "Device": (r) => r.device,
  "Device_Time_Sum_us": (r) => r.device_time_sum_us,
  "Ops_Count": (r) => r.ops_count,
  "Op_Category": (r) => r.op_category,
  "Flops_min": (r) => r.flops_min,
  "Flops_max": (r) => r.flops_max,
  "Flops_mean": (r) => r.flops_mean,
  "Flops_std": (r) => r.flops_std,
  "Flops_weighted_mean": (r) => r.flops_weighted_mean,
};

/** Strict equality for goldens: bit-equal numbers, equal strings, deep-equal lists. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => sameValue(x, (b as unknown[])[i]));
  }
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length &&
      ka.every((k) =>
        sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
      );
  }
  return a === b;
}

/** Compares records with a field map; returns human-readable mismatches (empty when equal). */
export function diffRecords<T>(
  label: string,
  golden: Record<string, unknown>[],
  ours: T[],
  fields: Readonly<Record<string, (r: T) => unknown>>,
  internal?: Readonly<Record<string, (r: T) => unknown>>,
  limit = 20,
): string[] {
  const out: string[] = [];
  if (golden.length !== ours.length) {
    out.push(`${label}: ${ours.length} rows, golden has ${golden.length}`);
  }
  const n = Math.min(golden.length, ours.length);
  for (let i = 0; i < n && out.length < limit; i++) {
    const g = golden[i];
    for (const [key, value] of Object.entries(g)) {
      if (ANNOTATION_KEYS.has(key)) continue;
      if (key === "_internal" && internal) {
        for (const [ik, iv] of Object.entries(value as Record<string, unknown>)) {
          if (ANNOTATION_KEYS.has(ik)) continue;
          const get = internal[ik];
          if (!get) out.push(`${label}[${i}]: golden _internal field '${ik}' is not produced`);
          else if (!sameValue(get(ours[i]), iv)) {
            out.push(
              `${label}[${i}] _internal.${ik}: ours ${fmt(get(ours[i]))}, golden ${fmt(iv)}`,
            );
          }
        }
        continue;
      }
      const get = fields[key];
      if (!get) {
        out.push(`${label}[${i}]: golden field '${key}' is not produced`);
        continue;
      }
      if (!sameValue(get(ours[i]), value)) {
        out.push(`${label}[${i}] ${key}: ours ${fmt(get(ours[i]))}, golden ${fmt(value)}`);
      }
    }
  }
  return out;
}

function fmt(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}
