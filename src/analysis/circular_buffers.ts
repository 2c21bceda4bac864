/**
 * operation_detail's `circular_buffers`: the circular buffers each device operation of one
 * operation allocated, read from its captured graph as the web application's per-core view
 * lists them (`_cb_graph.ts`). Sizes are bytes on each core — one core's L1 is one L1 bank, so
 * the unit is bytes_per_bank, the unit of the L1 figures under allocations.
 *
 * A mesh records every buffer once per device: those copies are one row with a device_count.
 * Older mesh captures give each device its own device operation; those fold into one entry the
 * same way (the n-th launch of a name on one device with the n-th on each other device), so a
 * device operation launched twice on one device stays two entries. A globally allocated buffer
 * is a view onto an L1 tensor already counted, so it adds nothing to max_bytes_per_core; a
 * buffer whose core range names no core goes to unattributed_bytes instead.
 *
 * A relaunch from the program cache allocates no buffers in the graph: those device-operation
 * launches are counted as unrecorded (their buffers are unknown, not zero). Buffers the view
 * leaves out are counted as unlisted. The field is absent when the report has no captured graph
 * for the operation, and withheld (null, with a caveat) when the graph cannot be attributed to
 * the rank, is past the size a tool reads, or does not parse.
 *
 * @module
 */
import {
  andRank,
  coresIn,
  memo,
  type Pause,
  pauseOn,
  type ProfilerDb,
  type RankScope,
  row,
  stepsOf,
  unattributable,
} from "../profiler_db/mod.ts";
import { SharedWork } from "../kit/shared_work.ts";
import { MAX_GRAPH_CHARS, NAME_CAP_CHARS } from "./run_errors.ts";
import { type CbNode, readCircularBuffers, type ScopeReading } from "./_cb_graph.ts";

/** Rows listed at most, across every device operation (as for perf_rows). */
export const MAX_CB_ROWS = 100;

/** Rows listed at most when operation_detail is asked to include more per perf row. */
export const MAX_CB_ROWS_WITH_INCLUDE = 25;

/** A core_range_set is cut at this many characters. */
export const CORE_RANGE_SET_CAP = 200;

/** At most this many names are listed under unrecorded_device_operations. */
export const MAX_UNRECORDED_NAMES = 20;

/** One circular buffer, folded over the devices that allocated it. */
export interface CircularBufferRow {
  address: number | null;
  /** Bytes on each core. */
  size: number | null;
  core_range_set: string;
  core_range_set_full_length?: number;
  /** Distinct cores the whole core_range_set covers; null when it names an impossible range. */
  core_count: number | null;
  device_count: number;
  globally_allocated: boolean;
}

/** One device operation that allocated circular buffers. */
export interface DeviceOperationBuffers {
  name: string;
  device_count: number;
  circular_buffer_count: number;
  max_bytes_per_core: number;
  unattributed_bytes: number;
  circular_buffers: CircularBufferRow[];
}

/** The `circular_buffers` field. */
export interface CircularBuffers {
  size_unit: "bytes_per_bank";
  device_operation_count: number;
  circular_buffer_count: number;
  max_bytes_per_core: number;
  returned_rows: number;
  device_operations: DeviceOperationBuffers[];
  unrecorded_launch_count?: number;
  unrecorded_device_operations?: { name: string; launch_count: number; device_count: number }[];
  /** How many distinct names unrecorded_device_operations would hold uncapped. */
  unrecorded_device_operation_name_count?: number;
  unlisted_circular_buffer_count?: number;
}

/** What operation_detail adds: the field (absent when `present` is false) and its caveat. */
export interface CircularBuffersField {
  present: boolean;
  circular_buffers: CircularBuffers | null;
  caveat: string | null;
}

interface Row {
  cb: CbNode;
  devices: Set<string>;
}

interface Entry {
  name: string;
  devices: Set<string>;
  rows: Row[];
  byIdentity: Map<string, Row[]>;
}

