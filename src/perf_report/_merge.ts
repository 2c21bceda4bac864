/**
 * Internal: tt-perf-report's per-device merge (`merge_device_rows`): per-device queues popped in
 * lockstep; collectives keep the lowest device's row with the mean valid duration, every other
 * op keeps its slowest device's row; the result is in CSV order.
 * @module
 */

import { finiteFloat, nonNegativeInt } from "./cells.ts";
import type { RowReader, SourceRow } from "./_source.ts";
import { pythonSum } from "./summation.ts";
import { isCollective } from "./categories.ts";

/** Merges device rows given in host-start-time order; returns rows and tool warnings. */
export function mergeDeviceRows(
  reader: RowReader,
  rows: readonly SourceRow[],
): { rows: SourceRow[]; messages: string[] } {
  const messages: string[] = [];
  const queues = new Map<number, { name: string; row: SourceRow }[]>();
  const nonDevice: SourceRow[] = [];
  for (const row of rows) {
    const opType = reader.value(row, "OP TYPE");
    const deviceId = nonNegativeInt(reader.frame.numeric(row.pos, "DEVICE ID"));
    const name = reader.textOrNull(row, "OP CODE") ?? "nan";
    if (opType === "tt_dnn_device" && deviceId !== null) {
      let queue = queues.get(deviceId);
      if (!queue) queues.set(deviceId, queue = []);
      queue.push({ name, row });
    } else {
      if (opType === "tt_dnn_device") {
        messages.push(
          `Warning: ${name} has no usable DEVICE ID and was not merged across devices.`,
        );
      }
      nonDevice.push(row);
    }
  }
  const deviceIds = [...queues.keys()].sort((a, b) => a - b);
  // Device k's queue and how far it has been popped, by its place in deviceIds.
  const lists = deviceIds.map((d) => queues.get(d)!);
  const heads = deviceIds.map(() => 0);
  const anyLeft = () => lists.some((list, k) => heads[k] < list.length);
  const merged: SourceRow[] = [];
  let globalIndex = 0;
  while (anyLeft()) {
    const blocks: SourceRow[] = [];
    let opName: string | null = null;
    const missing: number[] = [];
    for (let k = 0; k < deviceIds.length; k++) {
      const d = deviceIds[k];
      if (heads[k] === lists[k].length) {
        messages.push(
          `Warning: Device ${d} is missing operation ${opName ?? "None"} at index ${globalIndex}`,
        );
        continue;
      }
      const head = lists[k][heads[k]];
      if (opName === null) opName = head.name;
      else if (opName !== head.name) {
        missing.push(d);
        continue;
      }
      blocks.push(head.row);
      heads[k]++;
    }
    if (missing.length > 0) {
      messages.push(
        `Warning: ${opName} at index ${globalIndex} not present in CSV for ${missing.length} devices [${
          missing.join(", ")
        }] - do not trust data for this op or directly subsequent ops with the same name`,
      );
    }
    if (blocks.length === 0) break;
    let chosen: SourceRow;
    if (isCollective(opName!)) {
      const durations = blocks.map((b) => reader.analysisDuration(b)).filter((d) => d !== null);
      const average = durations.length > 0 ? pythonSum(durations) / durations.length : null;
      chosen = { ...blocks[0], duration: average, merged: blocks.map((b) => b.pos + 2) };
      const overlapNs = finiteFloat(chosen.overlapNs);
      if (overlapNs !== null && average !== null) {
        const capped = Math.min(overlapNs, average);
        chosen.overlapNs = capped;
        chosen.busyNs = average - capped;
      }
    } else {
      chosen = blocks[0];
      let best = reader.analysisDuration(chosen) ?? -1;
      for (let k = 1; k < blocks.length; k++) {
        const d = reader.analysisDuration(blocks[k]) ?? -1;
        if (d > best) {
          best = d;
          chosen = blocks[k];
        }
      }
      // A row no other device's row joins stands for itself: kept as it is, with no list.
      if (blocks.length > 1) chosen = { ...chosen, merged: blocks.map((b) => b.pos + 2) };
    }
    merged.push(chosen);
    globalIndex++;
  }
  const all = [...merged, ...nonDevice].sort((a, b) => a.pos - b.pos);
  return { rows: all, messages };
}
