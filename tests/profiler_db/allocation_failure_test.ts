import assert from "node:assert/strict";
import {
  CORE_RANGE_CAP_CHARS,
  diagnose,
  FIGURES_READ_CHARS,
  parseAllocationFailure,
} from "../../src/analysis/allocation_failure.ts";
import { isDeviceOperation, launchesIn } from "../../src/profiler_db/device_launches.ts";
import * as M from "./_allocation_messages.ts";

function parsed(text: string) {
  const f = parseAllocationFailure(M.framed(text));
  assert.ok(f, `parsed: ${text.slice(0, 60)}`);
  return f;
}

Deno.test("the current plain out-of-memory message gives every bank figure", () => {
  // Prevents a figure read from the wrong group, or the statistics being dropped.
  const f = parsed(M.B);
  assert.equal(f.kind, "out_of_memory");
  assert.equal(f.buffer_type, "L1");
  assert.deepEqual(
    [f.requested_bytes, f.num_banks, f.bytes_per_bank, f.bank_size_bytes],
    [3276800, 4, 819200, 1382720],
  );
  assert.deepEqual([f.allocated_bytes, f.free_bytes, f.largest_free_block_bytes], [
    1000000,
    382720,
    300000,
  ]);
  assert.equal(f.placeable_bytes, null);
  assert.equal(f.largest_placeable_bytes, null);
});

Deno.test("the older plain message without statistics leaves them null and has no diagnosis", () => {
  // Prevents reporting free space a pre-statistics tt-metal never stated.
  const f = parsed(M.A);
  assert.equal(f.bank_size_bytes, 1382720);
  assert.equal(f.free_bytes, null);
  assert.equal(f.largest_free_block_bytes, null);
  assert.equal(diagnose(f), null);
});

Deno.test("the oldest plain message, with no bank size, is still an out-of-memory failure", () => {
  // Prevents a 2024 capture's allocation failure reading as an ordinary error.
  const f = parsed(M.PLAIN_OLDEST);
  assert.equal(f.kind, "out_of_memory");
  assert.equal(f.buffer_type, "DRAM");
  assert.equal(f.bytes_per_bank, 1218560);
  assert.equal(f.bank_size_bytes, null);
  assert.equal(diagnose(f), null);
});

Deno.test("every generation of the dependency message is read, placeable figures where stated", () => {
  // Prevents the newest tail, the middle form or the oldest form going unrecognised.
  const d = parsed(M.D);
  assert.equal(d.kind, "out_of_memory_after_dependencies");
  assert.deepEqual(
    [d.requested_bytes, d.num_banks, d.bytes_per_bank, d.bank_size_bytes, d.free_bytes],
    [4096, 2, 2048, 8192, 5120],
  );
  assert.deepEqual([d.placeable_bytes, d.largest_placeable_bytes], [2048, 1024]);
  const middle = parsed(M.D_MIDDLE);
  assert.equal(middle.largest_free_block_bytes, 3072);
  assert.equal(middle.placeable_bytes, null);
  const oldest = parsed(M.DEPS_OLDEST);
  assert.deepEqual([oldest.requested_bytes, oldest.bytes_per_bank, oldest.bank_size_bytes], [
    1024,
    1024,
    null,
  ]);
});

Deno.test("both circular-buffer failures are read in either core-range spelling", () => {
  // Prevents the clash's addresses (no B suffix) or the newer [0-0 - 7-9] spelling being missed.
  const g = parsed(M.G);
  assert.equal(g.kind, "circular_buffers_beyond_l1");
  assert.equal(g.core_range, "[(x=0,y=0) - (x=7,y=7)]");
  assert.deepEqual([g.circular_buffer_region_end, g.max_l1_bytes], [1600000, 1499136]);
  const f = parsed(M.F);
  assert.equal(f.kind, "circular_buffers_clash");
  assert.equal(f.core_range, "[(x=0,y=0) - (x=4,y=7)]");
  assert.deepEqual([f.l1_buffer_address, f.circular_buffer_region_end], [600256, 621824]);
  assert.equal(parsed(M.R9).core_range, "[0-0 - 7-9]");
  assert.equal(parsed(M.R10).core_range, "[0-0 - 7-9]");
  assert.equal(parsed(M.R10).l1_buffer_address, 1511424);
});

Deno.test("a message wrapped across lines is read as if on one", () => {
  // Prevents a logged copy, wrapped by the logger, losing its figures.
  const f = parseAllocationFailure(M.framed(M.B.replaceAll(", ", ",\n   ")));
  assert.equal(f?.free_bytes, 382720);
});

Deno.test("messages that are not allocation failures give none", () => {
  // Prevents figures invented for an ordinary error or an incomplete operation.
  for (
    const text of [
      "Shape mismatch: expected [1, 32] got [1, 64]",
      "Operation 'ttnn.conv2d' started but never completed (likely crashed)",
      "Statically allocated dataflow buffers on core range [0-0 - 7-9] grow to 2 B which is " +
      "beyond max L1 size of 1 B",
      "",
    ]
  ) {
    assert.equal(parseAllocationFailure(text), null, text);
  }
  assert.equal(parseAllocationFailure(null), null);
});

Deno.test("only a message's first 32,768 characters are read", () => {
  // Prevents an unbounded scan of a pathological message.
  const padding = "x".repeat(FIGURES_READ_CHARS);
  assert.equal(parseAllocationFailure(padding + M.B), null);
  assert.equal(parseAllocationFailure(padding.slice(0, 100) + M.B)?.kind, "out_of_memory");
});