/** The devices a launch ran on: its buffers' own ids, else those its other nodes carried. */
function launchDevices(s: ScopeReading): string[] {
  const own = new Set(
    (s.snapshot ?? []).map((cb) => cb.device).filter((d): d is string => d !== null),
  );
  return [...(own.size > 0 ? own : s.devices)].sort();
}

function identity(cb: CbNode): string {
  return `${cb.address}|${cb.size}|${cb.coreRangeSet}|${cb.globallyAllocated}`;
}

/**
 * Folds one launch's buffers over devices: the n-th copy of a buffer on each device is one row,
 * so a second allocation on the same device is a row of its own.
 */
function foldRows(cbs: readonly CbNode[], fallback: Set<string> | string[]): Row[] {
  const only = [...fallback];
  const repeats = new Map<string, number>();
  const slots = new Map<string, Row>();
  for (const cb of cbs) {
    const device = cb.device ?? (only.length === 1 ? only[0] : "single");
    const key = `${identity(cb)}|${device}`;
    const repeat = (repeats.get(key) ?? 0) + 1;
    repeats.set(key, repeat);
    const slot = `${identity(cb)}|${repeat}`;
    const found = slots.get(slot);
    if (found) found.devices.add(device);
    else slots.set(slot, { cb, devices: new Set([device]) });
  }
  return [...slots.values()];
}

/** Slots launches of one name so the n-th on each device folds together. */
function slotter(): (name: string, devices: string[]) => string {
  const repeats = new Map<string, number>();
  return (name, devices) => {
    const key = `${name}|${devices.join(",") || "single"}`;
    const repeat = (repeats.get(key) ?? 0) + 1;
    repeats.set(key, repeat);
    return `${name}|${repeat}`;
  };
}

/** Merges a launch's rows into its entry: the n-th row of an identity meets the entry's n-th. */
function merge(entry: Entry, rows: Row[]): void {
  const seen = new Map<string, number>();
  for (const r of rows) {
    const id = identity(r.cb);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    const same = entry.byIdentity.get(id) ?? [];
    entry.byIdentity.set(id, same);
    const match = same[n];
    if (match) { for (const d of r.devices) match.devices.add(d); }
    else {
      const added = { cb: r.cb, devices: new Set(r.devices) };
      entry.rows.push(added);
      same.push(added);
    }
  }
}

/** The largest per-core total and the unattributed total, each on the worst device. */
function pressure(rows: readonly Row[]): { max: number; unattributed: number } {
  const byCore = new Map<string, number>();
  const loose = new Map<string, number>();
  for (const { cb, devices } of rows) {
    if (cb.globallyAllocated || cb.size === null) continue;
    const cores = coresIn(cb.coreRangeSet);
    for (const d of devices) {
      if (cores === null || cores.size === 0) {
        loose.set(d, (loose.get(d) ?? 0) + cb.size);
        continue;
      }
      for (const c of cores) byCore.set(`${d}|${c}`, (byCore.get(`${d}|${c}`) ?? 0) + cb.size);
    }
  }
  return { max: Math.max(0, ...byCore.values()), unattributed: Math.max(0, ...loose.values()) };
}

function rowView({ cb, devices }: Row): CircularBufferRow {
  const cut = cb.coreRangeSet.length > CORE_RANGE_SET_CAP;
  const cores = coresIn(cb.coreRangeSet);
  return {
    address: cb.address,
    size: cb.size,
    core_range_set: cut ? cb.coreRangeSet.slice(0, CORE_RANGE_SET_CAP) : cb.coreRangeSet,
    ...(cut ? { core_range_set_full_length: cb.coreRangeSet.length } : {}),
    core_count: cores === null ? null : cores.size,
    device_count: devices.size,
    globally_allocated: cb.globallyAllocated,
  };
}

/**
 * The circular buffers of an operation's parsed captured graphs (one per captured_graph row,
 * in row order), listing at most `cap` rows; or a string saying why a graph cannot be read.
 */
