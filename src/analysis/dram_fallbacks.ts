/**
 * Operations that likely fell back from L1 to DRAM. tt-metal records nothing when one does,
 * so it is inferred two ways: an operation whose memory config arguments all ask for L1 while
 * every output it allocated itself is in DRAM (`argument_mismatch`), and an operation within
 * three of a same-named one that failed to allocate L1 whose own outputs are all in DRAM
 * (`retry_after_failure`, which outranks a mismatch). An output at the address of a DRAM
 * input on the same device may be a view of it (a reshape), so it is not one the operation
 * allocated.
 *
 * @module
 */
import {
  andRank,
  bufferTypeName,
  memo,
  type Pause,
  pauseOn,
  type ProfilerDb,
  type RankScope,
  rows,
  rowsInSteps,
  stepsOf,
  unattributable,
} from "../profiler_db/mod.ts";
import { SharedWork } from "../kit/shared_work.ts";
import { errorsTableProblem, l1AllocationFailures } from "./run_errors.ts";

/** A retry counts when it runs within this many operations after the failure. */
export const RETRY_WINDOW = 3;

/**
 * The most operations judged between two pauses: a verdict costs up to some 50 µs, so 4,096
 * of them held the loop 200 ms (issue 30: a ping waited 573 ms during dram_fallbacks at load 6).
 */
export const JUDGED_PER_PAUSE = 256;

/** One operation that likely fell back to DRAM. */
export interface DramFallback {
  operation_id: number;
  operation_name: string | null;
  signal: "argument_mismatch" | "retry_after_failure";
  /** argument_mismatch: the first memory config's buffer type (L1 or L1_SMALL). */
  requested_buffer_type?: string;
  /** retry_after_failure: the operation that failed to allocate L1. */
  failed_operation_id?: number;
  failed_operation_name?: string | null;
  /** Outputs in DRAM that are not views of a DRAM input. */
  dram_output_count: number;
  output_count: number;
  summary: string;
}

/** Every fallback at the rank in id order, and why the retry signal was not checked, if not. */
export interface DramFallbacks {
  fallbacks: DramFallback[];
  operationCount: number;
  retryUnchecked: string | null;
}

interface TensorUse {
  operation_id: number;
  device_id: unknown;
  address: unknown;
  buffer_type: unknown;
  memory_config: unknown;
}

/**
 * The fallbacks at the rank, inferred on first use and kept on the connection: shared by the
 * calls that wait for it, read in steps that let the event loop in, and stopped (and
 * forgotten) once every call waiting for it is cancelled (`signal`).
 */
export function dramFallbacks(
  pdb: ProfilerDb,
  scope: RankScope,
  signal?: AbortSignal,
): Promise<DramFallbacks> {
  // A call cancelled already starts no work that nobody would wait for.
  signal?.throwIfAborted();
  const key = `dram-fallbacks-${scope.rank}`;
  const work = memo(pdb, key, (): SharedWork<DramFallbacks> => {
    const shared: SharedWork<DramFallbacks> = new SharedWork(
      (stop) => inferFallbacks(pdb, scope, pauseOn(stop)),
      () => {
        if (pdb.memo.get(key) === shared) pdb.memo.delete(key);
      },
    );
    return shared;
  });
  return work.join(signal);
}

/** What the inference reads: table → columns. */
export const DRAM_FALLBACK_NEEDS = {
  operations: ["operation_id", "name"],
  operation_arguments: ["operation_id", "name", "value"],
  input_tensors: ["operation_id", "tensor_id"],
  output_tensors: ["operation_id", "tensor_id"],
  tensors: ["tensor_id", "device_id", "address", "buffer_type"],
} as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
export const DRAM_FALLBACK_RANKED = [
  "operation_arguments",
  "input_tensors",
  "output_tensors",
  "tensors",
] as const;

