/**
 * Aligning, in order, the device operations a profiler report launched against the
 * performance rows: all or nothing, trailing rows tolerated, and a capture that recorded each
 * operation once per device collapsed to the merged rows. Pure functions over sequences.
 *
 * @module
 */

/** One device operation a profiler operation launched. */
export interface DeviceOp {
  operation_id: number;
  name: string;
}

/** A performance row as the alignment sees it: its CSV line and raw op code. */
export interface AlignRow {
  id: number;
  raw_op_code: string;
}

/** Which sequence the rows were matched on. */
export type MatchedOn =
  | "function_start"
  | "function_end"
  | "function_start_collapsed"
  | "function_end_collapsed";

/** A successful match: `pairs[i]` links `devops[i]` to `rows[i]`. */
export interface Match {
  matchedOn: MatchedOn;
  pairs: { op: DeviceOp; row: AlignRow }[];
}

/**
 * The pairs when every device op names its row's raw op code in order, or null. Fails on an
 * empty sequence or one longer than the rows; rows after the last device op are ignored.
 *
 * @example
 * ```ts
 * import { align } from "./_link_align.ts";
 * const rows = [{ id: 2, raw_op_code: "A" }, { id: 3, raw_op_code: "B" }, { id: 4, raw_op_code: "C" }];
 * if (align([{ operation_id: 1, name: "A" }, { operation_id: 2, name: "B" }], rows)?.length !== 2) throw new Error();
 * if (align([{ operation_id: 1, name: "B" }], rows) !== null) throw new Error();
 * ```
 */
export function align(
  devops: readonly DeviceOp[],
  rows: readonly AlignRow[],
): { op: DeviceOp; row: AlignRow }[] | null {
  if (devops.length === 0 || devops.length > rows.length) return null;
  for (let i = 0; i < devops.length; i++) {
    if (rows[i].raw_op_code !== devops[i].name) return null;
  }
  return devops.map((op, i) => ({ op, row: rows[i] }));
}

/**
 * One copy of each (operation, name) that occurs exactly `devices` times, in first-seen order;
 * others are dropped. Unchanged for one device or none.
 */
export function collapse(devops: readonly DeviceOp[], devices: number): DeviceOp[] {
  if (devices <= 1) return [...devops];
  const count = new Map<string, number>();
  const key = (d: DeviceOp) => `${d.operation_id}\u0000${d.name}`;
  for (const d of devops) count.set(key(d), (count.get(key(d)) ?? 0) + 1);
  const seen = new Set<string>();
  const out: DeviceOp[] = [];
  for (const d of devops) {
    const k = key(d);
    if (count.get(k) !== devices || seen.has(k)) continue;
    seen.add(k);
    out.push(d);
  }
  return out;
}

/** The same (operation, name) pairs, however many times each, in either order. */
function sameMultiset(a: readonly DeviceOp[], b: readonly DeviceOp[]): boolean {
  if (a.length !== b.length) return false;
  const key = (d: DeviceOp) => `${d.operation_id}\u0000${d.name}`;
  const count = new Map<string, number>();
  for (const d of a) count.set(key(d), (count.get(key(d)) ?? 0) + 1);
  for (const d of b) {
    const n = count.get(key(d)) ?? 0;
    if (n === 0) return false;
    count.set(key(d), n - 1);
  }
  return true;
}

/**
 * The match of the start-order and end-order device-op sequences against the rows, or null
 * when they do not line up. Tried in order: start order; end order (a child enqueued before
 * its parent), only when both orders hold the same operations; then each collapsed to one
 * copy per device, valid only when every op occurred exactly once per device.
 */
export function matchSequences(
  starts: readonly DeviceOp[],
  ends: readonly DeviceOp[],
  rows: readonly AlignRow[],
  devices: number,
): Match | null {
  const raw = align(starts, rows);
  if (raw) return { matchedOn: "function_start", pairs: raw };
  if (!sameMultiset(starts, ends)) return null;
  const byEnd = align(ends, rows);
  if (byEnd) return { matchedOn: "function_end", pairs: byEnd };
  if (devices <= 1) return null;
  for (
    const [seq, matchedOn] of [[starts, "function_start_collapsed"], [
      ends,
      "function_end_collapsed",
    ]] as const
  ) {
    const collapsed = collapse(seq, devices);
    if (collapsed.length * devices !== seq.length) continue;
    const pairs = align(collapsed, rows);
    if (pairs) return { matchedOn, pairs };
  }
  return null;
}
