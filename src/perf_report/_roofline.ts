/**
 * Internal: tt-perf-report's matmul roofline (`analyze_matmul`), conv FLOPs model
 * (`analyze_conv`) and halo config text (`analyze_halo`), constant for constant.
 * @module
 */

import { type ArchitectureSpec, type CsvFormat, shapeColumn, tflopsPerCore } from "./arch.ts";
import {
  type CellValue,
  coreCountFromValue,
  getDatatypeSize,
  tensorDimFromValue,
} from "./cells.ts";
import { exactProductToFloat, parsePythonInt } from "./_python.ts";
import { SHAPE_COLUMNS } from "./columns.ts";
import type { CellReader, SourceRow } from "./_source.ts";

/**
 * What the matmul model (`analyze_matmul`) derives from a row's cells other than its device
 * time: its shape, bytes and FLOP count; `matmulRates` turns them into rates for a duration.
 */
export interface MatmulModel {
  size: string;
  mathFidelity: CellValue;
  /** The MATH FIDELITY cell as Python prints it (`nan` when blank). */
  mathFidelityText: string;
  dramSharded: boolean;
  cores: number | null;
  sparse: boolean;
  sparseMissing: boolean;
  sparseSource: string | null;
  /** Whether every tensor dimension was read (without them no figure is). */
  shaped: boolean;
  /** Bytes its DRAM tensors move (null when unknown: a sparse matmul's active batches). */
  bytes: number | null;
  /** FLOPs it does, or null. */
  flopCount: number | null;
  /** The peak FLOP/s of its cores at its fidelity, or null. */
  peak: number | null;
}

/** A matmul's DRAM and FLOP figures over its duration (`analyze_matmul`'s rates). */
export interface MatmulRates {
  dramGbS: number | null;
  dramPercent: number | null;
  flops: number | null;
  flopsPercent: number | null;
  dramBytes: number | null;
}

const MATMUL_WHY = "to analyse a matmul";
const CONV_WHY = "to analyse a convolution";

/** `get_attribute_value`: a `'name': 'value'` (or unquoted) attribute, or null. */
export function attributeValue(attributes: string, name: string): string | null {
  if (!attributes) return null;
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const quoted = new RegExp(`['"]${n}['"]\\s*:\\s*['"]([^'"]+)['"]`).exec(attributes);
  if (quoted) return quoted[1];
  const unquoted = new RegExp(`['"]${n}['"]\\s*:\\s*([^;,}\\s]+)`).exec(attributes);
  return unquoted ? unquoted[1] : null;
}

function boolAttribute(attributes: string, name: string, fallback: boolean): boolean {
  const v = attributeValue(attributes, name);
  return v === null ? fallback : v.toLowerCase() === "true";
}

function optionalIntAttribute(attributes: string, name: string): bigint | null {
  const v = attributeValue(attributes, name);
  if (v === null || v === "std::nullopt") return null;
  return parsePythonInt(v) ?? null;
}

function memoryCells(reader: CellReader, row: SourceRow, why: string): string[] {
  for (const c of ["INPUT_0_DATATYPE", "INPUT_1_DATATYPE", "OUTPUT_0_DATATYPE"]) {
    reader.requireColumn(row, c, why);
  }
  return ["INPUT_0_MEMORY", "INPUT_1_MEMORY", "OUTPUT_0_MEMORY"].map((c) =>
    reader.requiredText(row, c, why)
  );
}

/** The peak FLOP/s of `cores` cores at a fidelity (the cell's `str()` form). */
function peakFlops(spec: ArchitectureSpec, fidelityText: string, cores: number | null) {
  if (cores === null) return null;
  return tflopsPerCore(spec, fidelityText) * 1e12 * cores;
}

function dims(reader: CellReader, row: SourceRow, format: CsvFormat, names: string[], why: string) {
  return names.map((n) => {
    const column = shapeColumn(n, format);
    reader.requireColumn(row, column, why);
    return reader.dimension(row, column);
  });
}

