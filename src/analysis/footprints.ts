/**
 * Memory footprint per operation, keyed by buffer type: the buffers table records what was
 * live after each operation, so an operation's sum of one type is the footprint at that point
 * of the run, and the largest of them is that type's largest footprint — a maximum, never a
 * sum across the run (a buffer live across many operations appears under each). Types are
 * never added to one another (each is bytes per bank of its own bank count), and on a
 * multi-device report an operation's footprint is its most loaded device's.
 *
 * @module
 */
import type { OperationBuffers } from "../profiler_db/mod.ts";
import { TopK } from "../kit/top_k.ts";

/** One operation's footprint of one type. */
export interface Footprint {
  operation_id: number;
  /** Bytes per bank on its most loaded device. */
  size: number;
  device_id: number | null;
}

/** One buffer type across the run. */
export interface TypeFootprints {
  /** The largest footprint (0 when none is above 0). */
  peak: number;
  /** Operations whose footprint equals the peak (0 when the peak is 0). */
  atPeak: number;
  /** Operations with a buffer of this type. */
  operations: number;
  /** The largest footprints, largest first, ties by id (at most MAX_RANKED). */
  top: Footprint[];
}

/** A ranking never lists more than this (the tools' cap). */
export const MAX_RANKED = 100;

/** Larger first, then lower operation id. */
const LARGER = (a: Footprint, b: Footprint) => b.size - a.size || a.operation_id - b.operation_id;

/** Accumulates footprints per type, one operation at a time. */
export class FootprintTally {
  #types = new Map<
    string,
    { peak: number; atPeak: number; operations: number; top: TopK<Footprint> }
  >();
  #devices = new Set<number>();

  /** Adds one operation: per type, its most loaded device (ties to the lowest id). */
  add(b: OperationBuffers): void {
    for (let k = 0; k < b.types.length; k++) {
      if (b.devices[k] >= 0) this.#devices.add(b.devices[k]);
      let best = true;
      for (let j = 0; j < b.types.length; j++) {
        if (j === k || b.types[j] !== b.types[k]) continue;
        if (
          b.sums[j] > b.sums[k] ||
          (b.sums[j] === b.sums[k] && b.devices[j] < b.devices[k])
        ) best = false;
      }
      if (!best) continue;
      const type = b.types[k];
      let t = this.#types.get(type);
      if (!t) {
        this.#types.set(
          type,
          t = { peak: 0, atPeak: 0, operations: 0, top: new TopK(MAX_RANKED, LARGER) },
        );
      }
      const size = b.sums[k];
      t.operations++;
      if (size > t.peak) {
        t.peak = size;
        t.atPeak = 1;
      } else if (size === t.peak && size > 0) t.atPeak++;
      const footprint = {
        operation_id: b.operation_id,
        size,
        device_id: b.devices[k] >= 0 ? b.devices[k] : null,
      };
      if (t.top.wouldKeep(footprint)) t.top.offer(footprint);
    }
  }

  /** Per type name (sorted), and the devices seen. */
  result(): { byType: Map<string, TypeFootprints>; devices: number[] } {
    const byType = new Map<string, TypeFootprints>();
    for (const type of [...this.#types.keys()].sort()) {
      const t = this.#types.get(type)!;
      byType.set(type, {
        peak: t.peak,
        atPeak: t.atPeak,
        operations: t.operations,
        top: t.top.items(),
      });
    }
    return { byType, devices: [...this.#devices].sort((a, b) => a - b) };
  }
}