export function circularBuffersOf(
  graphs: readonly unknown[],
  cap: number,
): CircularBuffers | string {
  const entries = new Map<string, Entry>();
  const unrecorded = new Map<string, { launches: Set<string>; devices: Set<string> }>();
  const entrySlot = slotter();
  const unrecordedSlot = slotter();
  let unlisted = 0;
  for (const graph of graphs) {
    const read = readCircularBuffers(graph);
    if (typeof read === "string") return read;
    for (const s of read.scopes) {
      const devices = launchDevices(s);
      if (s.snapshot !== null) {
        const slot = entrySlot(s.name, devices);
        const entry = entries.get(slot) ??
          { name: s.name, devices: new Set(), rows: [], byIdentity: new Map() };
        entries.set(slot, entry);
        for (const d of devices) entry.devices.add(d);
        merge(entry, foldRows(s.snapshot, devices));
      } else if (s.isDeviceOperation && s.completed) {
        const u = unrecorded.get(s.name) ?? { launches: new Set(), devices: new Set() };
        unrecorded.set(s.name, u);
        u.launches.add(unrecordedSlot(s.name, devices));
        for (const d of devices) u.devices.add(d);
      }
    }
    for (const group of read.unlisted) unlisted += foldRows(group.cbs, group.devices).length;
  }
  let budget = cap;
  const listed: DeviceOperationBuffers[] = [];
  let count = 0;
  let max = 0;
  for (const e of entries.values()) {
    const p = pressure(e.rows);
    count += e.rows.length;
    max = Math.max(max, p.max);
    if (budget <= 0) continue;
    const shown = e.rows.slice(0, budget);
    budget -= shown.length;
    listed.push({
      name: e.name.slice(0, NAME_CAP_CHARS),
      device_count: Math.max(1, e.devices.size),
      circular_buffer_count: e.rows.length,
      max_bytes_per_core: p.max,
      unattributed_bytes: p.unattributed,
      circular_buffers: shown.map(rowView),
    });
  }
  const launchCount = [...unrecorded.values()].reduce((n, u) => n + u.launches.size, 0);
  return {
    size_unit: "bytes_per_bank",
    device_operation_count: entries.size,
    circular_buffer_count: count,
    max_bytes_per_core: max,
    returned_rows: cap - budget,
    device_operations: listed,
    ...(launchCount > 0
      ? {
        unrecorded_launch_count: launchCount,
        unrecorded_device_operation_name_count: unrecorded.size,
        unrecorded_device_operations: [...unrecorded].slice(0, MAX_UNRECORDED_NAMES).map((
          [name, u],
        ) => ({
          name: name.slice(0, NAME_CAP_CHARS),
          launch_count: u.launches.size,
          device_count: Math.max(1, u.devices.size),
        })),
      }
      : {}),
    ...(unlisted > 0 ? { unlisted_circular_buffer_count: unlisted } : {}),
  };
}

/** The caveat parts a reading carries: unrecorded launches and unlisted buffers. */
export function circularBuffersCaveat(cbs: CircularBuffers): string | null {
  const parts: string[] = [];
  const launches = cbs.unrecorded_launch_count ?? 0;
  const names = cbs.unrecorded_device_operation_name_count ?? 0;
  if (launches > 0) {
    parts.push(
      `${launches} device-operation launch${launches === 1 ? "" : "es"} allocated no circular ` +
        "buffers in the captured graph (unrecorded_launch_count, unrecorded_device_operations): " +
        "most likely relaunches from the program cache, which the graph records without their " +
        "buffers, so their circular buffers are unknown rather than zero." +
        (names > MAX_UNRECORDED_NAMES
          ? ` The first ${MAX_UNRECORDED_NAMES} of ${names} device-operation names are listed.`
          : ""),
    );
  }
  const unlisted = cbs.unlisted_circular_buffer_count ?? 0;
  if (unlisted > 0) {
    parts.push(
      `${unlisted} circular buffer${unlisted === 1 ? " is" : "s are"} not listed ` +
        "(unlisted_circular_buffer_count): the captured graph was cut off right after a launch's " +
        "buffers, or another node split a launch's buffers into two runs, so the per-core view " +
        "keeps no snapshot of them; circular_buffer_count and device_operation_count leave them " +
        "out.",
    );
  }
  return parts.length > 0 ? parts.join(" ") : null;
}

