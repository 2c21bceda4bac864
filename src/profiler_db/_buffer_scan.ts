/**
 * One pass over the buffers table, handing each operation's rows to a visitor once: its bytes
 * per bank summed per buffer type and device, and its live L1 buffers. The table runs past a
 * million rows on an ordinary capture and `node:sqlite` hands rows to JavaScript at about a
 * microsecond each, so the columns come back as JSON arrays built by SQLite (one string per
 * column, parsed natively), a bounded range of rowids at a time. Writers insert each
 * operation's snapshot together; when a report does not, the pass notices an operation
 * coming back and starts again with SQLite ordering the rows by operation.
 *
 * @module
 */
import { type ProfilerDb, row } from "./connection.ts";
import { andRank, type RankScope } from "./rank.ts";
import { bufferTypeName } from "./buffer_types.ts";

/** Rowids read per query: bounds the JSON text held at once (about 40 MB at most). */
const CHUNK = 1 << 20;

/** One operation's buffers, as the visitor sees them (reused between calls: copy to keep). */
export interface OperationBuffers {
  operation_id: number;
  /** Bytes per bank per (type, device): `types[i]` on `devices[i]` (-1: none) holds `sums[i]`. */
  types: string[];
  devices: number[];
  sums: number[];
  /** Live L1 and L1_SMALL buffers: device, address, bytes per bank, repeated. */
  l1: number[];
}

class NotGrouped extends Error {}

/** What consumes a scan: each operation once, then the result. */
export interface BufferVisitor<T> {
  visit(buffers: OperationBuffers): void;
  finish(): T;
}

/**
 * Runs a fresh visitor from `start` over every operation with buffers rows at the rank and
 * returns its result (a scan that has to start again starts a fresh visitor).
 */
export function scanOperations<T>(
  pdb: ProfilerDb,
  scope: RankScope,
  start: () => BufferVisitor<T>,
): T {
  let visitor = start();
  try {
    pass(pdb, scope, (b) => visitor.visit(b), false);
  } catch (e) {
    if (!(e instanceof NotGrouped)) throw e;
    visitor = start();
    pass(pdb, scope, (b) => visitor.visit(b), true);
  }
  return visitor.finish();
}

function pass(
  pdb: ProfilerDb,
  scope: RankScope,
  visit: (buffers: OperationBuffers) => void,
  ordered: boolean,
): void {
  const rank = andRank(pdb, scope, "buffers");
  const names = new Map<unknown, string>();
  const nameOf = (stored: unknown) => {
    let name = names.get(stored);
    if (name === undefined) names.set(stored, name = bufferTypeName(stored) ?? "unknown");
    return name;
  };
  const byEnum = [0, 1, 2, 3, 4].map(nameOf);
  const seen = new Set<number>();
  const current: OperationBuffers = {
    operation_id: NaN,
    types: [],
    devices: [],
    sums: [],
    l1: [],
  };
  const flush = () => {
    if (Number.isNaN(current.operation_id)) return;
    visit(current);
    current.types.length = current.devices.length = current.sums.length = 0;
    current.l1.length = 0;
  };
  const columns = (order: string) =>
    `SELECT json_group_array(operation_id${order}) AS op, ` +
    `json_group_array(buffer_type${order}) AS type, ` +
    `json_group_array(device_id${order}) AS device, ` +
    `json_group_array(address${order}) AS address, ` +
    `json_group_array(max_size_per_bank${order}) AS size FROM buffers`;
  const chunks: Record<string, string | null>[] = [];
  if (ordered) {
    const all = row<Record<string, string | null>>(
      pdb,
      `${columns(" ORDER BY operation_id, rowid")} WHERE operation_id IS NOT NULL${rank}`,
    );
    if (all) chunks.push(all);
  }
  const bounds = ordered ? undefined : row<{ lo: number | null; hi: number | null }>(
    pdb,
    "SELECT MIN(rowid) AS lo, MAX(rowid) AS hi FROM buffers",
  );
  const lo = Number(bounds?.lo ?? 0);
  const hi = bounds?.hi === null || bounds?.hi === undefined ? lo - 1 : Number(bounds.hi);
  for (let from = lo; ordered ? chunks.length > 0 : from <= hi; from += CHUNK) {
    const cols = ordered ? chunks.pop()! : row<Record<string, string | null>>(
      pdb,
      `${columns("")} WHERE rowid >= ${from} AND rowid < ${
        from + CHUNK
      } AND operation_id IS NOT NULL${rank}`,
    );
    if (!cols) continue;
    const op = JSON.parse(cols.op ?? "[]") as number[];
    const type = JSON.parse(cols.type ?? "[]") as unknown[];
    const device = JSON.parse(cols.device ?? "[]") as (number | null)[];
    const address = JSON.parse(cols.address ?? "[]") as (number | null)[];
    const size = JSON.parse(cols.size ?? "[]") as (number | null)[];
    for (let i = 0; i < op.length; i++) {
      const id = typeof op[i] === "number" ? op[i] : Number(op[i]);
      if (id !== current.operation_id) {
        if (seen.has(id)) throw new NotGrouped();
        flush();
        seen.add(id);
        current.operation_id = id;
      }
      const stored = type[i];
      const name = typeof stored === "number" && stored >= 0 && stored <= 4 && stored % 1 === 0
        ? byEnum[stored]
        : nameOf(stored);
      const d = typeof device[i] === "number" ? device[i] as number : -1;
      const bytes = typeof size[i] === "number" ? size[i] as number : 0;
      const t = current.types;
      let k = 0;
      while (k < t.length && (t[k] !== name || current.devices[k] !== d)) k++;
      if (k === t.length) {
        t.push(name);
        current.devices.push(d);
        current.sums.push(bytes);
      } else current.sums[k] += bytes;
      if (
        (name === "L1" || name === "L1_SMALL") && d >= 0 && address[i] !== null && size[i] !== null
      ) {
        current.l1.push(d, Number(address[i]), bytes);
      }
    }
  }
  flush();
}
