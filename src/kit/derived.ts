/**
 * Figures derived from an object that never changes once made (a generated report, a parsed
 * table), made on first need and kept for as long as the object lives: a session asks for the
 * same report's rankings, totals and caveats on every call, and on a 75,000-row report each
 * costs tens to hundreds of milliseconds to make again.
 *
 * @module
 */

const KEPT = new WeakMap<object, Map<string, unknown>>();

/**
 * `make()` for `of` and `key`: made the first time, then the same value while `of` lives. `key`
 * must name everything else the value depends on.
 *
 * @example
 * ```ts
 * import { derivedOf } from "./derived.ts";
 * const report = {};
 * let made = 0;
 * const a = derivedOf(report, "total", () => ++made);
 * if (derivedOf(report, "total", () => ++made) !== a || made !== 1) throw new Error();
 * ```
 */
export function derivedOf<T>(of: object, key: string, make: () => T): T {
  let kept = KEPT.get(of);
  if (kept === undefined) KEPT.set(of, kept = new Map());
  if (kept.has(key)) return kept.get(key) as T;
  const value = make();
  kept.set(key, value);
  return value;
}
