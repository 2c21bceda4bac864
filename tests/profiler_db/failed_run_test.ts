/** The committed failed-run fixture (scripts/_profiler_failed_run.ts), read whole. */
import assert from "node:assert/strict";
import { loaded } from "./_fixtures.ts";

type Row = Record<string, unknown>;

Deno.test("the failed-run fixture's errors: one attached out-of-memory, every other row unattached", async () => {
  // Prevents the fixture other tools test against drifting from what it documents.
  const r = await loaded("v2_1_failed_run");
  const a = await r.call("errors");
  assert.deepEqual(
    (a.errors as Row[]).map((e) => [
      e.operation_id,
      e.attached,
      (e.allocation_failure as Row | null)?.kind ?? null,
      (e.diagnosis as Row | null)?.reason ?? null,
      e.failed_device_operations,
    ]),
    // The attached error first, then the unattached ones (ids as their rows record them).
    [
      [13, true, "out_of_memory", "not_enough_free_space", ["MatmulDeviceOperation"]],
      [0, false, null, null, null],
      [13, false, null, null, null],
      [10000, false, "out_of_memory_after_dependencies", "free_block_could_hold_it", null],
      [10000, false, "circular_buffers_beyond_l1", "beyond_end_of_l1", null],
      [10000, false, "circular_buffers_clash", "overlaps_l1_buffer", null],
    ],
  );
  assert.equal(a.unattached_count, 5);
});

Deno.test("the failed-run fixture's fallbacks: the retry and the mismatch, not the view", async () => {
  // Prevents the retry, the mismatch or the view exclusion regressing on a whole capture.
  const r = await loaded("v2_1_failed_run");
  const a = await r.call("dram_fallbacks");
  assert.deepEqual((a.fallbacks as Row[]).map((f) => [f.operation_id, f.signal]), [
    [14, "retry_after_failure"],
    [15, "argument_mismatch"],
  ]);
  assert.equal(a.operations_read, 16);
});