/**
 * The captured_graph rows of every operation at the rank, by operation id, in row order — read
 * once per connection (one pass over the table's ids, never its graphs, in rowid steps that let
 * the event loop in), so each later detail call finds its graph by rowid instead of scanning the
 * table again. Shared by the calls waiting for it; stopped and forgotten once all are cancelled.
 */
function graphRows(
  pdb: ProfilerDb,
  scope: RankScope,
  signal?: AbortSignal,
): Promise<Map<number, number[]>> {
  // A call cancelled already starts no work that nobody would wait for.
  signal?.throwIfAborted();
  const key = `captured-graph-rows-${scope.rank}`;
  const work = memo(pdb, key, (): SharedWork<Map<number, number[]>> => {
    const shared: SharedWork<Map<number, number[]>> = new SharedWork(
      (stop) => readGraphRows(pdb, scope, pauseOn(stop)),
      () => {
        if (pdb.memo.get(key) === shared) pdb.memo.delete(key);
      },
    );
    return shared;
  });
  return work.join(signal);
}

async function readGraphRows(
  pdb: ProfilerDb,
  scope: RankScope,
  pause: Pause,
): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  const sql = (range: string) =>
    "SELECT rowid AS rid, operation_id AS id FROM captured_graph WHERE 1 = 1" +
    `${andRank(pdb, scope, "captured_graph")}${range} ORDER BY rowid`;
  const steps = stepsOf<{ rid: number; id: unknown }>(pdb, "captured_graph", "", sql, [], pause);
  for await (const part of steps) {
    for (const r of part) {
      if (r.id === null) continue;
      const id = Number(r.id);
      const seen = out.get(id);
      if (seen === undefined) out.set(id, [Number(r.rid)]);
      else seen.push(Number(r.rid));
    }
  }
  return out;
}

/**
 * operation_detail's `circular_buffers` for one operation at the scope's rank, listing at most
 * `cap` rows: absent without a captured graph for it, withheld with a caveat when its graph
 * cannot be attributed to the rank, is too large, or does not parse.
 */
export async function circularBuffersField(
  pdb: ProfilerDb,
  scope: RankScope,
  operationId: number,
  cap: number,
  signal?: AbortSignal,
): Promise<CircularBuffersField> {
  const absent = { present: false, circular_buffers: null, caveat: null };
  const withheld = (why: string) => ({
    present: true,
    circular_buffers: null,
    caveat: `circular_buffers is withheld: ${why}.`,
  });
  if (
    !pdb.schema.hasColumn("captured_graph", "captured_graph") ||
    !pdb.schema.hasColumn("captured_graph", "operation_id")
  ) return absent;
  const guard = unattributable(pdb, scope, ["captured_graph"]);
  if (guard !== null) return withheld(guard);
  const sizes = ((await graphRows(pdb, scope, signal)).get(operationId) ?? []).map((rid) => ({
    rid,
    n: row<{ n: number | null }>(
      pdb,
      "SELECT length(CAST(captured_graph AS TEXT)) AS n FROM captured_graph WHERE rowid = ?",
      rid,
    )?.n ?? 0,
  }));
  if (sizes.length === 0) return absent;
  const graphs: unknown[] = [];
  for (const s of sizes) {
    if (Number(s.n ?? 0) > MAX_GRAPH_CHARS) {
      return withheld(
        `its captured graph is past the ${MAX_GRAPH_CHARS} characters a tool will read`,
      );
    }
    const text = row<{ g: string | null }>(
      pdb,
      "SELECT CAST(captured_graph AS TEXT) AS g FROM captured_graph WHERE rowid = ?",
      s.rid,
    )?.g ?? "";
    try {
      graphs.push(text.trim() === "" ? [] : JSON.parse(text));
    } catch {
      return withheld("its captured graph does not parse as JSON");
    }
  }
  const read = circularBuffersOf(graphs, cap);
  if (typeof read === "string") return withheld(read);
  return { present: true, circular_buffers: read, caveat: circularBuffersCaveat(read) };
}
