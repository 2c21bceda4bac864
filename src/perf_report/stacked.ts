/**
 * tt-perf-report's stacked (summary) report (`generate_stacked_report`), with the pandas and
 * numpy arithmetic that makes each figure bit-exact: Kahan group sums and means, Welford
 * standard deviation, numpy pairwise sums for the total and the weighted mean.
 * @module
 */

import { compareCodePoints, pyFirstToken } from "./_python.ts";
import { isHostOp, isSignpostOp } from "./_rows.ts";
import { kahanMean, kahanSum, numpySum, welfordStd } from "./summation.ts";
import type { PerfRow, StackedGroupBy, StackedRow } from "./types.ts";

/** What the stacked report reads of a per-op row. */
export type StackedInputRow = Pick<
  PerfRow,
  "op_code" | "device" | "device_time" | "flops_percent" | "op_category" | "input_0_memory"
>;

/** Options of the stacked report. */
export interface StackedOptions {
  groupBy: StackedGroupBy;
  /** Group by (key, device) and take shares per device (`--no-merge-devices`). */
  perDevice?: boolean;
  /** Host rows are already gone (`--no-host-ops`); otherwise they count with time 0. */
  noHostOps?: boolean;
}

/** One group's rows: their times and FLOP shares in row order, and the first category. */
interface Group {
  key: string;
  device: number | null;
  times: number[];
  flops: number[];
  category: string | null;
  add(time: number, flops: number, category: string | null): void;
}

function newGroup(key: string, device: number | null): Group {
  return {
    key,
    device,
    times: [],
    flops: [],
    category: null,
    add(time, flops, category) {
      this.times.push(time);
      this.flops.push(flops);
      if (this.category === null) this.category = category;
    },
  };
}

function memoryKey(opName: string, memory: string | null): string | null {
  if (memory === null) return opName;
  const parts = memory.split("_");
  if (parts.length < 2) return null;
  const p2 = parts[parts.length - 2].toLowerCase();
  const p1 = parts[parts.length - 1].toLowerCase();
  return `${opName} (in0:${p2}_${p1})`;
}

function groupKey(row: StackedInputRow, groupBy: StackedGroupBy): string | null {
  if (groupBy === "category") return row.op_category;
  const opName = pyFirstToken(row.op_code) ?? null;
  if (opName === null) return null;
  return groupBy === "memory" ? memoryKey(opName, row.input_0_memory) : opName;
}

function nanToNull(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}

/**
 * The stacked report over the final per-op rows, in the tool's order (descending device time;
 * equal times keep key order). Signposts are left out; host rows count with device time 0
 * unless `noHostOps`. Returns null when no row is left (the tool then writes no report).
 */