Deno.test("a core range past the cap is cut and its length given", () => {
  // Prevents a thousand-range core set filling the answer.
  const long = Array.from({ length: 60 }, (_, i) => `[(x=${i},y=0) - (x=${i},y=9)]`).join(", ");
  const f = parsed(
    `Statically allocated circular buffers on core range {${long}} grow to 1600000 B which is ` +
      "beyond max L1 size of 1499136 B",
  );
  assert.equal(f.core_range!.length, CORE_RANGE_CAP_CHARS);
  assert.equal(f.core_range_full_length, long.length + 2);
  assert.equal(f.circular_buffer_region_end, 1600000);
});

Deno.test("the worked diagnoses match the reference figures", () => {
  // Prevents a wrong comparison order or a total compared where a per-bank figure belongs.
  const b = diagnose(parsed(M.B))!;
  assert.equal(b.reason, "not_enough_free_space");
  assert.equal(b.shortfall_bytes, 436480);
  assert.match(b.detail, /426 KiB per bank, and possibly by more/);
  assert.match(b.detail, /interleaved region/);
  const c = diagnose(parsed(M.C))!;
  assert.equal(c.reason, "not_enough_free_space");
  assert.equal(c.shortfall_bytes, 428);
  assert.doesNotMatch(c.detail, /interleaved/);
  const d = diagnose(parsed(M.D))!;
  assert.equal(d.reason, "free_block_could_hold_it");
  assert.match(d.detail, /reserved by other allocators.*1 KiB/);
  const e = diagnose(parsed(M.E))!;
  assert.equal(e.reason, "fragmented");
  assert.match(e.detail, /977 KiB is free.*largest is 293 KiB/);
  assert.equal(diagnose(parsed(M.R2))!.reason, "fragmented");
  assert.deepEqual(diagnose(parsed(M.F)), {
    reason: "overlaps_l1_buffer",
    label: "Overlaps an L1 buffer",
    detail: diagnose(parsed(M.F))!.detail,
    overlap_bytes: 21568,
  });
  const g = diagnose(parsed(M.G))!;
  assert.equal(g.overrun_bytes, 100864);
  assert.match(g.detail, /99 KiB past/);
});

Deno.test("the diagnosis boundaries fall where the reference puts them", () => {
  // Prevents an off-by-one turning a fragmented bank into a shortfall, or equal into larger.
  const of = (perBank: number, bank: number, free: number, largest: number, type = "DRAM") =>
    diagnose(parsed(M.plain(type, perBank, bank, free, largest)))!.reason;
  assert.equal(of(1000, 4000, 1000, 999), "fragmented");
  assert.equal(of(1000, 4000, 2000, 1000), "free_block_could_hold_it");
  assert.equal(of(4000, 4000, 100, 50), "not_enough_free_space");
  assert.equal(of(4001, 4000, 3000, 3000), "larger_than_empty_bank");
  const plainBlock = diagnose(parsed(M.plain("DRAM", 1000, 4000, 2000, 1500)))!;
  assert.match(plainBlock.detail, /does not say why/);
  assert.equal(plainBlock.shortfall_bytes, undefined);
  const l1Small = diagnose(parsed(M.plain("L1_SMALL", 1000, 4000, 2000, 900)))!;
  assert.match(l1Small.detail, /interleaved region/);
});

Deno.test("a request larger than an empty bank is said so even without statistics", () => {
  // Prevents the one diagnosis an older message supports being skipped.
  const f = parsed(
    "Out of Memory: Not enough space to allocate 41295872 B DRAM buffer across 12 banks, where " +
      "each bank needs to store 3442688 B, but bank size is only 3000000 B",
  );
  assert.equal(diagnose(f)?.reason, "larger_than_empty_bank");
});

Deno.test("an unrecognised buffer type is null, not guessed", () => {
  // Prevents a future enum name being passed off as a known buffer type.
  assert.equal(parsed(M.plain("FOO", 10, 20, 5, 5)).buffer_type, null);
});

const start = (name: string) => ({ node_type: "function_start", params: { name } });
const end = (name: string, aborted?: unknown) => ({
  node_type: "function_end",
  params: aborted === undefined ? { name } : { name, aborted, abort_reason: "oom" },
});

Deno.test("a launch closed aborted, or never closed, is failed; others completed", () => {
  // Prevents a failed launch reading as one that reached the device, in either capture shape.
  const l = launchesIn([
    { node_type: "capture_start", params: {} },
    start("ttnn.conv2d"),
    start("Halo"),
    end("Halo"),
    start("Conv2d"),
    end("Conv2d", "true"),
    start("Conv2d"),
    end("Conv2d", true),
    start("MatmulDeviceOperation"),
    end("ttnn.conv2d"),
  ]);
  assert.deepEqual(l, {
    completed: ["Halo"],
    failed: ["Conv2d", "Conv2d", "MatmulDeviceOperation"],
  });
});

Deno.test('only true or exactly "true" marks a launch aborted', () => {
  // Prevents "True" or "false" failing a launch that completed.
  const l = launchesIn([start("A"), end("A", "True"), start("B"), end("B", "false")]);
  assert.deepEqual(l, { completed: ["A", "B"], failed: [] });
});

Deno.test("an end with no open start closes nothing, and host functions are not device operations", () => {
  // Prevents a stray end closing another scope, or ttnn.* names counted as launches.
  const l = launchesIn([end("X"), start("Tilize"), end("Other"), end("Tilize")]);
  assert.deepEqual(l, { completed: ["Tilize"], failed: [] });
  assert.ok(!isDeviceOperation("(torch) add"));
});

Deno.test("a graph that is not a node list, or has a nameless scope, is unreadable", () => {
  // Prevents a damaged graph reported as having no failed launch.
  assert.equal(typeof launchesIn({}), "string");
  assert.equal(typeof launchesIn([{ node_type: "function_start", params: {} }]), "string");
  assert.deepEqual(launchesIn([]), { completed: [], failed: [] });
});
