/**
 * The buffers table: for each operation, every buffer still allocated when it finished —
 * tensor allocations only (never a circular buffer, never a tensor allocated and freed inside
 * one operation) — with its size in bytes per bank of its own buffer type. Those bank counts
 * differ between types and between buffers, so figures of one type are never added to
 * another's, and on a multi-device report each device is summed apart.
 *
 * @module
 */
import { type ProfilerDb, rows } from "./connection.ts";
import { andRank, type RankScope, unattributable } from "./host_rank.ts";
import { bufferTypeName } from "./buffer_types.ts";
import { bufferKey } from "./tensors.ts";
import { type Pause, rowsInSteps } from "./steps.ts";

/** One row of the snapshot. */
export interface BufferRow {
  device_id: number | null;
  address: number | null;
  /** max_size_per_bank: bytes per bank. */
  size: number | null;
  type: string | null;
}

/** The columns the buffer tools read. */
export const BUFFER_COLUMNS = [
  "operation_id",
  "device_id",
  "address",
  "max_size_per_bank",
  "buffer_type",
] as const;

/** The buffers live after one operation, at the rank. */
export function snapshotAt(pdb: ProfilerDb, scope: RankScope, id: number): BufferRow[] {
  return rows<Record<string, unknown>>(pdb, snapshotSql(pdb, scope, ""), id).map(bufferRow);
}

/**
 * `snapshotAt` read in rowid steps, `pause` between two (the buffers table runs to millions of
 * rows; read whole, one operation's snapshot held the loop 235 ms on 3 million).
 */
export async function snapshotAtInSteps(
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
  pause: Pause,
): Promise<BufferRow[]> {
  const sql = (range: string) => snapshotSql(pdb, scope, range);
  return (await rowsInSteps<Record<string, unknown>>(pdb, "buffers", "", sql, [id], pause))
    .map(bufferRow);
}

function snapshotSql(pdb: ProfilerDb, scope: RankScope, range: string): string {
  return `SELECT device_id, address, max_size_per_bank, buffer_type FROM buffers ` +
    `WHERE operation_id = ?${andRank(pdb, scope, "buffers")}${range} ORDER BY rowid`;
}

function bufferRow(r: Record<string, unknown>): BufferRow {
  return {
    device_id: num(r.device_id),
    address: num(r.address),
    size: num(r.max_size_per_bank),
    type: bufferTypeName(r.buffer_type),
  };
}

/** One buffer type's allocation at an operation. */
export interface TypeAllocation {
  /** Buffers of the type, on every device. */
  buffers: number;
  /** Bytes per bank on the most loaded device (the sum of its buffers of this type). */
  size: number;
  /** That device. */
  device_id: number | null;
  /** Devices holding buffers of this type. */
  devices: number;
}

/**
 * A snapshot summed per buffer type, one device at a time, keyed by type name (sorted). A
 * type's size is its most loaded device's, since a per-bank figure of one device added to
 * another's is a per-bank figure of neither.
 *
 * @example
 * ```ts
 * import { allocationsByType } from "./buffers.ts";
 * const a = allocationsByType([
 *   { device_id: 0, address: 1, size: 100, type: "L1" },
 *   { device_id: 1, address: 1, size: 100, type: "L1" },
 *   { device_id: 1, address: 2, size: 50, type: "L1" },
 *   { device_id: 0, address: 3, size: 7, type: "DRAM" },
 * ]);
 * if (a.L1.size !== 150 || a.L1.device_id !== 1 || a.L1.buffers !== 3 || a.L1.devices !== 2) throw new Error();
 * if (a.DRAM.size !== 7 || Object.keys(a).join() !== "DRAM,L1") throw new Error();
 * ```
 */
export function allocationsByType(snapshot: readonly BufferRow[]): Record<string, TypeAllocation> {
  const perType = new Map<string, { buffers: number; byDevice: Map<number | null, number> }>();
  for (const b of snapshot) {
    const type = b.type ?? "unknown";
    let t = perType.get(type);
    if (!t) perType.set(type, t = { buffers: 0, byDevice: new Map() });
    t.buffers++;
    t.byDevice.set(b.device_id, (t.byDevice.get(b.device_id) ?? 0) + (b.size ?? 0));
  }
  const out: Record<string, TypeAllocation> = {};
  for (const type of [...perType.keys()].sort()) {
    const t = perType.get(type)!;
    let best: [number | null, number] = [null, -1];
    for (const [device, size] of [...t.byDevice].sort(byDevice)) {
      if (size > best[1]) best = [device, size];
    }
    out[type] = { buffers: t.buffers, size: best[1], device_id: best[0], devices: t.byDevice.size };
  }
  return out;
}

/** Looks up the per-bank size of the buffer at `(device, address)` in a snapshot. */
export function perBankSizes(snapshot: readonly BufferRow[]): (key: string) => number | null {
  const sizes = new Map<string, number>();
  for (const b of snapshot) {
    const key = bufferKey(b.device_id, b.address);
    if (key !== null && b.size !== null && !sizes.has(key)) sizes.set(key, b.size);
  }
  return (key) => sizes.get(key) ?? null;
}

function byDevice(a: [number | null, number], b: [number | null, number]): number {
  return (a[0] ?? -1) - (b[0] ?? -1);
}

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * The per-bank size lookup of the snapshot after operation `at`, for tensors in a report
 * without a size column — or no lookup, with the reason, when the buffers table cannot give
 * one (absent, lacking columns, or not attributable to the rank).
 */
export function perBankLookup(
  pdb: ProfilerDb,
  scope: RankScope,
  at: number | null,
): { lookup: (key: string) => number | null; why: string | null } {
  const none = () => null;
  const unmet = pdb.schema.unmet({ buffers: BUFFER_COLUMNS });
  if (unmet !== null) {
    return { lookup: none, why: `Tensor sizes are null: the report records none, and ${unmet}.` };
  }
  const unattributed = unattributable(pdb, scope, ["buffers"]);
  if (unattributed !== null) {
    return { lookup: none, why: `Tensor sizes are withheld: ${unattributed}.` };
  }
  return { lookup: at === null ? none : perBankSizes(snapshotAt(pdb, scope, at)), why: null };
}