function datatypeSize(reader: CellReader, row: SourceRow, column: string): number {
  return getDatatypeSize(reader.requiredText(row, column, "to size a DRAM tensor of a matmul"));
}

/** `analyze_matmul` without the duration: what the rates are computed from. */
export function matmulModel(
  reader: CellReader,
  row: SourceRow,
  opCodeRaw: string,
  format: CsvFormat,
  spec: ArchitectureSpec,
  activeExperts: number | null,
): MatmulModel {
  const in0Mem = reader.requiredText(row, "INPUT_0_MEMORY", MATMUL_WHY);
  const in1Mem = reader.requiredText(row, "INPUT_1_MEMORY", MATMUL_WHY);
  let cores = coreCountFromValue(reader.value(row, "CORE COUNT"));
  reader.requireColumn(row, "MATH FIDELITY", MATMUL_WHY);
  const fidelity = reader.value(row, "MATH FIDELITY")!;
  const fidelityText = reader.text(row, "MATH FIDELITY")!;
  const attributes = reader.textOrNull(row, "ATTRIBUTES") ?? "";
  const dramSharded = attributes.includes("MatmulMultiCoreReuseMultiCastDRAMShardedProgramConfig");
  const sparse = opCodeRaw.includes("SparseMatmul");
  if (dramSharded) cores = spec.dram_sharded_matmul_cores;
  const peak = peakFlops(spec, fidelityText, cores);
  const [, , out0Mem] = memoryCells(reader, row, MATMUL_WHY);
  const d = dims(reader, row, format, [...SHAPE_COLUMNS], MATMUL_WHY);
  const base: MatmulModel = {
    size: "unknown shape",
    mathFidelity: fidelity,
    mathFidelityText: fidelityText,
    dramSharded,
    cores,
    sparse,
    sparseMissing: false,
    sparseSource: null,
    shaped: false,
    bytes: null,
    flopCount: null,
    peak,
  };
  if (d.some((x) => x === null)) return base;
  const [i0w, i0z, i0y, i0x, i1w, i1z, i1y, i1x, o0w, o0z, o0y, o0x] = d as number[];
  const [m, k, n] = [i0y, i0x, i1x];
  const w = Math.max(i0w, i1w);
  const z = Math.max(i0z, i1z);
  let bytes: number | null = 0;
  let flops: number | null;
  let size: string;
  if (sparse) {
    const info = sparseBatchInfo(reader, row, format, attributes, activeExperts);
    base.sparseSource = info.source;
    const dense = info.dense.toString();
    if (info.active === null) {
      base.sparseMissing = true;
      bytes = null;
      flops = null;
      size = `active=?/${dense} x ${m} x ${k} x ${n}`;
    } else {
      const active = Number(info.active);
      if (in0Mem.includes("DRAM")) {
        bytes += exactProductToFloat([m, k]) * datatypeSize(reader, row, "INPUT_0_DATATYPE") *
          active;
      }
      if (in1Mem.includes("DRAM")) {
        bytes += exactProductToFloat([k, n]) * datatypeSize(reader, row, "INPUT_1_DATATYPE") *
          active;
      }
      if (out0Mem.includes("DRAM")) {
        bytes += exactProductToFloat([m, n]) * datatypeSize(reader, row, "OUTPUT_0_DATATYPE") *
          active;
      }
      flops = exactBig([m, k, n], info.active * 2n);
      size = `active=${info.active}/${dense} x ${m} x ${k} x ${n}`;
    }
  } else {
    if (in0Mem.includes("DRAM")) {
      bytes += exactProductToFloat([i0w, i0y, i0z, i0x]) *
        datatypeSize(reader, row, "INPUT_0_DATATYPE");
    }
    if (in1Mem.includes("DRAM")) {
      bytes += exactProductToFloat([i1w, i1y, i1z, i1x]) *
        datatypeSize(reader, row, "INPUT_1_DATATYPE");
    }
    if (out0Mem.includes("DRAM")) {
      bytes += exactProductToFloat([o0w, o0y, o0z, o0x]) *
        datatypeSize(reader, row, "OUTPUT_0_DATATYPE");
    }
    flops = exactProductToFloat([m, k, n, w, z, 2]);
    const batch = BigInt(w) * BigInt(z);
    size = batch > 1n ? `b={${batch}} x ${m} x ${k} x ${n}` : `${m} x ${k} x ${n}`;
  }
  return { ...base, size, shaped: true, bytes, flopCount: flops };
}

