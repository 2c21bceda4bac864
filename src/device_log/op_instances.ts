/**
 * Operation instances on one device's clock: each performance row's interval as the users'
 * method defines it — from the earliest kernel start over all its cores and RISCs to the
 * latest firmware end (DEVICE FW END CYCLE, the last "done" any core sent) — beside its
 * firmware interval (DEVICE FW START to END CYCLE), as cycles from one origin per device so
 * that operations compare exactly. Rows come from the merged report; each contributes the
 * CSV line of the asked device.
 *
 * @module
 */
import { cellOf, type CsvTable, type PerfRow, rowCountOf, rowIndexOf } from "../perf_report/mod.ts";
import { LOW_BASE } from "./cycles.ts";
import type { KernelWindows } from "./summary.ts";

/** One operation instance on the device. */
export interface OpInstance {
  /** The CSV line of this device's row (what perf_id names). */
  perfId: number;
  /** The merged report's row it belongs to (op code, category). */
  row: PerfRow;
  window: number;
  /** Cycles from the device's origin; null when no kernel zone of it is in the log. */
  kernelStart: number | null;
  /**
   * Whether that earliest kernel start is a RISC's whose kernel zones did not pair inside the
   * window (a start without an end, or an end without a start): the interval is then bounded
   * by a zone the log did not close.
   */
  startUnpaired: boolean;
  fwStart: number;
  fwEnd: number;
  /** METAL TRACE REPLAY SESSION ID, or null for an eager operation. */
  replay: string | null;
}

/** The operations of one device, in start order, and what could not be placed. */
export interface DeviceOps {
  device: number;
  /** Placed operations (firmware cycles known), by kernel start then firmware start. */
  ops: OpInstance[];
  /** Device rows without DEVICE FW START/END CYCLE: they cannot be placed on the timeline. */
  withoutFirmwareCycles: number;
  /** Placed rows with no kernel zone in the log: no op interval. */
  withoutKernelZones: number;
}

/** The devices any row of `rows` ran on, lowest first. */
export function devicesOf(rows: readonly PerfRow[], table: CsvTable): number[] {
  const dev = column(table, "DEVICE ID");
  const found = new Set<number>();
  for (const r of rows) {
    if (r.is_signpost || r.is_host_op) continue;
    for (const line of r.merged_ids ?? [r.id]) {
      const d = Number(cellOf(table, rowIndexOf(line), dev).trim());
      if (dev >= 0 && Number.isInteger(d)) found.add(d);
    }
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * Device `device`'s instances of `rows` (signposts and host operations skipped), placed on
 * its clock from `windows`.
 */
export function deviceOps(
  rows: readonly PerfRow[],
  table: CsvTable,
  windows: KernelWindows,
  device: number,
): DeviceOps {
  const dev = column(table, "DEVICE ID");
  const replayCol = column(table, "METAL TRACE REPLAY SESSION ID");
  const found: { perfId: number; row: PerfRow; window: number }[] = [];
  let withoutFirmwareCycles = 0;
  for (const row of rows) {
    if (row.is_signpost || row.is_host_op) continue;
    for (const line of row.merged_ids ?? [row.id]) {
      if (
        rowIndexOf(line) >= rowCountOf(table) ||
        Number(cellOf(table, rowIndexOf(line), dev).trim()) !== device
      ) {
        continue;
      }
      const w = windows.rowWindow[rowIndexOf(line)] ?? -1;
      if (w < 0 || !windows.bounded[w]) withoutFirmwareCycles++;
      else found.push({ perfId: line, row, window: w });
    }
  }
  let oHi = Infinity;
  let oLo = Infinity;
  for (const f of found) {
    const hi = windows.baseHi[f.window];
    const lo = windows.baseLo[f.window];
    if (hi < oHi || (hi === oHi && lo < oLo)) [oHi, oLo] = [hi, lo];
  }
  let withoutKernelZones = 0;
  const ops: OpInstance[] = found.map((f) => {
    const w = f.window;
    const fwStart = (windows.baseHi[w] - oHi) * LOW_BASE + (windows.baseLo[w] - oLo);
    let first = Infinity;
    let startUnpaired = false;
    for (let k = windows.starts[w]; k < windows.starts[w + 1]; k++) {
      if (windows.first[k] < first) {
        first = windows.first[k];
        startUnpaired = windows.balance[k] !== 0;
      }
    }
    if (first === Infinity) withoutKernelZones++;
    const replay = replayCol < 0 ? "" : cellOf(table, rowIndexOf(f.perfId), replayCol).trim();
    return {
      perfId: f.perfId,
      row: f.row,
      window: w,
      kernelStart: first === Infinity ? null : fwStart + first,
      startUnpaired,
      fwStart,
      fwEnd: fwStart + windows.length[w],
      replay: replay === "" ? null : replay,
    };
  });
  ops.sort((a, b) =>
    (a.kernelStart ?? a.fwStart) - (b.kernelStart ?? b.fwStart) || a.fwStart - b.fwStart ||
    a.perfId - b.perfId
  );
  return { device, ops, withoutFirmwareCycles, withoutKernelZones };
}

function column(table: CsvTable, name: string): number {
  return table.header.findIndex((h) => h.trim() === name);
}
