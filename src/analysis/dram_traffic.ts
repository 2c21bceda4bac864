/**
 * The DRAM traffic of one performance row, from its tensors' shapes, dtypes, layouts and
 * memory: every input and output tensor that lives in DRAM is read or written once, tile-exact
 * for tiled layouts.
 *
 * Tile sizes (32 × 32 elements; tt-metal `tt_metal/api/tt-metalium/constants.hpp`:
 * TILE_HW = 32·32, BFLOAT8_B_TILE_HW = TILE_HW + 64 — one byte per datum plus a 4 × 16 B
 * shared-exponent section — and BFLOAT4_B_TILE_HW = TILE_HW / 2 + 64): BFLOAT16 2048 B,
 * FLOAT32 4096 B, BFLOAT8_B 1088 B, BFLOAT4_B 576 B; the integer types at their element size.
 *
 * @module
 */
import { type CsvFormat, type PerfRow, shapeColumn } from "../perf_report/mod.ts";
import type { RowCells } from "./include_groups.ts";

/** Bytes per element of each dtype tt-metal writes (block floats: their tile average). */
const ELEMENT_BYTES: Record<string, number> = {
  FLOAT32: 4,
  BFLOAT16: 2,
  FLOAT16: 2,
  UINT32: 4,
  INT32: 4,
  UINT16: 2,
  UINT8: 1,
  INT8: 1,
};

/** Bytes of one 32 × 32 tile of each dtype. */
export const TILE_BYTES: Record<string, number> = {
  FLOAT32: 4096,
  BFLOAT16: 2048,
  FLOAT16: 2048,
  BFLOAT8_B: 1024 + 64,
  BFLOAT4_B: 512 + 64,
  UINT32: 4096,
  INT32: 4096,
  UINT16: 2048,
  UINT8: 1024,
  INT8: 1024,
};

/** One tensor of a row as the CSV describes it. */
export interface TensorTraffic {
  /** `in0`, `out0` … */
  tensor: string;
  shape: number[] | null;
  dtype: string | null;
  layout: string | null;
  memory: string | null;
  /** Bytes moved to or from DRAM; 0 for a tensor outside DRAM; null when unknown. */
  dram_bytes: number | null;
}

/** The tensor slots (`INPUT_0`, `OUTPUT_0` …) a CSV header describes, in order. */
export function tensorSlots(header: readonly string[]): string[] {
  const slots: string[] = [];
  for (const h of header) {
    const m = /^((?:INPUT|OUTPUT)_\d+)_MEMORY$/.exec(h);
    if (m) slots.push(m[1]);
  }
  // Inputs before outputs, each in code-unit order (localeCompare would start ICU: ~10 ms).
  return slots.sort((a, b) =>
    a.startsWith("IN") === b.startsWith("IN")
      ? (a < b ? -1 : a > b ? 1 : 0)
      : a.startsWith("IN")
      ? -1
      : 1
  );
}

/** The physical (padded) number of a shape cell: `64[48]` → 64. */
function physical(cell: string | undefined): number | null {
  if (cell === undefined || cell === "") return null;
  const open = cell.indexOf("[");
  const n = Number(open === -1 ? cell : cell.slice(0, open));
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The columns that describe one tensor slot, named once for a report. */
export interface SlotColumns {
  /** `in0`, `out0` … */
  tensor: string;
  memory: string;
  /** W, Z, Y and X, named as the report's format names them. */
  dims: readonly string[];
  dtype: string;
  layout: string;
}

/** The columns of each of `slots` in a report of `format`. */
export function slotColumns(slots: readonly string[], format: CsvFormat): SlotColumns[] {
  return slots.map((slot) => ({
    tensor: slot.replace("INPUT_", "in").replace("OUTPUT_", "out"),
    memory: `${slot}_MEMORY`,
    dims: ["W", "Z", "Y", "X"].map((d) => shapeColumn(`${slot}_${d}`, format)),
    dtype: `${slot}_DATATYPE`,
    layout: `${slot}_LAYOUT`,
  }));
}

/** The tensors of `row` and the DRAM bytes each moves. */
export function rowTraffic(
  row: PerfRow,
  cells: RowCells,
  slots: readonly SlotColumns[],
): TensorTraffic[] {
  const out: TensorTraffic[] = [];
  for (const slot of slots) {
    const memory = cells.cell(row, slot.memory) || null;
    if (memory === null) continue; // the op has no such tensor
    const dims = slot.dims.map((column) => physical(cells.cell(row, column)));
    const shape = dims.every((d) => d !== null) ? dims as number[] : null;
    const dtype = cells.cell(row, slot.dtype) || null;
    const layout = cells.cell(row, slot.layout) || null;
    out.push({
      tensor: slot.tensor,
      shape,
      dtype,
      layout,
      memory,
      dram_bytes: bytesOf(memory, shape, dtype, layout),
    });
  }
  return out;
}

function bytesOf(
  memory: string,
  shape: number[] | null,
  dtype: string | null,
  layout: string | null,
): number | null {
  if (!memory.includes("DRAM")) return 0;
  if (shape === null || dtype === null) return null;
  const [w, z, y, x] = shape;
  if (layout === "TILE") {
    const tile = TILE_BYTES[dtype];
    return tile === undefined ? null : w * z * Math.ceil(y / 32) * Math.ceil(x / 32) * tile;
  }
  const element = ELEMENT_BYTES[dtype];
  return element === undefined ? null : w * z * y * x * element;
}

/** `in0 [1,1,32,4096] BFLOAT16 TILE L1`: how a tensor is named in a shape group. */
export function describeTensor(t: TensorTraffic): string {
  const where = t.memory?.includes("DRAM")
    ? "DRAM"
    : t.memory?.includes("L1")
    ? "L1"
    : t.memory ?? "?";
  return `${t.tensor} [${t.shape?.join(",") ?? "?"}] ${t.dtype ?? "?"} ${t.layout ?? "?"} ${where}`;
}