/**
 * operation_detail's `dram_fallback`: the operation's fallback or null, with a caveat when
 * null is not a finding — the report lacks what the inference reads, or its rows cannot be
 * attributed to the rank (withheld) — or when only the argument signal was looked for. It reads
 * only the operation's own arguments and tensors and the three operations before it (where a
 * same-named failure it retries would be), so it agrees with {@link dramFallbacks} without
 * reading the whole report.
 */
export async function dramFallbackField(
  pdb: ProfilerDb,
  scope: RankScope,
  operationId: number,
  pause: Pause = pauseOn(),
): Promise<{ dram_fallback: DramFallback | null; caveat: string | null }> {
  const unmet = pdb.schema.unmet(DRAM_FALLBACK_NEEDS);
  if (unmet !== null) {
    return { dram_fallback: null, caveat: `dram_fallback is not inferred: ${unmet}.` };
  }
  const guard = unattributable(pdb, scope, DRAM_FALLBACK_RANKED);
  if (guard !== null) {
    return { dram_fallback: null, caveat: `dram_fallback is withheld: ${guard}.` };
  }
  const retryUnchecked = retryProblem(pdb, scope);
  return {
    dram_fallback: await fallbackOf(pdb, scope, operationId, retryUnchecked === null, pause),
    caveat: retryUnchecked === null
      ? null
      : `dram_fallback looks for an argument mismatch only: ${retryUnchecked}.`,
  };
}

interface Op {
  id: number;
  name: string | null;
}

interface OpRow {
  operation_id: unknown;
  name: unknown;
}

function toOp(o: OpRow): Op {
  return { id: Number(o.operation_id), name: o.name === null ? null : String(o.name) };
}

/** The verdicts' figures for an operation's outputs, given its outputs and inputs. */
function ownOutputs(outs: readonly TensorUse[], ins: readonly TensorUse[]) {
  // The outputs an operation allocated itself leave out any that may be a view of a DRAM
  // input (a DRAM output at that input's address on the same device). It fell back only when
  // there is at least one and every one is in DRAM.
  const views = new Set<string>();
  for (const t of ins) {
    if (typeOf(t) !== "DRAM" || t.address === null || t.device_id === null) continue;
    views.add(`${Number(t.device_id)}@${Number(t.address)}`);
  }
  const own = outs.filter((t) =>
    !(typeOf(t) === "DRAM" && t.address !== null &&
      views.has(`${Number(t.device_id)}@${Number(t.address)}`))
  );
  const dram = own.filter((t) => typeOf(t) === "DRAM").length;
  return {
    fellBack: dram > 0 && dram === own.length,
    figures: { dram_output_count: dram, output_count: outs.length },
  };
}

function mismatch(op: Op, asked: string, c: ReturnType<typeof ownOutputs>["figures"]) {
  return {
    operation_id: op.id,
    operation_name: op.name,
    signal: "argument_mismatch" as const,
    requested_buffer_type: asked,
    ...c,
    summary: `Asked for ${asked}; ${c.dram_output_count} of ${c.output_count} ` +
      `output${c.output_count === 1 ? " is" : "s are"} in DRAM.`,
  };
}

function retried(op: Op, failed: Op, c: ReturnType<typeof ownOutputs>["figures"]) {
  return {
    operation_id: op.id,
    operation_name: op.name,
    signal: "retry_after_failure" as const,
    failed_operation_id: failed.id,
    failed_operation_name: failed.name,
    ...c,
    summary: `Retries operation ${failed.id} (${failed.name}), which failed to allocate ` +
      `L1; ${c.dram_output_count} of ${c.output_count} output${
        c.output_count === 1 ? " is" : "s are"
      } in DRAM.`,
  };
}

/** The ids of operations whose attached error is an L1 allocation failure (memoised). */
function l1Failures(pdb: ProfilerDb, scope: RankScope): Set<number> {
  return memo(pdb, `l1-failures-${scope.rank}`, () => new Set(l1AllocationFailures(pdb, scope)));
}

