/**
 * The L1 replay behind l1_peak, as pure functions over already-read inputs: every operation's
 * captured-graph nodes (as their events, `_l1_events.ts`), in id order, played against the
 * post-operation buffers snapshot. It
 * counts what the snapshot alone cannot — circular buffers and tensors allocated and freed
 * inside an operation — and classes every resident at the tightest instant of each operation
 * as a circular buffer, an intermediate tensor (allocated and freed by this operation), a stale
 * tensor (still allocated after its last real consumer) or a persistent one. Every figure is
 * bytes per bank; a circular buffer's size is already per core, which is one bank.
 *
 * @module
 */
import {
  CB_ALLOCATE,
  CB_FREE_ALL,
  EVENT_SIZE,
  L1_ALLOCATE,
  L1_FREE,
  nodeEvents,
} from "./_l1_events.ts";

export { bytesPerBank, paramNumber } from "./_l1_events.ts";

/** What a resident is, at the instant measured. */
export type ResidentKind =
  | "circular_buffer"
  | "intermediate_tensor"
  | "persistent_tensor"
  | "stale_tensor";

/** The bytes per bank live at one instant, by kind. */
export interface L1Figures {
  total: number;
  circularBuffer: number;
  intermediate: number;
  persistent: number;
  stale: number;
  /** How many residents are summed (circular buffers and tensors). */
  residents: number;
}

/** One resident at the instant measured. */
export interface Contributor {
  kind: ResidentKind;
  address: number;
  bytes: number;
  /** The tensor's last real consumer, for a tensor whose address has one; else null. */
  lastUsedBy: number | null;
}

/** One operation to replay. */
export interface ReplayOperation {
  operationId: number;
  /** Its captured graph's nodes (every graph row, in order); empty when it has none. */
  nodes?: readonly unknown[];
  /** Or the events of those nodes (`_l1_events.ts`), as l1_peak reads them. */
  events?: ArrayLike<number>;
  /**
   * Its buffers snapshot: L1 and L1_SMALL address → bytes per bank; null when the operation
   * has no buffers rows at all (not captured — not the same as nothing live).
   */
  snapshot: ReadonlyMap<number, number> | null | undefined;
  /**
   * Or the same as the buffers table gives it (used where `snapshot` is undefined): address,
   * bytes, repeated, an address on several devices at its largest; null as for `snapshot`.
   */
  snapshotPairs?: readonly number[] | null;
}

/** What the replay is read against. */
export interface ReplayBasis {
  /** L1 banks, for a buffer node without max_size_per_bank (size ÷ num_cores, or ÷ this). */
  bankCount: number;
  /** Address → the last operation that really consumed the tensor there. */
  lastUse: ReadonlyMap<number, number>;
}

/** One operation's decomposition: its tightest instant, and what reconciling dropped. */
export interface OperationL1 {
  operationId: number;
  figures: L1Figures;
  /** Graph allocations missing from the operation's snapshot, dropped after it. */
  reconciledAway: number;
}

/** The first operation reaching the run's highest figure, with its residents. */
export interface L1PeakAt {
  operationId: number;
  figures: L1Figures;
  /** Largest first, then by address. */
  contributors: Contributor[];
}

interface Tensor {
  bytes: number;
  intermediate: boolean;
}

/**
 * The replay, one operation at a time in id order: `step` each, then read the peak. Keeps
 * only the live state and the best instant so far, so a capture of any length replays in
 * constant memory per live buffer.
 */
export class L1Replay {
  #tensors = new Map<number, Tensor>();
  #cbs = new Map<number, number>();
  #tensorBytes = 0;
  #cbBytes = 0;
  #peak: L1PeakAt | null = null;
  #operation = 0;

  constructor(readonly basis: ReplayBasis) {}

