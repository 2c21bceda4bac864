/**
 * The cores a circular buffer's `core_range_set` covers. tt-metal prints a CoreRangeSet as
 * `{[(x=0,y=0) - (x=7,y=6)], [(x=0,y=7) - (x=3,y=7)]}`: each range is inclusive at both corners,
 * and ranges may overlap, so the cores are counted distinct. A text naming no range (`{}`, an
 * empty string, or one this reader does not recognise) covers no core.
 *
 * @module
 */

/** A single range covering more cores than this is not expanded (no device has that many). */
export const MAX_RANGE_CORES = 65536;

const RANGE =
  /\(\s*x\s*=\s*(\d+)\s*,\s*y\s*=\s*(\d+)\s*\)\s*-\s*\(\s*x\s*=\s*(\d+)\s*,\s*y\s*=\s*(\d+)\s*\)/g;

/**
 * The distinct cores (as `"x,y"`) a core range set names, or null when one of its ranges spans
 * more than {@link MAX_RANGE_CORES} cores — a text no device could have written.
 *
 * @example
 * ```ts
 * import { coresIn } from "./core_ranges.ts";
 * const cores = coresIn("{[(x=0,y=0) - (x=1,y=1)], [(x=1,y=1) - (x=2,y=1)]}");
 * if (cores?.size !== 5) throw new Error();
 * if (coresIn("{}")?.size !== 0) throw new Error();
 * ```
 */
export function coresIn(text: unknown): Set<string> | null {
  const cores = new Set<string>();
  if (typeof text !== "string") return cores;
  for (const m of text.matchAll(RANGE)) {
    const [x0, y0, x1, y1] = m.slice(1, 5).map(Number);
    const [xa, xb] = x0 <= x1 ? [x0, x1] : [x1, x0];
    const [ya, yb] = y0 <= y1 ? [y0, y1] : [y1, y0];
    if ((xb - xa + 1) * (yb - ya + 1) > MAX_RANGE_CORES) return null;
    for (let x = xa; x <= xb; x++) for (let y = ya; y <= yb; y++) cores.add(`${x},${y}`);
  }
  return cores;
}