/**
 * One operation's fallback, from its own rows and the three operations before it; its rows
 * of the large tables read in rowid steps, `pause` between two.
 */
async function fallbackOf(
  pdb: ProfilerDb,
  scope: RankScope,
  operationId: number,
  checkRetry: boolean,
  pause: Pause,
): Promise<DramFallback | null> {
  const rank = andRank(pdb, scope, "operations");
  const found = rows<{ operation_id: unknown; name: unknown }>(
    pdb,
    `SELECT operation_id, name FROM operations WHERE operation_id = ?${rank} LIMIT 1`,
    operationId,
  );
  if (found.length === 0) return null;
  const op = toOp(found[0]);
  const c = ownOutputs(
    await tensorUses(pdb, scope, "output", op.id, pause),
    await tensorUses(pdb, scope, "input", op.id, pause),
  );
  if (!c.fellBack) return null;
  if (checkRetry) {
    const failures = l1Failures(pdb, scope);
    const before = rows<{ operation_id: unknown; name: unknown }>(
      pdb,
      `SELECT operation_id, name FROM operations WHERE operation_id < ?${rank} ` +
        `ORDER BY operation_id DESC LIMIT ${RETRY_WINDOW}`,
      op.id,
    ).map(toOp).reverse();
    const near = [...before, op];
    // The nearest failure whose first same-named successor in its window is this operation.
    for (let i = before.length - 1; i >= 0; i--) {
      const failed = before[i];
      if (!failures.has(failed.id)) continue;
      const retry = near.slice(i + 1, i + 1 + RETRY_WINDOW).find((o) => o.name === failed.name);
      if (retry === op) return retried(op, failed, c.figures);
    }
  }
  const asked = (await l1Requests(pdb, scope, op.id, pause)).get(op.id);
  return asked === undefined || asked === null ? null : mismatch(op, asked, c.figures);
}

/**
 * The inference {@link dramFallbacks} shares, `pause` called between two steps of its reads
 * and every JUDGED_PER_PAUSE operations of its loops.
 */
export async function inferFallbacks(
  pdb: ProfilerDb,
  scope: RankScope,
  pause: Pause,
): Promise<DramFallbacks> {
  const ops = await operationsInOrder(pdb, scope, pause);
  const requests = await l1RequestsInSteps(pdb, scope, pause);
  const retryUnchecked = retryProblem(pdb, scope);
  const failures = retryUnchecked === null ? l1Failures(pdb, scope) : new Set<number>();
  // Only the operations a verdict can fall on are given their tensors: those asking for L1,
  // and the first same-named operation after each failure. Each loop over every operation
  // lets the event loop in every JUDGED_PER_PAUSE of them, and none builds a map or set of
  // every operation (growing one past 10^6 entries copies it in one piece).
  const at = new Map<number, number>();
  for (let i = 0; i < ops.length; i++) {
    if (failures.has(ops[i].id)) at.set(ops[i].id, i);
    if (i % JUDGED_PER_PAUSE === 0) await pause();
  }
  const retries: [Op, Op][] = [];
  for (const failedId of failures) {
    const i = at.get(failedId);
    if (i === undefined) continue;
    const failed = ops[i];
    const retry = ops.slice(i + 1, i + 1 + RETRY_WINDOW).find((o) => o.name === failed.name);
    if (retry !== undefined) retries.push([failed, retry]);
  }
  const retryIds = new Set(retries.map(([, retry]) => retry.id));
  const wanted = (id: number) => (requests.get(id) ?? null) !== null || retryIds.has(id);
  const outputs = await usesOf(pdb, scope, "output", wanted, pause);
  const inputs = await usesOf(pdb, scope, "input", wanted, pause);
  const counts = (id: number) => ownOutputs(outputs.get(id) ?? [], inputs.get(id) ?? []);
  const found = new Map<number, DramFallback>();
  for (let i = 0; i < ops.length; i++) {
    if (i % JUDGED_PER_PAUSE === 0) await pause();
    const op = ops[i];
    const asked = requests.get(op.id);
    if (asked === undefined || asked === null) continue;
    const { fellBack, figures } = counts(op.id);
    if (fellBack) found.set(op.id, mismatch(op, asked, figures));
  }
  for (const [failed, retry] of retries) {
    const { fellBack, figures } = counts(retry.id);
    if (fellBack) found.set(retry.id, retried(retry, failed, figures));
  }
  return {
    fallbacks: [...found.values()].sort((a, b) => a.operation_id - b.operation_id),
    operationCount: ops.length,
    retryUnchecked,
  };
}

