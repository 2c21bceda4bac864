/**
 * l1_pressure as the tools answer it: for one operation (operation_detail) or ranked over
 * every operation with a snapshot (memory_profile), or null with the reason — an operation
 * with no buffers rows, devices with no L1 geometry, or a multi-rank report whose devices
 * table carries no rank.
 *
 * @module
 */
import {
  type BufferRow,
  devicesAt,
  type L1Window,
  l1Window,
  type OperationBuffers,
  type ProfilerDb,
  type RankScope,
  unattributable,
} from "../profiler_db/mod.ts";
import { TopK } from "../kit/top_k.ts";
import { MAX_RANKED } from "./footprints.ts";
import {
  L1_PRESSURE_CAVEAT,
  measurePairs,
  operationPressure,
  type PressureFields,
  pressureFields,
  type RawPressure,
  type Resident,
} from "./l1_pressure.ts";

/** The devices' windows, or why l1_pressure cannot be given at all. */
export function pressureWindows(
  pdb: ProfilerDb,
  scope: RankScope,
): { windows: L1Window[] } | { why: string } {
  const unattributed = unattributable(pdb, scope, ["devices"]);
  if (unattributed !== null) return { why: `l1_pressure is withheld: ${unattributed}.` };
  const windows = devicesAt(pdb, scope).map(l1Window).filter((w): w is L1Window => w !== null);
  if (windows.length === 0) {
    return {
      why: "l1_pressure is null: this report's devices record no L1 geometry " +
        "(address_at_first_l1_cb_buffer, l1_bank_size and worker_l1_size).",
    };
  }
  return { windows };
}

/** operation_detail's l1_pressure: its most constrained device after the operation. */
export interface OperationL1Pressure extends PressureFields {
  /** Devices with an L1 window, each measured. */
  devices_evaluated: number;
  size_unit: "bytes_per_bank";
  free_space_precision: "upper_bound";
}

/** l1_pressure of one operation from its snapshot, with the caveat that goes with it. */
export function l1PressureOfOperation(
  pdb: ProfilerDb,
  scope: RankScope,
  id: number,
  snapshot: readonly BufferRow[],
): { l1_pressure: OperationL1Pressure | null; caveat: string } {
  const basis = pressureWindows(pdb, scope);
  if ("why" in basis) return { l1_pressure: null, caveat: basis.why };
  if (snapshot.length === 0) {
    return {
      l1_pressure: null,
      caveat: `l1_pressure is null: operation ${id} has no buffers rows, so the capture ` +
        "recorded no snapshot of what was allocated after it.",
    };
  }
  const byDevice = new Map<number, Resident[]>();
  for (const b of snapshot) {
    if (b.type !== "L1" && b.type !== "L1_SMALL") continue;
    if (b.device_id === null || b.address === null || b.size === null) continue;
    let list = byDevice.get(b.device_id);
    if (!list) byDevice.set(b.device_id, list = []);
    list.push({ address: b.address, size: b.size });
  }
  const p = operationPressure(basis.windows, byDevice)!;
  const window = basis.windows.find((w) => w.device_id === p.device_id)!;
  return {
    l1_pressure: {
      ...pressureFields(p, window),
      devices_evaluated: basis.windows.length,
      size_unit: "bytes_per_bank",
      free_space_precision: "upper_bound",
    },
    caveat: [L1_PRESSURE_CAVEAT, strayDevices(basis.windows, [...byDevice.keys()])].filter(Boolean)
      .join(" "),
  };
}

/** An operation's most constrained device, as ranked. */
export type RankedPressure = RawPressure & { operation_id: number };

/** Smallest largest free block first, then the fuller, then the lower operation id. */
const TIGHTER = (a: RankedPressure, b: RankedPressure) =>
  a.largest_free_block - b.largest_free_block || b.used_bytes - a.used_bytes ||
  a.operation_id - b.operation_id;

/**
 * Accumulates every operation's most constrained device, one operation at a time (an
 * operation with buffers rows but no L1 buffer counts as empty L1), keeping the tightest.
 */
export class PressureTally {
  #known: Set<number>;
  #empty: RawPressure;
  #top = new TopK<RankedPressure>(MAX_RANKED, TIGHTER);
  #operations = 0;
  #stray = new Set<number>();
  #addresses: number[] = [];
  #sizes: number[] = [];

  constructor(readonly windows: readonly L1Window[]) {
    this.#known = new Set(windows.map((w) => w.device_id));
    this.#empty = operationPressure(windows, new Map())!;
  }

  /** Adds one operation's live L1 buffers. */
  add(b: OperationBuffers): void {
    this.#operations++;
    const flat = b.l1;
    let raw: RawPressure;
    if (flat.length === 0) raw = this.#empty;
    else if (this.windows.length === 1) {
      // One device (the common case): no grouping, no objects per buffer.
      const only = this.windows[0].device_id;
      let n = 0;
      for (let i = 0; i < flat.length; i += 3) {
        if (flat[i] !== only) {
          this.#stray.add(flat[i]);
          continue;
        }
        this.#addresses[n] = flat[i + 1];
        this.#sizes[n++] = flat[i + 2];
      }
      raw = measurePairs(this.windows[0], this.#addresses, this.#sizes, n);
    } else {
      const byDevice = new Map<number, Resident[]>();
      for (let i = 0; i < flat.length; i += 3) {
        const d = flat[i];
        if (!this.#known.has(d)) {
          this.#stray.add(d);
          continue;
        }
        let list = byDevice.get(d);
        if (!list) byDevice.set(d, list = []);
        list.push({ address: flat[i + 1], size: flat[i + 2] });
      }
      raw = operationPressure(this.windows, byDevice)!;
    }
    const ranked = { ...raw, operation_id: b.operation_id };
    if (this.#top.wouldKeep(ranked)) this.#top.offer(ranked);
  }

  /** The tightest operations (at most MAX_RANKED), how many were measured, stray devices. */
  result(): { operations: number; top: RankedPressure[]; strayDevices: number[] } {
    return {
      operations: this.#operations,
      top: this.#top.items(),
      strayDevices: [...this.#stray].sort((a, b) => a - b),
    };
  }
}

/** A caveat part for L1 buffers on devices whose geometry the report does not give. */
export function strayDevices(windows: readonly L1Window[], devices: readonly number[]): string {
  const known = new Set(windows.map((w) => w.device_id));
  const stray = devices.filter((d) => !known.has(d)).sort((a, b) => a - b);
  if (stray.length === 0) return "";
  return `L1 buffers on device${stray.length > 1 ? "s" : ""} ${stray.join(", ")} are left out ` +
    "of l1_pressure: the devices table gives no L1 geometry for them.";
}
