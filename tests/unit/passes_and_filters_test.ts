/**
 * The pieces behind slicing a capture: passes found only where the whole op sequence repeats,
 * cold told from warm, the op-code filter's exact-then-prefix rule, and the host-time caveat's
 * cache misses and steady-state advice.
 */
import assert from "node:assert/strict";
import { passesOf } from "../../src/analysis/passes.ts";
import { carriesLabel, opFilter } from "../../src/analysis/op_filter.ts";
import { hostTimeCaveat, steadyStateAdvice } from "../../src/analysis/host_time.ts";
import type { PerfRow } from "../../src/perf_report/types.ts";

function row(id: number, op: string, gap: number, device = 10): PerfRow {
  return {
    id,
    op_code: op,
    raw_op_code: op.split(" ")[0],
    is_signpost: false,
    device_time: device,
    op_to_op_gap: gap,
  } as PerfRow;
}

Deno.test("passes are found only when the whole op sequence repeats, cold told from warm", () => {
  // Prevents a partial repeat, or one op run over and over, listed as passes.
  const rows = [2, 3, 4, 5, 6, 7].map((id, i) => row(id, i % 2 ? "B" : "A", id < 4 ? 900 : 1));
  const { passes, warm_pass } = passesOf({ rows });
  assert.deepEqual(
    passes.map((p) => [p.start_row, p.end_row, p.cold]),
    [[2, 3, true], [4, 5, false], [6, 7, false]],
  );
  assert.equal(warm_pass, 3);
  assert.equal(
    passesOf({ rows: [row(2, "A", 1), row(3, "B", 1), row(4, "A", 1)] }).passes.length,
    0,
  );
  assert.equal(
    passesOf({ rows: [row(2, "A", 1), row(3, "A", 1)] }).passes.length,
    0,
    "one op is no sequence",
  );
  const missed = passesOf({
    rows: [row(2, "A", 1), row(3, "B", 1), row(4, "A", 1), row(5, "B", 1)],
  }, (r) => r.id === 4);
  assert.deepEqual(
    missed.passes.map((p) => p.cold),
    [false, true],
    "a cache miss makes a pass cold",
  );
  assert.equal(missed.warm_pass, 1);
  const unordered = [row(3, "A", 1), row(2, "B", 1), row(4, "A", 1), row(5, "B", 1)];
  assert.equal(
    passesOf({ rows: unordered }).passes.length,
    0,
    "rows out of line order are no range",
  );
});

Deno.test("an op-code filter takes the exact printed label first, then a prefix, else refuses", () => {
  // Prevents "Matmul 32 x 8192 x 2048" pooling every matmul, or a typo answering with nothing.
  const rows = [
    row(2, "Matmul 32 x 8192 x 2048", 1),
    row(3, "Matmul 32 x 2048 x 8192", 1),
    row(4, "LayerNorm", 1),
  ];
  assert.deepEqual(opFilter("t", rows, "Matmul 32 x 8192 x 2048").rows.map((r) => r.id), [2]);
  assert.deepEqual(opFilter("t", rows, "Matmul").said, {
    op_code: "Matmul",
    matched: "exact",
    rows: 2,
  });
  assert.deepEqual(opFilter("t", rows, "Layer").said.matched, "prefix");
  assert.throws(() => opFilter("t", rows, "Conv"), /the op codes here: Matmul, LayerNorm/);
  assert.ok(carriesLabel(rows[0], " Matmul 32 x 8192 x 2048 "));
  assert.ok(!carriesLabel(rows[0], "Matmul 32"));
});

Deno.test("the host-time caveat counts recorded cache misses and names the warm pass", () => {
  // Prevents "3 of 24 first calls" where PROGRAM CACHE HIT is False on all 24, and advice to
  // use start_occurrence on a capture without signposts.
  const totals = { op_to_op_gap_us: 1000, device_time_us: 10 };
  const text = hostTimeCaveat(
    totals,
    { first_calls: 3, device_ops: 24, cache: { misses: 24, recorded: 24 } },
    "",
    steadyStateAdvice(false, { warm_pass: 2, passes: [{ pass: 1 }, { pass: 2 }] }),
  )!;
  assert.match(text, /24 of the 24 device operations here missed the program cache/);
  assert.match(text, /read pass 2 \(pass: 2, warm/);
  assert.doesNotMatch(text, /start_occurrence/);
  assert.match(steadyStateAdvice(false, { warm_pass: null, passes: [] }), /start_row\/end_row/);
  assert.match(steadyStateAdvice(true, { warm_pass: null, passes: [] }), /start_occurrence/);
});