/**
 * The rank's operations in id order, as `ORDER BY operation_id` gives them: read in rowid
 * steps, which is that order whenever the ids are numbers that never decrease in rowid order
 * (as tt-metal writes them); otherwise SQLite sorts them in one query.
 */
async function operationsInOrder(
  pdb: ProfilerDb,
  scope: RankScope,
  pause: Pause,
): Promise<Op[]> {
  const rank = andRank(pdb, scope, "operations");
  const sql = (range: string) =>
    `SELECT operation_id, name FROM operations WHERE 1 = 1${rank}${range} ORDER BY rowid`;
  const out: Op[] = [];
  let last = -Infinity;
  for await (const part of stepsOf<OpRow>(pdb, "operations", "", sql, [], pause)) {
    for (const o of part) {
      const id = o.operation_id;
      if (typeof id !== "number" || Number.isNaN(id) || id < last) {
        const sorted = rows<OpRow>(
          pdb,
          `SELECT operation_id, name FROM operations WHERE 1 = 1${rank} ORDER BY operation_id`,
        );
        return sorted.map(toOp);
      }
      last = id;
      out.push(toOp(o));
    }
  }
  return out;
}

/** Why retries after an L1 failure cannot be looked for, or null. */
function retryProblem(pdb: ProfilerDb, scope: RankScope): string | null {
  if (!pdb.schema.has("errors")) {
    return "the report has no errors table, so no L1 allocation failure is recorded to retry";
  }
  const problem = errorsTableProblem(pdb);
  if (problem !== null) return problem;
  return unattributable(pdb, scope, ["errors"]);
}

/**
 * Per operation, the buffer type its memory config arguments ask for when every one asks for
 * L1 or L1_SMALL (the first one's), null when any asks for something else or names no type;
 * operations with no memory config argument are absent. Arguments named like an
 * intermediate's config are not the operation's own output request, so are skipped.
 */
async function l1Requests(
  pdb: ProfilerDb,
  scope: RankScope,
  only: number,
  pause: Pause,
): Promise<Map<number, string | null>> {
  const sql = (range: string) => l1RequestsSql(pdb, scope, true, range);
  return requestsOf(
    await rowsInSteps<ArgumentRow>(pdb, "operation_arguments", "", sql, [only], pause),
  );
}

/** `l1Requests` of every operation, read in steps. */
async function l1RequestsInSteps(
  pdb: ProfilerDb,
  scope: RankScope,
  pause: Pause,
): Promise<Map<number, string | null>> {
  const sql = (range: string) => l1RequestsSql(pdb, scope, false, range);
  const out = new Map<number, string | null>();
  for await (const part of stepsOf<ArgumentRow>(pdb, "operation_arguments", "", sql, [], pause)) {
    requestsOf(part, out);
  }
  return out;
}

function l1RequestsSql(pdb: ProfilerDb, scope: RankScope, one: boolean, range: string): string {
  return "SELECT operation_id, name, CAST(value AS TEXT) AS value FROM operation_arguments WHERE " +
    `${one ? "operation_id = ? AND " : ""}` +
    `substr(ltrim(substr(value, 1, 64)), 1, 13) = 'MemoryConfig('${
      andRank(pdb, scope, "operation_arguments")
    }${range} ORDER BY rowid`;
}

