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
import { Refusal } from "../../kit/refusal.ts";
import { type Pause, stepsOf } from "../steps.ts";

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
  return tally(addresses, types, lasts);
}

/** The last uses from the query's columns: address, buffer type and last consumer. */
function tally(addresses: unknown[], types: unknown[], lasts: unknown[]): LastUses {
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

/** A value the stepped reads do not compare as SQLite would: the whole query is read instead. */
class NotStepped extends Error {}

/** A value read in steps: a number, null, or else NotStepped. */
function numberOrNull(v: unknown): number | null {
  if (v === null) return null;
  if (typeof v !== "number") throw new NotStepped();
  return v;
}

/**
 * `lastUsesOf` read on this thread in rowid steps (`../steps.ts`), `pause` between two, so
 * a large report holds the loop for no step longer than a few milliseconds (issue 30: the
 * whole query held it 2.75 s on 150,000 operations). The query's answer from three stepped
 * reads: the operations that consume (not a deallocate), each tensor's last input to one of
 * them, and the tensors with an address. Only a tensor with a last consumer counts, and every
 * such tensor is an input, so one the query's `used` names. Ids that are not numbers — which
 * SQLite may compare by affinity where JavaScript cannot — and any failure send the read to
 * the whole query, which gives its own answer or refusal.
 */
export async function lastUsesInSteps(
  pdb: ProfilerDb,
  scope: RankScope,
  query: { sql: string } | { why: string },
  pause: Pause,
): Promise<LastUses> {
  if ("why" in query) return lastUsesOf(pdb, query);
  const r = (table: string, alias: string) => andRank(pdb, scope, table, alias);
  try {
    const consuming = new Set<number>();
    const opSql = (range: string) =>
      "SELECT p.operation_id AS id FROM operations p WHERE lower(p.name) NOT IN " +
      `('ttnn.deallocate', 'ttnn::deallocate')${r("operations", "p")}${range}`;
    for await (const part of stepsOf<{ id: unknown }>(pdb, "operations", "p", opSql, [], pause)) {
      for (const o of part) {
        const id = numberOrNull(o.id);
        if (id !== null) consuming.add(id);
      }
    }
    const last = new Map<number, number>();
    const inputSql = (range: string) =>
      "SELECT i.tensor_id AS t, i.operation_id AS o FROM input_tensors i WHERE 1 = 1" +
      `${r("input_tensors", "i")}${range}`;
    for await (
      const part of stepsOf<{ t: unknown; o: unknown }>(
        pdb,
        "input_tensors",
        "i",
        inputSql,
        [],
        pause,
      )
    ) {
      for (const u of part) {
        const tensor = numberOrNull(u.t);
        const op = numberOrNull(u.o);
        if (tensor === null || op === null || !consuming.has(op)) continue;
        const seen = last.get(tensor);
        if (seen === undefined || op > seen) last.set(tensor, op);
      }
    }
    const addresses: unknown[] = [];
    const types: unknown[] = [];
    const lasts: unknown[] = [];
    const tensorSql = (range: string) =>
      "SELECT t.tensor_id AS id, t.address AS address, t.buffer_type AS type FROM tensors t " +
      `WHERE t.address IS NOT NULL${r("tensors", "t")}${range}`;
    for await (
      const part of stepsOf<{ id: unknown; address: unknown; type: unknown }>(
        pdb,
        "tensors",
        "t",
        tensorSql,
        [],
        pause,
      )
    ) {
      for (const t of part) {
        const id = numberOrNull(t.id);
        const consumer = id === null ? undefined : last.get(id);
        if (consumer === undefined) continue;
        addresses.push(t.address);
        types.push(t.type);
        lasts.push(consumer);
      }
    }
    return tally(addresses, types, lasts);
  } catch (e) {
    if (e instanceof NotStepped || e instanceof Refusal) return lastUsesOf(pdb, query);
    throw e;
  }
}

/**
 * `operationIds` read in rowid steps, `pause` between two: the ids in rowid order when they
 * are numbers that never decrease in it (as tt-metal writes them), else the whole query.
 */
export async function operationIdsInSteps(
  pdb: ProfilerDb,
  scope: RankScope,
  pause: Pause,
): Promise<number[]> {
  const sql = (range: string) =>
    "SELECT operation_id AS id FROM operations WHERE operation_id IS NOT NULL" +
    `${andRank(pdb, scope, "operations")}${range} ORDER BY rowid`;
  const ids: number[] = [];
  try {
    for await (const part of stepsOf<{ id: unknown }>(pdb, "operations", "", sql, [], pause)) {
      for (const o of part) {
        const id = numberOrNull(o.id);
        const prior = ids.length > 0 ? ids[ids.length - 1] : -Infinity;
        if (id === null || id < prior) throw new NotStepped();
        if (id !== prior) ids.push(id);
      }
    }
  } catch (e) {
    if (e instanceof NotStepped || e instanceof Refusal) return operationIds(pdb, scope);
    throw e;
  }
  return ids;
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
 * `pause` comes before each range of the scan.
 */
export function snapshotsOf(
  pdb: ProfilerDb,
  scope: RankScope,
  progress: Progress,
  pause?: Pause,
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
    pause,
  );
}
