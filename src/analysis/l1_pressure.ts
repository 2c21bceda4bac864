/**
 * How full each device's L1 was after an operation, from the buffers snapshot: the L1 and
 * L1_SMALL buffers live at that point, clipped to the device's allocatable window, merged,
 * and measured for fullness, free segments and the largest free block. The most constrained
 * device — the one with the smallest largest free block — is the one reported. Circular
 * buffers and intra-operation tensors are not in the snapshot, so free space is an upper bound.
 *
 * @module
 */
import { round3 } from "../kit/rounding.ts";
import type { L1Window } from "../profiler_db/mod.ts";

/** One device's L1 after an operation, in bytes per bank. */
export interface L1Pressure {
  device_id: number;
  fullness_pct: number;
  free_segments: number;
  largest_free_block: number;
  largest_free_pct: number;
  used_bytes: number;
  usable_bytes: number;
}

/** A live L1 buffer: its address and bytes per bank. */
export interface Resident {
  address: number;
  size: number;
}

/** The integer figures of one device's pressure, before percentages are rounded. */
export interface RawPressure {
  device_id: number;
  used_bytes: number;
  usable_bytes: number;
  free_segments: number;
  largest_free_block: number;
}

/**
 * The pressure on one device's window from its live L1 buffers. A buffer listed twice at one
 * address counts once, at its largest size; ranges that overlap or touch merge; every gap —
 * before the first buffer and after the last included — is a free segment.
 */
export function measure(window: L1Window, residents: readonly Resident[]): RawPressure {
  return measurePairs(window, residents.map((r) => r.address), residents.map((r) => r.size));
}

/**
 * `measure` over parallel address and size arrays (the first `n` entries), which it sorts in
 * place — the allocation-free form a scan of every operation uses.
 */
export function measurePairs(
  window: L1Window,
  addresses: number[],
  sizes: number[],
  n = addresses.length,
): RawPressure {
  // Insertion sort by address, largest size first at one address: a snapshot holds a few
  // buffers per device, so this beats building and sorting objects.
  for (let i = 1; i < n; i++) {
    const a = addresses[i];
    const z = sizes[i];
    let j = i - 1;
    while (j >= 0 && (addresses[j] > a || (addresses[j] === a && sizes[j] < z))) {
      addresses[j + 1] = addresses[j];
      sizes[j + 1] = sizes[j];
      j--;
    }
    addresses[j + 1] = a;
    sizes[j + 1] = z;
  }
  let used = 0;
  let segments = 0;
  let largest = 0;
  let cursor = window.start; // end of the last used range (or the window start)
  let openFrom = -1;
  let openTo = -1;
  let lastAddress = NaN;
  // Counts the free gap from the cursor up to `to`, if any.
  const freeUpTo = (to: number) => {
    if (to > cursor) {
      segments++;
      if (to - cursor > largest) largest = to - cursor;
    }
  };
  // Closes the merged used range: the free gap before it, then the range itself.
  const close = () => {
    freeUpTo(openFrom);
    used += openTo - openFrom;
    cursor = openTo;
  };
  for (let i = 0; i < n; i++) {
    if (addresses[i] === lastAddress) continue; // the same buffer again: largest came first
    lastAddress = addresses[i];
    const from = Math.max(addresses[i], window.start);
    const to = Math.min(addresses[i] + sizes[i], window.end);
    if (to <= from) continue;
    if (openFrom >= 0 && from <= openTo) {
      if (to > openTo) openTo = to;
      continue;
    }
    if (openFrom >= 0) close();
    openFrom = from;
    openTo = to;
  }
  if (openFrom >= 0) close();
  freeUpTo(window.end);
  return {
    device_id: window.device_id,
    used_bytes: used,
    usable_bytes: window.end - window.start,
    free_segments: segments,
    largest_free_block: largest,
  };
}

/** A measured pressure with its percentages (three decimals, as Python rounds). */
export function present(p: RawPressure): L1Pressure {
  return {
    device_id: p.device_id,
    fullness_pct: round3((p.used_bytes / p.usable_bytes) * 100)!,
    free_segments: p.free_segments,
    largest_free_block: p.largest_free_block,
    largest_free_pct: round3((p.largest_free_block / p.usable_bytes) * 100)!,
    used_bytes: p.used_bytes,
    usable_bytes: p.usable_bytes,
  };
}

/**
 * The pressure on one device's window, with its percentages.
 *
 * @example
 * ```ts
 * import { pressureOn } from "./l1_pressure.ts";
 * const p = pressureOn({ device_id: 0, start: 0, end: 100 }, [
 *   { address: 10, size: 10 }, { address: 20, size: 10 }, { address: 60, size: 50 },
 * ]);
 * if (p.used_bytes !== 60 || p.free_segments !== 2 || p.largest_free_block !== 30) throw new Error();
 * if (p.fullness_pct !== 60 || p.largest_free_pct !== 30) throw new Error();
 * ```
 */
export function pressureOn(window: L1Window, residents: readonly Resident[]): L1Pressure {
  return present(measure(window, residents));
}

/** The most constrained of several devices: smallest largest free block, then fullest, then lowest id. */
export function mostConstrained<P extends RawPressure>(pressures: readonly P[]): P | null {
  let best: P | null = null;
  for (const p of pressures) {
    if (
      best === null || p.largest_free_block < best.largest_free_block ||
      (p.largest_free_block === best.largest_free_block &&
        (p.used_bytes > best.used_bytes ||
          (p.used_bytes === best.used_bytes && p.device_id < best.device_id)))
    ) best = p;
  }
  return best;
}

/**
 * The most constrained device after one operation, given its live L1 buffers per device and
 * every device's window; devices without buffers at that operation count as empty.
 */
export function operationPressure(
  windows: readonly L1Window[],
  residentsByDevice: ReadonlyMap<number, readonly Resident[]>,
): RawPressure | null {
  return mostConstrained(
    windows.map((w) => measure(w, residentsByDevice.get(w.device_id) ?? [])),
  );
}

/** What every l1_pressure caveat says about reading the figures. */
export const L1_PRESSURE_CAVEAT =
  "l1_pressure is derived from the buffers table alone: circular buffers and tensors " +
  "allocated and freed inside an operation are absent, so its free-space figures " +
  "(free_segments, largest_free_block, largest_free_pct) are an upper bound and fullness_pct " +
  "a lower bound. Its figures are bytes per bank within [address_at_first_l1_cb_buffer, " +
  "address_at_first_l1_cb_buffer + l1_bank_size), capped at worker_l1_size, on the most " +
  "constrained device (smallest largest free block); a whole-tensor size in bytes is not " +
  "comparable to them.";

/** An l1_pressure figure in an answer: the pressure and the window it was measured in. */
export interface PressureFields extends L1Pressure {
  /** [start, end) of the allocatable window, in bytes per bank. */
  window: [number, number];
}

/** The fields of an l1_pressure figure in an answer. */
export function pressureFields(raw: RawPressure, window: L1Window): PressureFields {
  const p = present(raw);
  return {
    device_id: p.device_id,
    fullness_pct: p.fullness_pct,
    free_segments: p.free_segments,
    largest_free_block: p.largest_free_block,
    largest_free_pct: p.largest_free_pct,
    used_bytes: p.used_bytes,
    usable_bytes: p.usable_bytes,
    window: [window.start, window.end],
  };
}