interface ArgumentRow {
  operation_id: unknown;
  name: unknown;
  value: unknown;
}

/** Adds the requests of `found`, in row order, to `out`. */
function requestsOf(
  found: ArgumentRow[],
  out = new Map<number, string | null>(),
): Map<number, string | null> {
  for (const a of found) {
    if (typeof a.name === "string" && a.name.toLowerCase().includes("intermediate")) continue;
    const type = declaredBufferType(a.value);
    if (type === undefined) continue;
    const id = Number(a.operation_id);
    const l1 = type === "L1" || type === "L1_SMALL";
    if (!out.has(id)) out.set(id, l1 ? type : null);
    else if (!l1) out.set(id, null);
  }
  return out;
}

async function tensorUses(
  pdb: ProfilerDb,
  scope: RankScope,
  side: "input" | "output",
  only: number,
  pause: Pause,
): Promise<TensorUse[]> {
  const sql = (range: string) => tensorUsesSql(pdb, scope, side, true, range);
  const found = await rowsInSteps<TensorUse>(pdb, `${side}_tensors`, "u", sql, [only], pause);
  for (const t of found) t.operation_id = Number(t.operation_id);
  return found;
}

/** The tensor uses of the operations `wanted` keeps, by operation, read in steps. */
async function usesOf(
  pdb: ProfilerDb,
  scope: RankScope,
  side: "input" | "output",
  wanted: (operationId: number) => boolean,
  pause: Pause,
): Promise<Map<number, TensorUse[]>> {
  const out = new Map<number, TensorUse[]>();
  const sql = (range: string) => tensorUsesSql(pdb, scope, side, false, range);
  for await (const part of stepsOf<TensorUse>(pdb, `${side}_tensors`, "u", sql, [], pause)) {
    for (const t of part) {
      t.operation_id = Number(t.operation_id);
      if (!wanted(t.operation_id)) continue;
      const list = out.get(t.operation_id);
      if (list === undefined) out.set(t.operation_id, [t]);
      else list.push(t);
    }
  }
  return out;
}

function tensorUsesSql(
  pdb: ProfilerDb,
  scope: RankScope,
  side: "input" | "output",
  one: boolean,
  range: string,
): string {
  const table = `${side}_tensors`;
  // The memory config is read only where the stored type is not trusted (no address).
  const config = pdb.schema.hasColumn("tensors", "memory_config")
    ? "CASE WHEN t.address IS NULL THEN t.memory_config END"
    : "NULL";
  return `SELECT u.operation_id AS operation_id, t.device_id AS device_id, t.address AS address, ` +
    `t.buffer_type AS buffer_type, ${config} AS memory_config FROM ${table} u LEFT JOIN ` +
    `tensors t ON t.tensor_id = u.tensor_id${andRank(pdb, scope, "tensors", "t")} ` +
    `WHERE 1 = 1${one ? " AND u.operation_id = ?" : ""}${
      andRank(pdb, scope, table, "u")
    }${range} ORDER BY u.rowid`;
}

/**
 * A tensor's buffer type: the stored one when it has an address (tt-metal writes 0 — DRAM —
 * for a tensor with none), else its memory config's.
 */
function typeOf(t: TensorUse): string | null {
  if (t.address !== null && t.address !== undefined) return bufferTypeName(t.buffer_type);
  return declaredBufferType(t.memory_config) ?? null;
}

/**
 * The buffer type a whole `MemoryConfig(...)` text declares (null when it names none), or
 * undefined when the text is not one — parseMemoryConfig's reading of the type, without the
 * shard spec, since every argument of a large capture passes through here.
 */
function declaredBufferType(text: unknown): string | null | undefined {
  if (typeof text !== "string") return undefined;
  const s = text.trim();
  if (!s.startsWith("MemoryConfig(") || !s.endsWith(")")) return undefined;
  return /buffer_type=(?:BufferType::)?([A-Z0-9_]+)/.exec(s)?.[1] ?? null;
}
