/**
 * The counter figures on samples of known ratios: req ÷ ref per sample, its median and spread
 * over cores and instances, the pooled Σreq ÷ Σref, FPU utilisation, the groups counters
 * belong to, and the instruction threads' state breakdown with its stated subtraction.
 */
import assert from "node:assert/strict";
import {
  countedCycles,
  counterFigures,
  type CounterSeries,
  groupOf,
  type OpCounters,
} from "../../src/device_log/counters.ts";

/** An operation whose counters have the given (req, ref) per core. */
function op(counters: Record<string, [number, number][]>, replays = [""]): OpCounters {
  const series = new Map<string, CounterSeries>();
  for (const [name, samples] of Object.entries(counters)) {
    series.set(name, {
      name,
      req: samples.map((s) => s[0]),
      ref: samples.map((s) => s[1]),
      core: samples.map((_, i) => 1025 + (i % 4)),
      instance: samples.map((_, i) => Math.floor(i / 4)),
    });
  }
  return { device: 0, run: 7, replays, riscs: new Set(["BRISC"]), series, repeats: 0 };
}

Deno.test("FPU utilisation is FPU_COUNTER ÷ ref: pooled, median and spread", () => {
  // Prevents utilisation averaging ratios where the pooled Σreq ÷ Σref is stated, or the reverse.
  const f = counterFigures([
    op({ FPU_COUNTER: [[500, 1000], [900, 1000], [300, 2000], [700, 1000]] }),
  ]);
  const fpu = f.fpu!;
  assert.equal(fpu.samples, 4);
  assert.equal(fpu.reqSum, 2400);
  assert.equal(fpu.refSum, 5000);
  assert.equal(fpu.pooled, 0.48);
  assert.equal(fpu.min, 0.15);
  assert.equal(fpu.max, 0.9);
  assert.equal(fpu.median, 0.6, "the mean of the middle two of 0.15, 0.5, 0.7, 0.9");
  assert.equal(fpu.mean, (0.5 + 0.9 + 0.15 + 0.7) / 4);
  assert.equal(fpu.refMedian, 1000);
});

Deno.test("several operations pool their samples, as an op code's calls are pooled", () => {
  // Prevents pooling taking one call's figures (or a mean of call means) for all calls.
  const a = op({ FPU_COUNTER: [[100, 1000]] });
  const b = op({ FPU_COUNTER: [[900, 1000], [800, 1000]] }, ["", "1"]);
  const f = counterFigures([a, b]);
  assert.equal(f.operations, 2);
  assert.equal(f.instances, 3);
  assert.equal(f.fpu!.samples, 3);
  assert.equal(f.fpu!.pooled, 0.6);
  assert.equal(f.fpu!.median, 0.8);
});

Deno.test("counters fall into their tt-metal groups; unknown names stay apart", () => {
  // Prevents a counter being grouped with another group's, which would license subtracting
  // counters of different refs.
  const f = counterFigures([op({
    FPU_COUNTER: [[1, 10]],
    MATH_INSTRN_AVAILABLE: [[1, 10]],
    AVAILABLE_MATH: [[1, 10]],
    FPU_INSTRN_AVAILABLE_1: [[1, 10]],
    L1_0_NOC_RING0_OUTGOING_0: [[1, 10]],
    NOC_RING0_OUTGOING_0: [[1, 10]],
    SOMETHING_NEW: [[1, 10]],
  })]);
  assert.deepEqual(
    f.groups.map((g) => [g.group, g.counters.map((c) => c.name)]),
    [
      ["FPU", ["FPU_COUNTER"]],
      ["INSTRN_THREAD", ["FPU_INSTRN_AVAILABLE_1"]],
      ["TDMA_UNPACK", ["MATH_INSTRN_AVAILABLE"]],
      ["TDMA_PACK", ["AVAILABLE_MATH"]],
      ["L1_0", ["L1_0_NOC_RING0_OUTGOING_0"]],
      ["L1", ["NOC_RING0_OUTGOING_0"]],
      ["unknown", ["SOMETHING_NEW"]],
    ],
  );
  assert.equal(groupOf("WAITING_FOR_NONZERO_SEM_2"), "INSTRN_THREAD");
  assert.equal(groupOf("SRCA_WRITE_THREAD1"), "TDMA_UNPACK");
});

/** The math thread's states as the users' talk measured them (per 10,000 cycles). */
const MATH_THREAD = {
  CFG_INSTRN_AVAILABLE_1: [[495, 10000]],
  SYNC_INSTRN_AVAILABLE_1: [[116, 10000]],
  THCON_INSTRN_AVAILABLE_1: [[0, 10000]],
  MOVE_INSTRN_AVAILABLE_1: [[0, 10000]],
  FPU_INSTRN_AVAILABLE_1: [[9199, 10000]],
  UNPACK_INSTRN_AVAILABLE_1: [[0, 10000]],
  PACK_INSTRN_AVAILABLE_1: [[0, 10000]],
  THREAD_STALLS_1: [[169, 10000]],
} as Record<string, [number, number][]>;

Deno.test("the math thread's states sum, and the rest is the stated subtraction", () => {
  // Prevents the head-of-buffer breakdown losing a state or its unaccounted remainder.
  const f = counterFigures([op(MATH_THREAD)]);
  assert.equal(f.threads.length, 1);
  const t = f.threads[0];
  assert.equal(t.thread, 1);
  assert.match(t.role, /math/);
  assert.deepEqual(t.missing, [], "XSEARCH is not needed: Blackhole never reads it");
  const math = t.states.find((s) => s.state === "MATH")!;
  assert.equal(math.counter, "FPU_INSTRN_AVAILABLE_1");
  assert.equal(math.stats.pooled, 0.9199);
  assert.equal(t.states.find((s) => s.state === "STALLED")!.stats.pooled, 0.0169);
  assert.ok(Math.abs(t.accounted! - 0.9979) < 1e-12);
  assert.ok(Math.abs(t.unaccounted! - 0.0021) < 1e-12);
});

Deno.test("a thread missing a state counter gives no unaccounted share", () => {
  // Prevents a missing counter's share being reported as unaccounted cycles.
  const partial = { ...MATH_THREAD };
  delete partial.SYNC_INSTRN_AVAILABLE_1;
  const t = counterFigures([op(partial)]).threads[0];
  assert.deepEqual(t.missing, ["SYNC_INSTRN_AVAILABLE_1"]);
  assert.equal(t.unaccounted, null);
});

Deno.test("samples over their ref and with ref 0 are counted apart", () => {
  // Prevents a wrapped ref cnt passing for a utilisation over 100%, or a 0 ref dividing.
  const f = counterFigures([op({ FPU_COUNTER: [[1500, 1000], [10, 0], [500, 1000]] })]);
  assert.equal(f.fpu!.overOne, 1);
  assert.equal(f.fpu!.zeroRef, 1);
  assert.equal(f.fpu!.samples, 2);
});

Deno.test("operations are ranked by the cycles their FPU counter counted", () => {
  // Prevents the default listing ranking by something other than counted cycles.
  assert.equal(countedCycles(op({ FPU_COUNTER: [[1, 1000], [1, 2000]], X: [[1, 9e9]] })), 3000);
  assert.equal(countedCycles(op({ A: [[1, 10]], B: [[1, 20], [1, 30]] })), 50);
});