/** A matmul's rates over `durationNs` (null: no valid duration), as `analyze_matmul` has them. */
export function matmulRates(
  model: MatmulModel,
  durationNs: number | null,
  spec: ArchitectureSpec,
): MatmulRates {
  const durationS = durationNs !== null && durationNs > 0 ? durationNs * 1e-9 : null;
  if (!model.shaped || durationS === null) {
    return { dramGbS: null, dramPercent: null, flops: null, flopsPercent: null, dramBytes: null };
  }
  const bytes = model.bytes;
  // A duration so small that it is 0 s (a subnormal) gives no rate, as in the tool.
  const flops = durationS && model.flopCount !== null ? model.flopCount / durationS : null;
  const dram = durationS && bytes !== null && bytes > 0 ? bytes / durationS / 1e9 : null;
  return {
    dramGbS: dram,
    dramPercent: dram !== null ? (dram / spec.dram_bandwidth_gb_s) * 100 : null,
    flops,
    flopsPercent: flops !== null && model.peak ? (flops / model.peak) * 100 : null,
    dramBytes: bytes,
  };
}

function exactBig(factors: number[], extra: bigint): number {
  let p = extra;
  for (const f of factors) p *= BigInt(f);
  return Number(p);
}

function sparseBatchInfo(
  reader: CellReader,
  row: SourceRow,
  format: CsvFormat,
  attributes: string,
  activeExperts: number | null,
): { active: bigint | null; dense: bigint; source: string } {
  const batch = (prefix: string) => {
    const [bw, bz] = dims(reader, row, format, [`${prefix}_W`, `${prefix}_Z`], MATMUL_WHY);
    return BigInt(bw!) * BigInt(bz!);
  };
  const in0 = batch("INPUT_0");
  const in1 = batch("INPUT_1");
  const aSparse = boolAttribute(attributes, "is_input_a_sparse", false);
  const bSparse = boolAttribute(attributes, "is_input_b_sparse", true);
  let groups: bigint;
  let dense: bigint;
  if (aSparse && bSparse) {
    groups = 1n;
    dense = in1;
  } else if (aSparse) {
    groups = in1 ? (in0 / in1 > 1n ? in0 / in1 : 1n) : in0;
    dense = groups * in1;
  } else {
    groups = in0;
    dense = bSparse ? groups * in1 : (in0 > in1 ? in0 : in1);
  }
  const nnz = optionalIntAttribute(attributes, "nnz");
  if (nnz !== null) return { active: nnz, dense, source: "csv_nnz" };
  if (activeExperts === null) return { active: null, dense, source: "missing" };
  return { active: BigInt(activeExperts) * groups, dense, source: "active_experts" };
}

/** `get_conv_window_hw`: the kernel window from ATTRIBUTES, or null. */
export function convWindow(attributes: string): [number, number] | null {
  const parts = attributes.split("window_hw");
  if (parts.length < 2) return null;
  const window = parts[1].split("; ")[0].slice(2, -1).split(";");
  if (window.length < 2) return null;
  const h = tensorDimFromValue(window[0]);
  const w = tensorDimFromValue(window[1]);
  return h === null || w === null ? null : [h, w];
}

function intAfter(attributes: string, key: string): string {
  const parts = attributes.split(key);
  if (parts.length < 2) return "x";
  const v = parsePythonInt(parts[1].slice(1).split(";")[0]);
  return v === undefined ? "x" : v.toString();
}

