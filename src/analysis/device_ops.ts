/**
 * What device_timeline, core_utilisation and core_states share: the handle's report over a
 * signpost window, its device log read once, and the operation instances of one device placed
 * on that device's clock.
 *
 * @module
 */
import { deviceLogSummary, timelineUnavailable } from "../session/device_log.ts";
import {
  type DeviceLogSummary,
  type DeviceOps,
  deviceOps,
  devicesOf,
  type KernelWindows,
  type OpInstance,
} from "../device_log/mod.ts";
import { cellOf, type CsvTable, type PerfReport, rowIndexOf } from "../perf_report/mod.ts";
import { round3 } from "../kit/rounding.ts";
import {
  performanceReport,
  performanceTable,
  type Projection,
  type SignpostRange,
  subDeviceCaveat,
} from "./performance.ts";
import type { ReportCall } from "../session/handles.ts";
import { Refusal } from "../kit/refusal.ts";
import { carriesLabel } from "./op_filter.ts";

/** One device's operations in a window, and everything they were read from. */
export interface DeviceSelection {
  perf: PerfReport;
  projection: Projection;
  table: CsvTable;
  log: DeviceLogSummary;
  windows: KernelWindows;
  devices: number[];
  ops: DeviceOps;
  clockMhz: number;
}

/**
 * The operations of `device` (default the lowest) inside `range`, with the log read. Refuses
 * when the handle cannot answer (no log, no clock, no type column …), for a device no row ran
 * on, and when the log holds no kernel zone for any of them.
 */
export async function deviceSelection(
  call: ReportCall,
  range: SignpostRange,
  device: number | undefined,
): Promise<DeviceSelection> {
  const { report, tool } = call;
  const why = timelineUnavailable(report.inventory);
  if (why !== null) throw new Refusal(`${tool} cannot answer for ${report.handle}: ${why}`);
  const table = performanceTable(call);
  const { perf, projection } = performanceReport(call, range);
  const log = await deviceLogSummary(call);
  const windows = log.spans!.windows;
  const devices = devicesOf(perf.rows, table);
  if (devices.length === 0) {
    throw new Refusal(`${tool}: no device operation in the ${where(range)}`);
  }
  const chosen = device ?? devices[0];
  if (!devices.includes(chosen)) {
    throw new Refusal(
      `${tool}: no operation of the ${where(range)} ran on device ${chosen}; devices: ` +
        devices.join(", "),
    );
  }
  return {
    perf,
    projection,
    table,
    log,
    windows,
    devices,
    ops: deviceOps(perf.rows, table, windows, chosen),
    clockMhz: log.clockMhz!,
  };
}

function where(range: SignpostRange): string {
  return range.start_signpost !== undefined || range.end_signpost !== undefined
    ? "signpost window"
    : "report";
}

/** An answer's `<name>_cycles` and `<name>_us`. */
export type Timed<N extends string> = { [K in `${N}_cycles` | `${N}_us`]: number };

/** `<name>_cycles` and `<name>_us` (at the log's clock), to spread into an answer. */
export function timed<N extends string>(name: N, cycles: number, clockMhz: number): Timed<N> {
  return { [`${name}_cycles`]: cycles, [`${name}_us`]: round3(cycles / clockMhz)! } as Timed<N>;
}

/** µs at the clock, rounded to 3 decimals. */
export function usOf(cycles: number, clockMhz: number): number {
  return round3(cycles / clockMhz)!;
}

/** Caveats every timeline answer may carry: rows that could not be placed, other devices. */
export function placementCaveats(sel: DeviceSelection): string[] {
  const out: string[] = [];
  const { ops, devices } = sel;
  const subDevices = subDeviceCaveat(sel.perf);
  if (subDevices !== null) out.push(subDevices[0].toUpperCase() + subDevices.slice(1));
  if (ops.withoutFirmwareCycles > 0) {
    out.push(
      `${ops.withoutFirmwareCycles} device ${ops.device} rows have no DEVICE FW START/END ` +
        "CYCLE, so they have no place on the device's clock and are left out.",
    );
  }
  if (ops.withoutKernelZones > 0) {
    out.push(
      `${ops.withoutKernelZones} device ${ops.device} operations have no kernel zone in the ` +
        "device log (the profiler's buffer may have filled, or the capture stopped), so they " +
        "have no op interval and are left out.",
    );
  }
  const short = coresShort(sel);
  if (short.ops > 0) {
    out.push(
      `${short.ops} device ${ops.device} operations recorded kernel zones on fewer cores than ` +
        `their CORE COUNT (${short.missing} core-instances missing; e.g. perf_id ` +
        `${short.example}): the profiler may have dropped them, so their cores' busy time is ` +
        "understated.",
    );
  }
  if (devices.length > 1) {
    out.push(
      `Figures are device ${ops.device}'s only; the window also ran on devices ${
        devices.filter((d) => d !== ops.device).join(", ")
      } (pass device to read another).`,
    );
  }
  if (sel.log.leftOut.kernel > 0) {
    out.push(
      `${sel.log.leftOut.kernel} kernel rows of the device log were left out because a slot, ` +
        `core, run host ID or cycle count is not a whole number below 2^64 (first at line ${sel.log.leftOut.firstLine}).`,
    );
  }
  return out;
}

