/**
 * A deterministic pseudo-random stream (mulberry32): the fixture generators and seeded tests
 * draw from it so the same seed gives the same bytes on every machine.
 *
 * @example
 * ```ts
 * import { random } from "./_random.ts";
 * const a = random(7), b = random(7);
 * if (a() !== b() || a() < 0 || a() >= 1) throw new Error();
 * ```
 */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
