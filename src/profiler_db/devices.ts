/**
 * The devices table: each device's L1 geometry. A device id with more than one row is read as
 * its last row, as the web application reads it, and devices are counted by distinct id. The
 * report records no DRAM capacity at all (tt-metal's report file carries the DRAM channel
 * figures, but the importer drops them).
 *
 * @module
 */
import { memo, type ProfilerDb, rows } from "./connection.ts";
import { andRank, type RankScope } from "./host_rank.ts";

/** The geometry columns read, when the report has them. */
export const GEOMETRY_COLUMNS = [
  "worker_l1_size",
  "l1_num_banks",
  "l1_bank_size",
  "address_at_first_l1_cb_buffer",
  "num_compute_cores",
  "total_l1_for_tensors",
] as const;

/** One device's row (last row wins); a column the report lacks reads as null. */
export type Device =
  & { device_id: number }
  & Record<(typeof GEOMETRY_COLUMNS)[number], number | null>;

/** The devices at the rank, by id ascending; empty without a devices table. */
export function devicesAt(pdb: ProfilerDb, scope: RankScope): Device[] {
  if (!pdb.schema.hasColumn("devices", "device_id")) return [];
  return memo(pdb, `devices\u0000${scope.rank}`, () => {
    const present = GEOMETRY_COLUMNS.filter((c) => pdb.schema.hasColumn("devices", c));
    const byId = new Map<number, Device>();
    for (
      const r of rows<Record<string, unknown>>(
        pdb,
        `SELECT device_id${present.map((c) => `, ${c}`).join("")} FROM devices ` +
          `WHERE device_id IS NOT NULL${andRank(pdb, scope, "devices")} ORDER BY rowid`,
      )
    ) {
      const device = { device_id: Number(r.device_id) } as Device;
      for (const c of GEOMETRY_COLUMNS) device[c] = num(r[c]);
      byId.set(device.device_id, device); // last row wins
    }
    return [...byId.values()].sort((a, b) => a.device_id - b.device_id);
  });
}

/** The address range a device's L1 figures are bounded to, in bytes per bank. */
export interface L1Window {
  device_id: number;
  /** address_at_first_l1_cb_buffer: where the allocatable region starts. */
  start: number;
  /** start + l1_bank_size, capped at worker_l1_size. */
  end: number;
}

/**
 * A device's L1 window, or null when its row records no usable L1 geometry.
 *
 * @example
 * ```ts
 * import { l1Window } from "./devices.ts";
 * const d = { device_id: 0, worker_l1_size: 1499136, l1_num_banks: 64, l1_bank_size: 1370848,
 *   address_at_first_l1_cb_buffer: 103712, num_compute_cores: 64, total_l1_for_tensors: 0 };
 * const w = l1Window(d);
 * if (w?.start !== 103712 || w.end !== 1474560) throw new Error();
 * if (l1Window({ ...d, address_at_first_l1_cb_buffer: null }) !== null) throw new Error();
 * ```
 */
export function l1Window(d: Device): L1Window | null {
  const start = d.address_at_first_l1_cb_buffer;
  const bank = d.l1_bank_size;
  const worker = d.worker_l1_size;
  if (start === null || bank === null || worker === null || start < 0 || bank <= 0) return null;
  const end = Math.min(start + bank, worker);
  return end > start ? { device_id: d.device_id, start, end } : null;
}

/** memory_profile's device block: how many devices, and the first one's L1 geometry. */
export interface DeviceBlock
  extends Partial<Record<(typeof GEOMETRY_COLUMNS)[number], number | null>> {
  devices: number;
  /** The device the geometry is read from; absent without devices. */
  geometry_from_device?: number;
  /** Always null: the report records no DRAM capacity. */
  dram_capacity: null;
}

/** The device block of memory_profile: counts and the L1 geometry figures are read against. */
export function deviceBlock(devices: readonly Device[]): DeviceBlock {
  if (devices.length === 0) return { devices: 0, dram_capacity: null };
  const first = devices[0];
  return {
    devices: devices.length,
    geometry_from_device: first.device_id,
    ...Object.fromEntries(GEOMETRY_COLUMNS.map((c) => [c, first[c]])),
    dram_capacity: null,
  };
}

/** Whether the devices disagree on the geometry the block reports from one of them. */
export function geometryDiffers(devices: readonly Device[]): boolean {
  return devices.some((d) =>
    d.worker_l1_size !== devices[0].worker_l1_size ||
    d.l1_bank_size !== devices[0].l1_bank_size ||
    d.l1_num_banks !== devices[0].l1_num_banks ||
    d.address_at_first_l1_cb_buffer !== devices[0].address_at_first_l1_cb_buffer
  );
}

function num(v: unknown): number | null {
  if (v === null || v === undefined || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
