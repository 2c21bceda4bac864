/**
 * Internal: what the L1 replay (`replay.ts`) reads of a captured graph, as events — the
 * only nodes that change L1 state, reduced to numbers. A graph's nodes (parsed, or scanned
 * straight from its text by `_graph_scan.ts`) become a flat list of triples: the kind, the
 * address and a value. Both readers end in `pushEvent`, so they cannot read a node two ways.
 *
 * @module
 */

/** `circular_buffer_deallocate_all`: address and value NaN. */
export const CB_FREE_ALL = 1;
/** `circular_buffer_allocate` (not globally allocated): address, size per core. */
export const CB_ALLOCATE = 2;
/** L1 `buffer_allocate` with an address: address, bytes per bank (NaN when none is given). */
export const L1_ALLOCATE = 3;
/** L1 `buffer_deallocate` with an address: address, value NaN. */
export const L1_FREE = 4;

/** Numbers per event. */
export const EVENT_SIZE = 3;

/** The node types that can change L1 state, by their code in `pushEvent` (1 to 4). */
export const EVENT_NODE_TYPES = [
  "",
  "circular_buffer_deallocate_all",
  "circular_buffer_allocate",
  "buffer_allocate",
  "buffer_deallocate",
] as const;

/**
 * A number from a graph param written as a number or as a string of one; null for anything
 * else (an absent or null address is no address — never 0).
 */
export function paramNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** Whether a buffer node's `type` is L1: tt-metal spells L1_SMALL `"L1"` there. */
export function isL1Type(v: unknown): boolean {
  return v === "L1" || v === "L1_SMALL";
}

/** Whether a circular buffer's `globally_allocated` says it is a view onto a tensor. */
export function isGloballyAllocated(v: unknown): boolean {
  return v === 1 || v === "1" || v === true || v === "true";
}

/** A buffer node's bytes per bank: max_size_per_bank, else size ÷ (num_cores or banks). */
export function bytesPerBank(p: Record<string, unknown>, bankCount: number): number | null {
  return perBank(
    paramNumber(p.max_size_per_bank),
    paramNumber(p.size),
    paramNumber(p.num_cores),
    bankCount,
  );
}

function perBank(
  maxPerBank: number | null,
  size: number | null,
  cores: number | null,
  bankCount: number,
): number | null {
  if (maxPerBank !== null) return maxPerBank;
  if (size === null) return null;
  return size / (cores !== null && cores > 0 ? cores : bankCount);
}

/**
 * Appends the event of one node to `out` — its type's code in EVENT_NODE_TYPES (0: any other)
 * and its params as `paramNumber`, `isL1Type` and `isGloballyAllocated` read them — or nothing
 * when the node changes nothing.
 */
export function pushEvent(
  code: number,
  address: number | null,
  size: number | null,
  maxSizePerBank: number | null,
  numCores: number | null,
  l1: boolean,
  globallyAllocated: boolean,
  bankCount: number,
  out: number[],
): void {
  if (code === 1) {
    out.push(CB_FREE_ALL, NaN, NaN);
  } else if (code === 2) {
    if (address === null || size === null || globallyAllocated) return;
    out.push(CB_ALLOCATE, address, size);
  } else if ((code === 3 || code === 4) && l1) {
    if (address === null) return;
    if (code === 4) out.push(L1_FREE, address, NaN);
    else out.push(L1_ALLOCATE, address, perBank(maxSizePerBank, size, numCores, bankCount) ?? NaN);
  }
}

/**
 * The events of parsed graph nodes, in order. A node that is not an object is none; params
 * that are not an object read as none.
 *
 * @example
 * ```ts
 * import { CB_ALLOCATE, nodeEvents } from "./_l1_events.ts";
 * const cb = { node_type: "circular_buffer_allocate", params: { address: "100", size: "300" } };
 * const e = nodeEvents([cb, null, { node_type: "tensor" }], 64);
 * if (e.join() !== `${CB_ALLOCATE},100,300`) throw new Error();
 * ```
 */
export function nodeEvents(nodes: readonly unknown[], bankCount: number): number[] {
  const out: number[] = [];
  for (const node of nodes) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const { node_type, params } = node as { node_type?: unknown; params?: unknown };
    const code = (EVENT_NODE_TYPES as readonly unknown[]).indexOf(node_type);
    if (code < 1) continue;
    const p = params !== null && typeof params === "object" && !Array.isArray(params)
      ? params as Record<string, unknown>
      : {};
    pushEvent(
      code,
      paramNumber(p.address),
      paramNumber(p.size),
      paramNumber(p.max_size_per_bank),
      paramNumber(p.num_cores),
      isL1Type(p.type),
      isGloballyAllocated(p.globally_allocated),
      bankCount,
      out,
    );
  }
  return out;
}
