/**
 * What l1_peak's replay reads besides the captured graphs — each address's last
 * real consumer (the stale split), each operation's L1 snapshot from the buffers table, and
 * the operations in id order. The last uses' query may run on the graphs' worker
 * (`graph_rows.ts`), which hands its columns back; this thread reads it otherwise.
 *
 * @module
 */
import { byColumn, columnsOf, type ProfilerDb, rows } from "../connection.ts";
import { andRank, type RankScope, unattributable } from "../host_rank.ts";
import { bufferTypeName } from "../buffer_types.ts";
import { scanOperations } from "../buffer_scan.ts";
import type { Progress } from "../../kit/progress.ts";

/** Each address's last real consumer; `ambiguous` addresses left out; why none, or null. */
export interface LastUses {
  lastUse: Map<number, number>;
  ambiguous: number;
  why: string | null;
}

/** The columns the last uses' query gives. */
export const LAST_USE_COLUMNS = ["address", "type", "last"] as const;

/**
 * The query giving every L1 tensor an operation takes or gives, with its last real consumer
 * (not a deallocate), or why the last uses cannot be read at this scope.
 */
export function lastUsesQuery(
  pdb: ProfilerDb,
  scope: RankScope,
): { sql: string } | { why: string } {
  const unmet = pdb.schema.unmet({
    tensors: ["tensor_id", "address", "buffer_type"],
    input_tensors: ["operation_id", "tensor_id"],
    output_tensors: ["operation_id", "tensor_id"],
  });
  if (unmet !== null) return { why: unmet };
  const guard = unattributable(pdb, scope, ["tensors", "input_tensors", "output_tensors"]);
  if (guard !== null) return { why: guard };
  const r = (table: string, alias: string) => andRank(pdb, scope, table, alias);
  return {
    sql: "WITH used AS (" +
      `SELECT tensor_id FROM input_tensors i WHERE 1 = 1${r("input_tensors", "i")} UNION ` +
      `SELECT tensor_id FROM output_tensors o WHERE 1 = 1${r("output_tensors", "o")}), ` +
      "consumed AS (SELECT i.tensor_id, MAX(i.operation_id) AS last FROM input_tensors i " +
      `JOIN operations p ON p.operation_id = i.operation_id${r("operations", "p")} ` +
      `WHERE lower(p.name) NOT IN ('ttnn.deallocate', 'ttnn::deallocate')${
        r("input_tensors", "i")
      } GROUP BY i.tensor_id) ` +
      "SELECT t.address AS address, t.buffer_type AS type, c.last AS last FROM tensors t " +
      "JOIN used u ON u.tensor_id = t.tensor_id " +
      "LEFT JOIN consumed c ON c.tensor_id = t.tensor_id " +
      `WHERE t.address IS NOT NULL${r("tensors", "t")}`,
  };
}

/**
 * Address → the last operation that really consumed the tensor there (not a deallocate), from
 * every L1 tensor an operation takes or gives — the query's columns as `columns` (from the
 * worker), or read here: as JSON columns, or as rows where JSON cannot carry them. An address
 * whose tensors disagree on it is left out and counted: stale is then a floor.
 */
export function lastUsesOf(
  pdb: ProfilerDb,
  query: { sql: string } | { why: string },
  columns: unknown[][] | null = null,
): LastUses {
  if ("why" in query) return { lastUse: new Map(), ambiguous: 0, why: query.why };
  const [addresses, types, lasts] = columns ?? columnsOf(pdb.db, query.sql, LAST_USE_COLUMNS) ??
    byColumn(rows<Record<string, unknown>>(pdb, query.sql), LAST_USE_COLUMNS);
  const values = new Map<number, Set<number>>();
  const names = new Map<unknown, string | null>();
  for (let i = 0; i < addresses.length; i++) {
    let type = names.get(types[i]);
    if (type === undefined) names.set(types[i], type = bufferTypeName(types[i]));
    if (type !== "L1" && type !== "L1_SMALL") continue;
    const address = Number(addresses[i]);
    if (!Number.isFinite(address) || lasts[i] === null) continue;
    let set = values.get(address);
    if (!set) values.set(address, set = new Set());
    set.add(Number(lasts[i]));
  }
  const lastUse = new Map<number, number>();
  let ambiguous = 0;
  for (const [address, set] of values) {
    if (set.size === 1) lastUse.set(address, [...set][0]);
    else ambiguous++;
  }
  return { lastUse, ambiguous, why: null };
}

/** The operations' distinct ids at the scope's rank, in order, as `Number` reads them. */
export function operationIds(pdb: ProfilerDb, scope: RankScope): number[] {
  const distinct = "SELECT DISTINCT operation_id AS id FROM operations WHERE operation_id IS " +
    `NOT NULL${andRank(pdb, scope, "operations")}`;
  return (columnsOf(pdb.db, distinct, ["id"], "id")?.[0] ??
    rows<{ id: unknown }>(pdb, `${distinct} ORDER BY operation_id`).map((r) => r.id)).map(Number);
}

/**
 * Each operation's L1 and L1_SMALL buffers (address, bytes per bank, repeated); an operation
 * with buffers rows of other types only has an empty list, one with none at all no entry.
 */
export function snapshotsOf(
  pdb: ProfilerDb,
  scope: RankScope,
  progress: Progress,
): Promise<{ snapshots: Map<number, number[]>; devices: number[] }> {
  return scanOperations(
    pdb,
    scope,
    () => {
      const snapshots = new Map<number, number[]>();
      const devices = new Set<number>();
      return {
        visit(b) {
          const flat: number[] = [];
          let device = NaN;
          for (let i = 0; i < b.l1.length; i += 3) {
            if (b.l1[i] !== device) devices.add(device = b.l1[i]);
            flat.push(b.l1[i + 1], b.l1[i + 2]);
          }
          snapshots.set(b.operation_id, flat);
        },
        finish: () => ({ snapshots, devices: [...devices].sort((a, b) => a - b) }),
      };
    },
    undefined,
    progress,
  );
}