export function generateStackedReport(
  rows: readonly StackedInputRow[],
  options: StackedOptions,
): StackedRow[] | null {
  const input = rows.filter((r) => !isSignpostOp(r.op_code));
  if (input.length === 0) return null;
  // A row's key, and whether it is a host op, by its op code (and input memory): rows share
  // their op codes' strings, so a large report has few to look at.
  const byCode = new Map<string, { key: string | null; host: boolean }>();
  const byMemory = new Map<string | null, Map<string, string | null>>();
  // Each group's rows as columns, in row order (no object a row).
  const groups = new Map<string, Group>();
  // Per key across devices, for the weighted mean (the groups themselves, unless per device).
  const byKey = new Map<string, Group>();
  let any = false;
  for (const r of input) {
    let code = byCode.get(r.op_code);
    if (code === undefined) {
      byCode.set(
        r.op_code,
        code = {
          key: options.groupBy === "op" ? groupKey(r, "op") : null,
          host: isHostOp(r.op_code),
        },
      );
    }
    let key = code.key;
    if (options.groupBy === "category") key = r.op_category;
    else if (options.groupBy === "memory") {
      let codes = byMemory.get(r.input_0_memory);
      if (codes === undefined) byMemory.set(r.input_0_memory, codes = new Map());
      let found = codes.get(r.op_code);
      if (found === undefined) codes.set(r.op_code, found = groupKey(r, "memory"));
      key = found;
    }
    const time = (!options.noHostOps && code.host ? 0 : r.device_time) ?? NaN;
    if (key === null) continue;
    if (options.perDevice && r.device === null) continue;
    any = true;
    const device = options.perDevice ? r.device : null;
    const id = options.perDevice ? `${device ?? ""}\u0000${key}` : key;
    const flops = r.flops_percent ?? NaN;
    let g = groups.get(id);
    if (g === undefined) groups.set(id, g = newGroup(key, device));
    g.add(time, flops, r.op_category);
    if (options.perDevice) {
      let k = byKey.get(key);
      if (k === undefined) byKey.set(key, k = newGroup(key, null));
      k.add(time, flops, r.op_category);
    }
  }
  if (!any) return null;
  const ordered = [...groups.values()].sort((a, b) =>
    compareCodePoints(a.key, b.key) || (a.device ?? 0) - (b.device ?? 0)
  );
  const weighted = new Map<string, number | null>();
  if (options.groupBy !== "category") {
    for (const list of (options.perDevice ? byKey : groups).values()) {
      const products: number[] = [];
      const times: number[] = [];
      for (let i = 0; i < list.times.length; i++) {
        const f = list.flops[i];
        if (Number.isNaN(f)) continue;
        products.push(f * list.times[i]);
        times.push(list.times[i]);
      }
      if (times.length === 0) {
        weighted.set(list.key, null);
        continue;
      }
      const numerator = numpySum(products);
      const denominator = numpySum(times);
      weighted.set(list.key, denominator === 0 ? null : numerator / denominator);
    }
  }
  const out: StackedRow[] = ordered.map((g) => {
    const row: StackedRow = {
      percent: 0,
      op_code_joined: g.key,
      device_time_sum_us: kahanSum(g.times).sum,
      ops_count: g.times.length,
    };
    if (options.perDevice) row.device = g.device!;
    if (options.groupBy !== "category") {
      const flops = g.flops.filter((f) => !Number.isNaN(f));
      row.op_category = g.category;
      row.flops_min = flops.length ? flops.reduce((a, b) => Math.min(a, b)) : null;
      row.flops_max = flops.length ? flops.reduce((a, b) => Math.max(a, b)) : null;
      row.flops_mean = nanToNull(kahanMean(flops));
      row.flops_std = nanToNull(welfordStd(flops));
      row.flops_weighted_mean = weighted.get(g.key) ?? null;
    }
    return row;
  });
  if (options.perDevice) {
    const totals = new Map<number, number[]>();
    for (const r of out) {
      const list = totals.get(r.device!);
      if (list) list.push(r.device_time_sum_us);
      else totals.set(r.device!, [r.device_time_sum_us]);
    }
    const sums = new Map([...totals].map(([d, v]) => [d, kahanSum(v).sum]));
    for (const r of out) {
      const p = (r.device_time_sum_us / sums.get(r.device!)!) * 100;
      r.percent = Number.isNaN(p) ? 0 : p;
    }
  } else {
    const total = numpySum(out.map((r) => r.device_time_sum_us));
    for (const r of out) {
      const p = total !== 0 ? (r.device_time_sum_us / total) * 100 : 0;
      r.percent = Number.isNaN(p) ? 0 : p;
    }
  }
  return sortDescendingByTime(out);
}

/**
 * pandas' `sort_values(ascending=False)`: reverse, sort ascending, reverse. With a stable sort
 * this keeps equal times in their original (key) order.
 */
function sortDescendingByTime(rows: StackedRow[]): StackedRow[] {
  const reversed = [...rows].reverse();
  const indexed = reversed.map((r, i) => ({ r, i }));
  indexed.sort((a, b) => a.r.device_time_sum_us - b.r.device_time_sum_us || a.i - b.i);
  return indexed.map((x) => x.r).reverse();
}

/** Splits on whitespace like Python's `str.split()` (exported for the tools' own grouping). */
export function opCodeFirstWord(opCode: string): string | null {
  return pyFirstToken(opCode) ?? null;
}
