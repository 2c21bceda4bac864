/**
 * Reading one captured graph's circular buffers the way the web application's per-core view
 * reads them, which is what operation_detail's `circular_buffers` lists.
 *
 * The capture writes a launch as `function_start`, `circular_buffer_deallocate_all` (freeing
 * the previous program's buffers), the program's `circular_buffer_allocate` nodes, the rest,
 * `function_end`. The view moves each free-all to just after the run of buffers that follows
 * it, and takes a snapshot of the live buffers at every free-all — for the innermost open
 * function scope — and at a scope's end while any are still live; a later snapshot of the same
 * scope replaces an earlier one. So each launch keeps the buffers it allocated, a failed launch
 * that older tt-metal left open keeps its buffers too, and two shapes leave buffers out: a
 * graph cut off right after a launch's buffers (its free-all has nothing to move before), and
 * a launch whose buffers another node splits into two runs (the second run's snapshot replaces
 * the first). Those are returned as unlisted rather than dropped.
 *
 * @module
 */
import {
  type GraphScope,
  graphScopes,
  isDeviceOperation,
  scopesProblem,
} from "../profiler_db/mod.ts";

/** One `circular_buffer_allocate` node. */
export interface CbNode {
  /** Index in the graph. */
  at: number;
  address: number | null;
  /** Bytes on each core. */
  size: number | null;
  coreRangeSet: string;
  globallyAllocated: boolean;
  /** The node's own device id, normalised; null when it carries none. */
  device: string | null;
}

/** One function scope of the graph, with what the view kept for it. */
export interface ScopeReading {
  name: string;
  startAt: number;
  /** Closed without an abort. */
  completed: boolean;
  isDeviceOperation: boolean;
  /** The buffers of its last snapshot; null when it never had one. */
  snapshot: CbNode[] | null;
  /** Device ids any node carried while this scope was the innermost open one. */
  devices: Set<string>;
}

/** A graph's scopes, and the buffers no snapshot kept, grouped by the scope they were allocated in. */
export interface GraphReading {
  scopes: ScopeReading[];
  unlisted: { devices: Set<string>; cbs: CbNode[] }[];
}

const CB_ALLOCATE = "circular_buffer_allocate";
const CB_FREE_ALL = "circular_buffer_deallocate_all";

/** A graph param read as a number (older captures write strings); null when it is not one. */
export function numberParam(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || value.trim() === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** A node's device id as a key, or null when it carries none that reads as a number. */
export function deviceKey(value: unknown): string | null {
  const n = numberParam(value);
  return n === null ? null : String(n);
}

function typeOf(node: unknown): string | null {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return null;
  const t = (node as { node_type?: unknown }).node_type;
  return typeof t === "string" ? t : null;
}

function paramsOf(node: unknown): Record<string, unknown> {
  const p = (node as { params?: unknown }).params;
  return p !== null && typeof p === "object" && !Array.isArray(p)
    ? p as Record<string, unknown>
    : {};
}

/**
 * The circular buffers of one parsed graph, in the view's order, or a string saying why the
 * graph cannot be read (the same reasons the link and errors give).
 *
 * @example
 * ```ts
 * import { readCircularBuffers } from "./_cb_graph.ts";
 * const n = (node_type: string, params: Record<string, unknown> = {}) => ({ node_type, params });
 * const cb = (address: number) => n("circular_buffer_allocate", { address, size: 64, core_range_set: "{}" });
 * const r = readCircularBuffers([n("function_start", { name: "Halo" }),
 *   n("circular_buffer_deallocate_all"), cb(100), cb(200), n("function_end", { name: "Halo" })]);
 * if (typeof r === "string" || r.scopes[0].snapshot?.length !== 2) throw new Error();
 * ```
 */
export function readCircularBuffers(graph: unknown): GraphReading | string {
  const read = graphScopes(graph);
  if ("problem" in read) return scopesProblem(read);
  const nodes = graph as unknown[];
  const scopes: ScopeReading[] = read.scopes.map((s: GraphScope) => ({
    name: s.name,
    startAt: s.startAt,
    completed: s.endAt !== null && !s.aborted,
    isDeviceOperation: isDeviceOperation(s.name),
    snapshot: null,
    devices: new Set<string>(),
  }));
  const startOf = new Map(read.scopes.map((s, i) => [s.startAt, i]));
  const endOf = new Map<number, number>();
  read.scopes.forEach((s, i) => s.endAt !== null && endOf.set(s.endAt, i));
  const open: number[] = [];
  let live: CbNode[] = [];
  const allocated: { cb: CbNode; scope: number }[] = [];
  const snapshot = (scope: number) => {
    scopes[scope].snapshot = live;
    live = [];
  };
  const apply = (at: number) => {
    const type = typeOf(nodes[at]);
    if (type === null) return;
    const params = paramsOf(nodes[at]);
    const opened = startOf.get(at);
    if (opened !== undefined && type === "function_start") open.push(opened);
    const top = open.at(-1);
    const device = deviceKey(params.device_id);
    if (device !== null && top !== undefined) scopes[top].devices.add(device);
    if (type === CB_ALLOCATE) {
      const cb: CbNode = {
        at,
        address: numberParam(params.address),
        size: numberParam(params.size),
        coreRangeSet: typeof params.core_range_set === "string" ? params.core_range_set : "",
        globallyAllocated: params.globally_allocated === true ||
          numberParam(params.globally_allocated) === 1,
        device,
      };
      live.push(cb);
      allocated.push({ cb, scope: top ?? -1 });
    } else if (type === CB_FREE_ALL) {
      if (top === undefined) live = [];
      else if (live.length > 0) snapshot(top);
    } else if (type === "function_end") {
      const closed = endOf.get(at);
      if (closed === undefined) return;
      if (live.length > 0) snapshot(closed);
      const i = open.lastIndexOf(closed);
      if (i >= 0) open.splice(i, 1);
    }
  };
  for (let at = 0; at < nodes.length;) {
    if (typeOf(nodes[at]) !== CB_FREE_ALL) {
      apply(at++);
      continue;
    }
    let next = at + 1;
    while (next < nodes.length && typeOf(nodes[next]) === CB_ALLOCATE) next++;
    if (next === at + 1) {
      apply(at++);
      continue;
    }
    for (let cb = at + 1; cb < next; cb++) apply(cb);
    // Moved after its buffers; a graph that ends there leaves nothing to move it before.
    if (next < nodes.length) apply(at);
    at = next;
  }
  const listed = new Set<CbNode>();
  for (const s of scopes) for (const cb of s.snapshot ?? []) listed.add(cb);
  const groups = new Map<number, CbNode[]>();
  for (const { cb, scope } of allocated) {
    if (listed.has(cb)) continue;
    groups.set(scope, [...(groups.get(scope) ?? []), cb]);
  }
  return {
    scopes,
    unlisted: [...groups].map(([scope, cbs]) => ({
      devices: scope < 0 ? new Set<string>() : scopes[scope].devices,
      cbs,
    })),
  };
}
