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

interface Item {
  key: string;
  device: number | null;
  time: number;
  flops: number;
  category: string | null;
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
  const items: Item[] = [];
  // A row's key, and whether it is a host op, by its op code (and input memory): rows share
  // their op codes' strings, so a large report has few to look at.
  const byCode = new Map<string, { key: string | null; host: boolean }>();
  const byMemory = new Map<string | null, Map<string, string | null>>();
  for (const r of input) {
    let code = byCode.get(r.op_code);
    if (code === undefined) {
      byCode.set(
        r.op_code,
        code = {
          key: options.groupBy === "memory" ? null : groupKey(r, options.groupBy),
          host: isHostOp(r.op_code),
        },
      );
    }
    let key = code.key;
    if (options.groupBy === "category") key = r.op_category;
    else if (options.groupBy === "memory") {
      let codes = byMemory.get(r.input_0_memory);
      if (codes === undefined) byMemory.set(r.input_0_memory, codes = new Map());
      key = codes.get(r.op_code) ?? null;
      if (!codes.has(r.op_code)) codes.set(r.op_code, key = groupKey(r, "memory"));
    }
    const time = !options.noHostOps && code.host ? 0 : r.device_time;
    if (key === null) continue;
    if (options.perDevice && r.device === null) continue;
    items.push({
      key,
      device: options.perDevice ? r.device : null,
      time: time ?? NaN,
      flops: r.flops_percent ?? NaN,
      category: r.op_category,
    });
  }
  if (items.length === 0) return null;
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const id = options.perDevice ? `${item.device ?? ""}\u0000${item.key}` : item.key;
    const g = groups.get(id);
    if (g) g.push(item);
    else groups.set(id, [item]);
  }
  const ordered = [...groups.values()].sort((a, b) =>
    compareCodePoints(a[0].key, b[0].key) || (a[0].device ?? 0) - (b[0].device ?? 0)
  );
  const weighted = new Map<string, number | null>();
  if (options.groupBy !== "category") {
    const byKey = new Map<string, Item[]>();
    for (const item of items) {
      const list = byKey.get(item.key);
      if (list) list.push(item);
      else byKey.set(item.key, [item]);
    }
    for (const [key, list] of byKey) {
      const valid = list.filter((i) => !Number.isNaN(i.flops));
      if (valid.length === 0) {
        weighted.set(key, null);
        continue;
      }
      const numerator = numpySum(valid.map((i) => i.flops * i.time));
      const denominator = numpySum(valid.map((i) => i.time));
      weighted.set(key, denominator === 0 ? null : numerator / denominator);
    }
  }
  const out: StackedRow[] = ordered.map((g) => {
    const row: StackedRow = {
      percent: 0,
      op_code_joined: g[0].key,
      device_time_sum_us: kahanSum(g.map((i) => i.time)).sum,
      ops_count: g.length,
    };
    if (options.perDevice) row.device = g[0].device!;
    if (options.groupBy !== "category") {
      const flops = g.map((i) => i.flops).filter((f) => !Number.isNaN(f));
      row.op_category = g.find((i) => i.category !== null)?.category ?? null;
      row.flops_min = flops.length ? flops.reduce((a, b) => Math.min(a, b)) : null;
      row.flops_max = flops.length ? flops.reduce((a, b) => Math.max(a, b)) : null;
      row.flops_mean = nanToNull(kahanMean(flops));
      row.flops_std = nanToNull(welfordStd(flops));
      row.flops_weighted_mean = weighted.get(g[0].key) ?? null;
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
