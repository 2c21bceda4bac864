/**
 * The timeline's coverage sweep against a brute-force count over every pair, on seeded random
 * intervals, and on a capture whose every interval overlaps every other.
 */
import assert from "node:assert/strict";
import { coverage, type Span } from "../../src/device_log/timeline.ts";
import { random } from "../../scripts/_random.ts";

const op = {} as never;

function bruteForce(spans: readonly Span[]) {
  let pairs = 0;
  let cycles = 0;
  for (let i = 0; i < spans.length; i++) {
    for (let j = i + 1; j < spans.length; j++) {
      const a = spans[i];
      const b = spans[j];
      const overlap = Math.min(a.end, b.end) - Math.max(a.start, b.start);
      if (overlap > 0) {
        pairs++;
        cycles += overlap;
      }
    }
  }
  return { pairs, cycles };
}

Deno.test("overlapping pairs and their time match a count over every pair", () => {
  // Prevents the rank-sum shortcut miscounting ties, nested intervals or zero-length ones.
  const rnd = random(20261129);
  for (let trial = 0; trial < 200; trial++) {
    const n = 1 + Math.floor(rnd() * 40);
    const spans: Span[] = Array.from({ length: n }, () => {
      const start = Math.floor(rnd() * 100);
      return { start, end: start + Math.floor(rnd() * 30), op };
    });
    const c = coverage(spans, 1000);
    const expected = bruteForce(spans);
    assert.equal(c.overlappingPairs, expected.pairs, `trial ${trial}`);
    assert.equal(c.overlapCycles, expected.cycles, `trial ${trial}`);
    assert.equal(c.pairs.length, expected.pairs, `trial ${trial}: every pair kept`);
    assert.equal(c.busy - c.intervalSum - c.gapSum, c.residual);
  }
});

Deno.test("a capture whose every interval overlaps every other is counted exactly, pairs capped", () => {
  // Prevents a quadratic sweep hanging on a damaged CSV whose firmware windows all overlap.
  const n = 30_000;
  const spans: Span[] = Array.from({ length: n }, (_, i) => ({ start: i, end: n + i, op }));
  const c = coverage(spans, 50);
  assert.equal(c.overlappingPairs, (n * (n - 1)) / 2);
  assert.equal(c.pairs.length, 50);
  // Pair (i, j), i < j, overlaps from j to n + i: n − (j − i) cycles.
  let expected = 0;
  for (let d = 1; d < n; d++) expected += (n - d) * (n - d);
  assert.equal(c.overlapCycles, expected);
});
