/**
 * The L1 replay behind l1_peak, as pure functions over already-read inputs: every operation's
 * captured-graph nodes, in id order, played against the post-operation buffers snapshot. It
 * counts what the snapshot alone cannot — circular buffers and tensors allocated and freed
 * inside an operation — and classes every resident at the tightest instant of each operation
 * as a circular buffer, an intermediate tensor (allocated and freed by this operation), a stale
 * tensor (still allocated after its last real consumer) or a persistent one. Every figure is
 * bytes per bank; a circular buffer's size is already per core, which is one bank.
 *
 * @module
 */

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
  nodes: readonly unknown[];
  /**
   * Its buffers snapshot: L1 and L1_SMALL address → bytes per bank; null when the operation
   * has no buffers rows at all (not captured — not the same as nothing live).
   */
  snapshot: ReadonlyMap<number, number> | null;
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

function paramsOf(node: unknown): { type: unknown; p: Record<string, unknown> } | null {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return null;
  const { node_type, params } = node as { node_type?: unknown; params?: unknown };
  const p = params !== null && typeof params === "object" && !Array.isArray(params)
    ? params as Record<string, unknown>
    : {};
  return { type: node_type, p };
}

/** Whether a buffer node is in L1: tt-metal spells L1_SMALL `"L1"` there; DRAM is `"DRAM"`. */
function isL1(p: Record<string, unknown>): boolean {
  return p.type === "L1" || p.type === "L1_SMALL";
}

/** A buffer node's bytes per bank: max_size_per_bank, else size ÷ (num_cores or banks). */
export function bytesPerBank(p: Record<string, unknown>, bankCount: number): number | null {
  const perBank = paramNumber(p.max_size_per_bank);
  if (perBank !== null) return perBank;
  const size = paramNumber(p.size);
  if (size === null) return null;
  const cores = paramNumber(p.num_cores);
  return size / (cores !== null && cores > 0 ? cores : bankCount);
}

function globallyAllocated(v: unknown): boolean {
  return v === 1 || v === "1" || v === true || v === "true";
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
    const intermediates = markIntermediates(op.nodes);
    const occurrences = new Map<number, number>();
    let best = this.#measure();
    for (const node of op.nodes) {
      const read = paramsOf(node);
      if (read === null) continue;
      const { type, p } = read;
      let changed = false;
      if (type === "circular_buffer_deallocate_all") {
        changed = this.#cbs.size > 0;
        this.#cbs.clear();
        this.#cbBytes = 0;
      } else if (type === "circular_buffer_allocate") {
        const address = paramNumber(p.address);
        const size = paramNumber(p.size);
        if (address === null || size === null || globallyAllocated(p.globally_allocated)) continue;
        this.#cbBytes += size - (this.#cbs.get(address) ?? 0);
        this.#cbs.set(address, size);
        changed = true;
      } else if (type === "buffer_allocate" && isL1(p)) {
        const address = paramNumber(p.address);
        const bytes = bytesPerBank(p, this.basis.bankCount);
        if (address === null || bytes === null) continue;
        const n = (occurrences.get(address) ?? 0) + 1;
        occurrences.set(address, n);
        this.#setTensor(address, { bytes, intermediate: intermediates.has(`${address}#${n}`) });
        changed = true;
      } else if (type === "buffer_deallocate" && isL1(p)) {
        const address = paramNumber(p.address);
        if (address === null) continue;
        changed = this.#deleteTensor(address);
      }
      if (changed && this.#cbBytes + this.#tensorBytes > best.total) best = this.#measure();
    }
    // A finished program's circular buffers no longer occupy L1, although the capture frees
    // them only when the next program starts.
    this.#cbs.clear();
    this.#cbBytes = 0;
    let reconciledAway = 0;
    if (op.snapshot !== null) {
      for (const address of [...this.#tensors.keys()]) {
        if (!op.snapshot.has(address)) {
          this.#deleteTensor(address);
          reconciledAway++;
        }
      }
      for (const [address, bytes] of op.snapshot) {
        this.#setTensor(address, { bytes, intermediate: false });
      }
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

/**
 * Which L1 allocations an operation also frees, as `address#occurrence`: the n-th allocation
 * at an address within the operation is intermediate when a deallocation at that address
 * follows it inside the same operation.
 */
function markIntermediates(nodes: readonly unknown[]): Set<string> {
  const marked = new Set<string>();
  const count = new Map<number, number>();
  const live = new Map<number, number>();
  for (const node of nodes) {
    const read = paramsOf(node);
    if (read === null || !isL1(read.p)) continue;
    if (read.type !== "buffer_allocate" && read.type !== "buffer_deallocate") continue;
    const address = paramNumber(read.p.address);
    if (address === null) continue;
    if (read.type === "buffer_allocate") {
      const n = (count.get(address) ?? 0) + 1;
      count.set(address, n);
      live.set(address, n);
    } else if (live.has(address)) {
      marked.add(`${address}#${live.get(address)}`);
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
 * import { replayL1 } from "./_l1_replay.ts";
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