  /** Replays one operation and returns its decomposition. */
  step(op: ReplayOperation): OperationL1 {
    this.#operation = op.operationId;
    const events = op.events ?? nodeEvents(op.nodes ?? [], this.basis.bankCount);
    // A few events are searched in place; past that, Maps.
    const few = events.length <= FEW_EVENTS;
    const intermediates = few ? null : markIntermediates(events);
    let occurrences: Map<number, number> | null = null;
    let best = this.#measure();
    for (let e = 0; e < events.length; e += EVENT_SIZE) {
      const kind = events[e];
      const address = events[e + 1];
      const value = events[e + 2];
      let changed = false;
      if (kind === CB_FREE_ALL) {
        changed = this.#cbs.size > 0;
        this.#cbs.clear();
        this.#cbBytes = 0;
      } else if (kind === CB_ALLOCATE) {
        this.#cbBytes += value - (this.#cbs.get(address) ?? 0);
        this.#cbs.set(address, value);
        changed = true;
      } else if (kind === L1_ALLOCATE) {
        if (Number.isNaN(value)) continue;
        let n: number;
        if (few) n = sizedBefore(events, address, e) + 1;
        else {
          occurrences ??= new Map();
          n = (occurrences.get(address) ?? 0) + 1;
          occurrences.set(address, n);
        }
        this.#setTensor(address, {
          bytes: value,
          intermediate: few
            ? freedWithin(events, address, n)
            : intermediates !== null && intermediates.has(`${address}#${n}`),
        });
        changed = true;
      } else if (kind === L1_FREE) {
        changed = this.#deleteTensor(address);
      }
      if (changed && this.#cbBytes + this.#tensorBytes > best.total) best = this.#measure();
    }
    // A finished program's circular buffers no longer occupy L1, although the capture frees
    // them only when the next program starts.
    this.#cbs.clear();
    this.#cbBytes = 0;
    let reconciledAway = 0;
    const snapshot = op.snapshot !== undefined ? op.snapshot : snapshotOf(op.snapshotPairs);
    if (snapshot !== null) {
      // Deleting the entry visited leaves a Map's iteration over the rest as it was.
      for (const address of this.#tensors.keys()) {
        if (!snapshot.has(address)) {
          this.#deleteTensor(address);
          reconciledAway++;
        }
      }
      snapshot.forEach((bytes, address) => {
        this.#setTensor(address, { bytes, intermediate: false });
      });
      if (this.#tensorBytes > best.total) best = this.#measure();
    }
    return { operationId: op.operationId, figures: best, reconciledAway };
  }

  /** The first operation reaching the highest figure (above 0), or null when none did. */
  peak(): L1PeakAt | null {
    return this.#peak;
  }

  #setTensor(address: number, t: Tensor): void {
    this.#tensorBytes += t.bytes - (this.#tensors.get(address)?.bytes ?? 0);
    this.#tensors.set(address, t);
  }

  #deleteTensor(address: number): boolean {
    const t = this.#tensors.get(address);
    if (!t) return false;
    this.#tensorBytes -= t.bytes;
    this.#tensors.delete(address);
    return true;
  }

  #kindOf(address: number, t: Tensor): ResidentKind {
    if (t.intermediate) return "intermediate_tensor";
    const last = this.basis.lastUse.get(address);
    return last !== undefined && last > -1 && last < this.#operation
      ? "stale_tensor"
      : "persistent_tensor";
  }

  /** The figures now; a new run high also keeps its residents. */
  #measure(): L1Figures {
    const f: L1Figures = {
      total: 0,
      circularBuffer: 0,
      intermediate: 0,
      persistent: 0,
      stale: 0,
      residents: this.#cbs.size + this.#tensors.size,
    };
    for (const size of this.#cbs.values()) f.circularBuffer += size;
    for (const [address, t] of this.#tensors) {
      const kind = this.#kindOf(address, t);
      if (kind === "intermediate_tensor") f.intermediate += t.bytes;
      else if (kind === "stale_tensor") f.stale += t.bytes;
      else f.persistent += t.bytes;
    }
    f.total = f.circularBuffer + f.intermediate + f.persistent + f.stale;
    if (f.total > 0 && f.total > (this.#peak?.figures.total ?? 0)) {
      this.#peak = { operationId: this.#operation, figures: f, contributors: this.#residents() };
    }
    return f;
  }

  #residents(): Contributor[] {
    const out: Contributor[] = [];
    for (const [address, bytes] of this.#cbs) {
      out.push({ kind: "circular_buffer", address, bytes, lastUsedBy: null });
    }
    for (const [address, t] of this.#tensors) {
      const last = this.basis.lastUse.get(address);
      out.push({
        kind: this.#kindOf(address, t),
        address,
        bytes: t.bytes,
        lastUsedBy: last !== undefined && last > -1 ? last : null,
      });
    }
    return out.sort((a, b) => b.bytes - a.bytes || a.address - b.address);
  }
}

/** A snapshot read as a Map does (`has`, `forEach`) without building one for a few buffers. */
interface Snapshot {
  has(address: number): boolean;
  forEach(visit: (bytes: number, address: number) => void): void;
}

/** Buffers of a snapshot read in place; past this many, a Map. */
const IN_PLACE = 16;

/**
 * The snapshot of `pairs` (address, bytes, repeated): each address once, in the order it first
 * comes, at its largest — as a Map built from them in order reads it; null for null.
 */