/**
 * Placed operations whose log holds kernel zones on fewer cores than their CORE COUNT; a core
 * whose record had stopped before the operation is unknown there, not missing, so it counts
 * as accounted for.
 */
function coresShort(sel: DeviceSelection): { ops: number; missing: number; example: number } {
  const col = sel.table.header.findIndex((h) => h.trim() === "CORE COUNT");
  const out = { ops: 0, missing: 0, example: 0 };
  if (col < 0) return out;
  const w = sel.windows;
  for (const op of sel.ops.ops) {
    if (op.kernelStart === null) continue;
    const expected = Number(cellOf(sel.table, rowIndexOf(op.perfId), col).trim());
    const figures = sel.log.spans!.byRow.get(rowIndexOf(op.perfId))?.figures;
    const recorded = figures?.cores ?? 0;
    let dark = 0;
    if (w.darkStarts[op.window] < w.darkStarts[op.window + 1]) {
      const here = new Set<number>();
      for (let k = w.starts[op.window]; k < w.starts[op.window + 1]; k++) {
        here.add(sel.log.lanes[w.lane[k]].core);
      }
      for (let k = w.darkStarts[op.window]; k < w.darkStarts[op.window + 1]; k++) {
        if (!here.has(w.darkCores[k])) dark++;
      }
    }
    if (Number.isInteger(expected) && recorded + dark < expected) {
      out.ops++;
      out.missing += expected - recorded - dark;
      if (out.example === 0) out.example = op.perfId;
    }
  }
  return out;
}

/** The operations a perf_id or op_code names among the device's, or all of them. */
export function selectOps(
  { tool }: ReportCall,
  sel: DeviceSelection,
  perfId: number | string | undefined,
  opCode: string | undefined,
): { ops: OpInstance[]; what: string } {
  const all = sel.ops.ops;
  if (perfId !== undefined) {
    const id = Number(perfId);
    const op = all.find((o) => o.perfId === id) ?? all.find((o) => o.row.id === id);
    if (!op) {
      throw new Refusal(
        `${tool}: no device ${sel.ops.device} operation has perf_id ${id} in the window (ids ` +
          "are the CSV's lines, as top_ops gives them; signposts and host operations ran on " +
          "no device's cores)",
      );
    }
    return { ops: [op], what: `perf_id ${op.perfId} (${op.row.raw_op_code})` };
  }
  if (opCode !== undefined) {
    const ops = all.filter((o) => carriesLabel(o.row, opCode));
    if (ops.length === 0) {
      const codes = [...new Set(all.map((o) => o.row.raw_op_code))].slice(0, 20);
      throw new Refusal(
        `${tool}: no device ${sel.ops.device} operation has op code ${
          JSON.stringify(opCode)
        } in the window; op codes there: ${codes.join(", ")}`,
      );
    }
    return { ops, what: `op_code ${opCode} (${ops.length} instances)` };
  }
  return { ops: all, what: "every operation in the window" };
}

/** Placed operations whose interval starts at a kernel zone the log did not close, in order. */
export function unpairedStarts(ops: readonly OpInstance[]): OpInstance[] {
  return ops.filter((o) => o.kernelStart !== null && o.startUnpaired);
}

/**
 * What a caveat says of intervals that start at an unpaired kernel zone, or null: the start
 * is a row the log holds, but the zone it opens never closed there (or closed without one).
 */
export function unpairedStartCaveat(ops: readonly OpInstance[]): string | null {
  const hit = unpairedStarts(ops);
  if (hit.length === 0) return null;
  const ids = hit.slice(0, 5).map((o) => o.perfId).join(", ");
  return `${hit.length} operation interval${hit.length > 1 ? "s start" : " starts"} at a ` +
    `kernel zone that did not pair inside its window (perf_id ${ids}${
      hit.length > 5 ? ", …" : ""
    }): the start is a recorded row, but the core it ran on has an unknown span there.`;
}