function flagAfter(attributes: string, key: string): boolean | "x" {
  const parts = attributes.split(key);
  return parts.length < 2 ? "x" : parts[1].split("'")[0] === "true";
}

/** What the conv model derives from a row's cells other than its device time. */
export interface ConvModel {
  /** FLOPs it does, or null when its shape or window is unknown. */
  flopCount: number | null;
  /** The peak FLOP/s of its cores at its fidelity, or null. */
  peak: number | null;
  size: string;
  config: string;
  mathFidelity: CellValue;
  mathFidelityText: string;
}

/**
 * `analyze_conv` without the duration: FLOPs against the op's own core count, and the
 * `[ABH=…]` config text.
 */
export function convModel(
  reader: CellReader,
  row: SourceRow,
  format: CsvFormat,
  spec: ArchitectureSpec,
): ConvModel {
  const cores = coreCountFromValue(reader.value(row, "CORE COUNT"));
  reader.requireColumn(row, "MATH FIDELITY", CONV_WHY);
  const fidelity = reader.value(row, "MATH FIDELITY")!;
  const fidelityText = reader.text(row, "MATH FIDELITY")!;
  const attributes = reader.textOrNull(row, "ATTRIBUTES") ?? "";
  const peak = peakFlops(spec, fidelityText, cores);
  const [nhw, chIn, chOut] = dims(
    reader,
    row,
    format,
    ["OUTPUT_0_Y", "INPUT_0_X", "INPUT_1_X"],
    CONV_WHY,
  );
  const window = convWindow(attributes);
  let flopCount: number | null = null;
  let size = "unknown shape";
  if (nhw !== null && chIn !== null && chOut !== null && window !== null) {
    const k = BigInt(chIn) * BigInt(window[0]) * BigInt(window[1]);
    flopCount = Number(BigInt(nhw) * k * BigInt(chOut) * 2n);
    size = `${nhw} x ${k} x ${chOut}`;
  }
  memoryCells(reader, row, CONV_WHY);
  const actBlock = intAfter(attributes, "act_block_h_ntiles");
  const doubleBuffer = flagAfter(attributes, "enable_act_double_buffer': '");
  const splitReader = flagAfter(attributes, "enable_split_reader': '");
  const perCore = intAfter(attributes, "per_core_out_matrix_height_ntile");
  const config = `[ABH=${perCore}|${actBlock}${doubleBuffer ? " ADB" : ""}${
    splitReader ? " SR" : ""
  }]`;
  return { flopCount, peak, size, config, mathFidelity: fidelity, mathFidelityText: fidelityText };
}

/** A conv's FLOP rate over `durationNs` (null: no valid duration) and its share of the peak. */
export function convRates(
  model: ConvModel,
  durationNs: number | null,
): { flops: number | null; flopsPercent: number | null } {
  const durationS = durationNs !== null && durationNs > 0 ? durationNs * 1e-9 : null;
  const flops = durationS && model.flopCount !== null ? model.flopCount / durationS : null;
  return { flops, flopsPercent: flops !== null && model.peak ? (flops / model.peak) * 100 : null };
}

function joinedPieces(attributes: string, key: string, count: number): string {
  const parts = attributes.split(key);
  return parts.length < 2 ? "x" : parts[1].split(";").slice(0, count).join(",");
}

/** `analyze_halo`: `w=… s=… p=… d=… | <layout>` from ATTRIBUTES (`x` for what is missing). */
export function haloConfig(attributes: string): string {
  const window = joinedPieces(attributes, "window_hw=", 2);
  const stride = joinedPieces(attributes, "stride_hw=", 2);
  const padding = joinedPieces(attributes, "padding=", 4);
  const dilation = joinedPieces(attributes, "dilation_hw=", 2);
  const layoutParts = attributes.split("memory_layout=");
  let layout = "x";
  if (layoutParts.length >= 2) {
    const after = layoutParts[1].split(";")[0].split("::");
    if (after.length >= 2) layout = after[1];
  }
  return `w=${window} s=${stride} p=${padding} d=${dilation} | ${layout}`;
}