function snapshotOf(pairs: readonly number[] | null | undefined): Snapshot | null {
  if (pairs === null || pairs === undefined) return null;
  if (pairs.length > 2 * IN_PLACE) {
    const map = new Map<number, number>();
    for (let i = 0; i < pairs.length; i += 2) {
      map.set(pairs[i], Math.max(pairs[i + 1], map.get(pairs[i]) ?? -Infinity));
    }
    return map;
  }
  // Map keys compare as SameValueZero: NaN is NaN, -0 is 0.
  const same = (a: number, b: number) => a === b || (a !== a && b !== b);
  const at = (address: number) => {
    for (let i = 0; i < pairs.length; i += 2) if (same(pairs[i], address)) return i;
    return -1;
  };
  return {
    has: (address) => at(address) >= 0,
    forEach(visit) {
      for (let i = 0; i < pairs.length; i += 2) {
        const address = pairs[i];
        if (at(address) !== i) continue;
        let bytes = Math.max(pairs[i + 1], -Infinity);
        for (let j = i + 2; j < pairs.length; j += 2) {
          if (same(pairs[j], address)) bytes = Math.max(pairs[j + 1], bytes);
        }
        visit(bytes, address);
      }
    },
  };
}

/** Events (numbers) an operation's intermediates are found among in place, at most. */
const FEW_EVENTS = 64 * EVENT_SIZE;

/** How many L1 allocations with a size at `address` come before event `before`. */
function sizedBefore(events: ArrayLike<number>, address: number, before: number): number {
  let n = 0;
  for (let e = 0; e < before; e += EVENT_SIZE) {
    if (events[e] === L1_ALLOCATE && events[e + 1] === address && !Number.isNaN(events[e + 2])) {
      n++;
    }
  }
  return n;
}

/**
 * `markIntermediates(events)` has `address#n`, found in place: the n-th L1 allocation at
 * `address` (sized or not) is intermediate when the next L1 event at that address frees it.
 */
function freedWithin(events: ArrayLike<number>, address: number, n: number): boolean {
  let seen = 0;
  for (let e = 0; e < events.length; e += EVENT_SIZE) {
    if (events[e] !== L1_ALLOCATE || events[e + 1] !== address || ++seen < n) continue;
    for (let f = e + EVENT_SIZE; f < events.length; f += EVENT_SIZE) {
      const kind = events[f];
      if ((kind === L1_ALLOCATE || kind === L1_FREE) && events[f + 1] === address) {
        return kind === L1_FREE;
      }
    }
    return false;
  }
  return false;
}

/**
 * Which L1 allocations an operation also frees, as `address#occurrence`: the n-th allocation
 * at an address within the operation is intermediate when a deallocation at that address
 * follows it inside the same operation. Null when there are none.
 */
function markIntermediates(events: ArrayLike<number>): Set<string> | null {
  let marked: Set<string> | null = null;
  let count: Map<number, number> | null = null;
  let live: Map<number, number> | null = null;
  for (let e = 0; e < events.length; e += EVENT_SIZE) {
    const kind = events[e];
    if (kind !== L1_ALLOCATE && kind !== L1_FREE) continue;
    const address = events[e + 1];
    if (kind === L1_ALLOCATE) {
      count ??= new Map();
      live ??= new Map();
      const n = (count.get(address) ?? 0) + 1;
      count.set(address, n);
      live.set(address, n);
    } else if (live !== null && live.has(address)) {
      (marked ??= new Set()).add(`${address}#${live.get(address)}`);
      live.delete(address);
    }
  }
  return marked;
}

/**
 * Replays a whole run and returns every operation's decomposition (zeros included) and the
 * peak — the form tests read; the tool streams through `L1Replay` instead.
 *
 * @example
 * ```ts
 * import { replayL1 } from "./replay.ts";
 * const cb = { node_type: "circular_buffer_allocate", params: { address: "100", size: "300" } };
 * const t = { node_type: "buffer_allocate", params: { address: 900, type: "L1", max_size_per_bank: 200 } };
 * const r = replayL1([{ operationId: 1, nodes: [cb, t], snapshot: new Map([[900, 200]]) }],
 *   { bankCount: 64, lastUse: new Map() });
 * if (r.peak?.figures.total !== 500 || r.operations[0].figures.circularBuffer !== 300) throw new Error();
 * ```
 */
export function replayL1(
  operations: Iterable<ReplayOperation>,
  basis: ReplayBasis,
): { operations: OperationL1[]; peak: L1PeakAt | null } {
  const replay = new L1Replay(basis);
  const out: OperationL1[] = [];
  for (const op of operations) out.push(replay.step(op));
  return { operations: out, peak: replay.peak() };
}
