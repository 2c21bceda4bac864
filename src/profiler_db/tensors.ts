/**
 * Tensors as the profiler database records them, and how operations use them: an operation's
 * inputs and outputs in index order, and a tensor's producers (operations listing it as an
 * output) and consumers (listing it as an input). A tensor's size is a whole-tensor byte count
 * only where the report carries `tensors.size`; elsewhere — the common case — it is the
 * per-bank figure of the buffer at the tensor's address, and labelled so.
 *
 * @module
 */
import { type ProfilerDb, rows } from "./connection.ts";
import { andRank, type RankScope } from "./host_rank.ts";
import { bufferTypeName } from "./buffer_types.ts";
import { type MemoryConfig, parseMemoryConfig } from "./memory_config.ts";
import { type Pause, rowsFoundInSteps } from "./steps.ts";

/** At most this many tensors are listed per side. */
export const MAX_TENSORS = 100;

/** A tensor row, with only the columns the report has. */
type TensorRow = Record<string, unknown> & { tensor_id: number };

/** What an answer says about a tensor. */
export interface TensorView {
  shape: string | null;
  dtype: string | null;
  layout: string | null;
  memory_config: MemoryConfig | null;
  buffer_type: string | null;
  device_id: number | null;
  address: number | null;
  size: number | null;
}

/** The unit of every tensor size in an answer: whole bytes, or the per-bank substitute. */
export function tensorSizeUnit(pdb: ProfilerDb): "bytes" | "bytes_per_bank" {
  return pdb.schema.hasColumn("tensors", "size") ? "bytes" : "bytes_per_bank";
}

/** The tensors with these ids at the rank; only those ids are read. */
export function tensorsByIds(
  pdb: ProfilerDb,
  scope: RankScope,
  ids: readonly number[],
): Map<number, TensorRow> {
  const out = new Map<number, TensorRow>();
  const wanted = [...new Set(ids.filter(Number.isInteger))];
  for (let i = 0; i < wanted.length; i += 500) {
    const chunk = wanted.slice(i, i + 500);
    for (
      const r of rows<TensorRow>(
        pdb,
        `SELECT * FROM tensors WHERE tensor_id IN (${chunk.join(", ")})${
          andRank(pdb, scope, "tensors")
        } ORDER BY rowid`,
      )
    ) {
      const id = Number(r.tensor_id);
      if (!out.has(id)) out.set(id, r);
    }
  }
  return out;
}

/** `(device_id, address)` of a tensor, the key its buffer is found by. */
export function bufferKey(device: unknown, address: unknown): string | null {
  if (address === null || address === undefined || device === null || device === undefined) {
    return null;
  }
  return `${Number(device)}@${Number(address)}`;
}

/**
 * What an answer says about a tensor row. The stored buffer type is trusted only when the
 * tensor has an address (tt-metal's importer writes 0 — DRAM — for tensors it knows no type
 * for); otherwise the memory config's declared type is used. `perBankSize` finds the per-bank
 * figure of the tensor's buffer when the report has no size column.
 */
export function describeTensor(
  pdb: ProfilerDb,
  t: TensorRow,
  perBankSize: (key: string) => number | null,
): TensorView {
  const config = parseMemoryConfig(t.memory_config);
  const address = num(t.address);
  const device = num(t.device_id);
  const key = bufferKey(device, address);
  const size = pdb.schema.hasColumn("tensors", "size")
    ? num(t.size)
    : key === null
    ? null
    : perBankSize(key);
  return {
    shape: str(t.shape),
    dtype: str(t.dtype),
    layout: str(t.layout),
    memory_config: config,
    buffer_type: address !== null ? bufferTypeName(t.buffer_type) : config?.buffer_type ?? null,
    device_id: device,
    address,
    size,
  };
}

/** An operation's tensors on one side, in index order: the first 100 and the count. */
export async function operationTensors(
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
  side: "input" | "output",
  pause: Pause,
): Promise<{ count: number; listed: { index: number | null; tensor_id: number }[] }> {
  const table = `${side}_tensors`;
  const index = `${side}_index`;
  const where = `operation_id = ?${andRank(pdb, scope, table)}`;
  // Found in rowid steps (the table has a row per tensor use: 10^6 and more), then ordered.
  const found = await rowsFoundInSteps<{ idx: unknown; tensor_id: unknown }>(
    pdb,
    table,
    "",
    where,
    [id],
    (restrict) =>
      `SELECT ${index} AS idx, tensor_id FROM ${table} WHERE ${where}${restrict} ` +
      `ORDER BY ${index}, rowid`,
    pause,
  );
  return {
    count: found.length,
    listed: found.slice(0, MAX_TENSORS).map((r) => ({
      index: num(r.idx),
      tensor_id: Number(r.tensor_id),
    })),
  };
}

/** The operations listing a tensor on one side, ascending and distinct. */
export function operationsUsing(
  pdb: ProfilerDb,
  scope: RankScope,
  tensorId: number,
  side: "input" | "output",
): number[] {
  const table = `${side}_tensors`;
  return rows<{ operation_id: unknown }>(
    pdb,
    `SELECT DISTINCT operation_id FROM ${table} WHERE tensor_id = ?${
      andRank(pdb, scope, table)
    } ORDER BY operation_id`,
    tensorId,
  ).map((r) => Number(r.operation_id));
}

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
