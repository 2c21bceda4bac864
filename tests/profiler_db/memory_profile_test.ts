import assert from "node:assert/strict";
import { mostConstrained, pressureOn } from "../../src/analysis/l1_pressure.ts";
import { derived, loaded } from "./_fixtures.ts";

type Row = Record<string, unknown>;
type Entry = { operation_id: number; name: string | null; size: number; device_id: number };
const byType = (a: Row) => a.memory_by_buffer_type as Record<string, Row>;
const opsOf = (a: Row, t: string) => (byType(a)[t].operations as Entry[]);

// The fixture's run (scripts/_profiler_model.ts), by hand: L1 after op 5 holds the conv
// output (8,192 B/bank), after 6 also the relu output, after 7 only that; op 8 adds the linear
// output (14,336), op 9 the softmax output (14,336) — 36,864 after ops 9 and 10 — and op 11
// frees the softmax output again. DRAM peaks at 112,640 after op 10 and stays there.

Deno.test("memory_profile ranks operations within each buffer type", async () => {
  // Prevents a ranking across types, or one that is not largest first with ties by id.
  const r = await loaded("w1_python_writer");
  const a = await r.call("memory_profile", { limit: 100 });
  assert.deepEqual(a.buffer_types_present, ["DRAM", "L1", "L1_SMALL"]);
  assert.deepEqual(Object.keys(byType(a)), ["DRAM", "L1", "L1_SMALL"]);
  assert.deepEqual(opsOf(a, "L1").map((o) => [o.operation_id, o.size]), [
    [9, 36864],
    [10, 36864],
    [8, 22528],
    [11, 22528],
    [12, 22528],
    [6, 16384],
    [5, 8192],
    [7, 8192],
  ]);
  assert.equal(opsOf(a, "L1")[0].name, "ttnn.softmax");
  assert.equal(a.size_unit, "bytes_per_bank");
});

Deno.test("a type's peak is its largest footprint, not a sum across the run", async () => {
  // Prevents counting a buffer once per operation it stayed live through.
  const r = await loaded("w1_python_writer");
  const a = await r.call("memory_profile", {});
  assert.equal(byType(a).DRAM.peak, 112640);
  assert.equal(byType(a).L1.peak, 36864);
  assert.equal(byType(a).L1_SMALL.peak, 16384);
});

Deno.test("a shared peak says how many operations hold it", async () => {
  // Prevents a plateau across the run reading as one operation to go and fix.
  const r = await loaded("w1_python_writer");
  const a = await r.call("memory_profile", {});
  assert.equal(byType(a).L1.operations_at_peak, 2);
  assert.equal(byType(a).DRAM.operations_at_peak, 3);
  assert.equal(byType(a).L1_SMALL.operations_at_peak, 8);
  assert.equal(byType(a).L1.operation_count, 8);
});

Deno.test("no figure adds one memory type to another, and no key is a total", async () => {
  // Prevents a cross-type number an agent would read as a quantity.
  const r = await loaded("w1_python_writer");
  const text = JSON.stringify(await r.call("memory_profile", { limit: 100 }));
  for (const sum of [112640 + 36864, 112640 + 36864 + 16384, 36864 + 16384, 112640 + 16384]) {
    assert.ok(!text.includes(String(sum)), `no cross-type sum ${sum}`);
  }
  assert.ok(!/"[a-z_]*total"/.test(text.replace(/total_l1_for_tensors/g, "")));
});

Deno.test("the response says it is a floor, not the peak, and what it leaves out", async () => {
  // Prevents an out-of-memory question being answered from the buffers table.
  const r = await loaded("w1_python_writer");
  const a = await r.call("memory_profile", {});
  assert.match(String(a.note), /floor, not the peak/);
  assert.match(String(a.note), /circular buffer/);
  assert.match(String(a.note), /freed inside one operation/);
  assert.match(String(a.note), /per bank/);
  const absences = a.stated_absences as Record<string, string>;
  assert.match(absences.whole_device_figure, /cannot be derived.*different numbers of banks/s);
  assert.match(absences.dram_capacity, /no DRAM capacity/);
  assert.equal((a.device as Row).dram_capacity, null);
});

Deno.test("sizes come with the device geometry to read them against", async () => {
  // Prevents a per-bank figure read without the bank size it compares to.
  const r = await loaded("w1_python_writer");
  assert.deepEqual((await r.call("memory_profile", {})).device, {
    devices: 1,
    geometry_from_device: 0,
    worker_l1_size: 1499136,
    l1_num_banks: 64,
    l1_bank_size: 1370848,
    address_at_first_l1_cb_buffer: 103712,
    num_compute_cores: 64,
    total_l1_for_tensors: 0,
    dram_capacity: null,
  });
});

Deno.test("one buffer type can be selected, in any case", async () => {
  // Prevents a filter that is case-sensitive or still returns the other types.
  const r = await loaded("w1_python_writer");
  const a = await r.call("memory_profile", { buffer_type: " l1_small " });
  assert.equal(a.buffer_type, "L1_SMALL");
  assert.deepEqual(Object.keys(byType(a)), ["L1_SMALL"]);
  assert.deepEqual(a.buffer_types_present, ["DRAM", "L1", "L1_SMALL"]);
});

Deno.test("a buffer type the report lacks is refused with what it holds; a non-type up front", async () => {
  // Prevents an empty answer for TRACE reading as 'no trace buffers were used', and typos.
  const r = await loaded("w1_python_writer");
  assert.equal(
    await r.refusal("memory_profile", { buffer_type: "trace" }),
    "no TRACE buffers in this report; it holds DRAM, L1, L1_SMALL",
  );
  assert.equal(
    await r.refusal("memory_profile", { buffer_type: "L2" }),
    "unknown buffer_type 'L2'; expected one of DRAM, L1, L1_SMALL, SYSTEM_MEMORY, TRACE",
  );
});

Deno.test("a limit past the cap returns the cap, with the count of every operation", async () => {
  // Prevents an answer the size of the buffers table.
  const rows = Array.from({ length: 150 }, (_, i) => `(${100 + i}, 0, 1920032, 6144, 0)`);
  await using dir = await derived(
    "w1_python_writer",
    `INSERT INTO buffers VALUES ${rows.join(", ")};`,
  );
  const r = await loaded(dir.path);
  const a = await r.call("memory_profile", { buffer_type: "DRAM", limit: 10000 });
  assert.equal(byType(a).DRAM.returned, 100);
  assert.equal(byType(a).DRAM.operation_count, 161);
  assert.equal(opsOf(a, "DRAM").at(-1)!.name, null, "an operation with no operations row");
  assert.equal((a.l1_pressure as Row).returned, 100);
  assert.equal((a.l1_pressure as Row).operation_count, 161);
});

Deno.test("an integer buffer type column and a text one read the same", async () => {
  // Prevents a capture storing text types from losing its footprints.
  await using dir = await derived(
    "w1_python_writer",
    "UPDATE buffers SET buffer_type = CASE buffer_type WHEN 0 THEN 'DRAM' WHEN 1 THEN 'L1' " +
      "ELSE 'L1_SMALL' END;",
  );
  const text = await (await loaded(dir.path)).call("memory_profile", { limit: 100 });
  const ints = await (await loaded("w1_python_writer")).call("memory_profile", { limit: 100 });
  assert.deepEqual(text.memory_by_buffer_type, ints.memory_by_buffer_type);
  assert.deepEqual(text.l1_pressure, ints.l1_pressure);
});

Deno.test("on a mesh a footprint is the most loaded device's, and the device row read is the last", async () => {
  // Prevents devices being added together, and a stale duplicate device row being read.
  const r = await loaded("v2_mesh_two_devices");
  const a = await r.call("memory_profile", { buffer_type: "L1", limit: 1 });
  assert.deepEqual(opsOf(a, "L1")[0], {
    operation_id: 9,
    name: "ttnn.softmax",
    size: 102400,
    device_id: 1,
  });
  assert.equal(byType(a).L1.operations_at_peak, 1);
  const device = a.device as Row;
  assert.equal(device.devices, 2);
  assert.equal(device.l1_bank_size, 1370848); // the stale first row says 0
  assert.equal(device.worker_l1_size, 1499136);
});

Deno.test("a report without a devices table still answers, with no geometry", async () => {
  // Prevents a capture that lost its devices table losing its footprints too.
  await using dir = await derived("w1_python_writer", "DROP TABLE devices;");
  const r = await loaded(dir.path);
  const a = await r.call("memory_profile", {});
  assert.deepEqual(a.device, { devices: 0, dram_capacity: null });
  assert.equal(a.l1_pressure, null);
  assert.match(
    String(a.caveat),
    /l1_pressure is null: this report's devices record no L1 geometry/,
  );
  assert.equal(byType(a).L1.peak, 36864);
});

Deno.test("l1 pressure measures free segments and the largest free block inside the window", () => {
  // Prevents buffers outside the allocatable window, duplicates or touching ranges being miscounted.
  const window = { device_id: 0, start: 100, end: 1100 };
  const p = pressureOn(window, [
    { address: 900, size: 100 },
    { address: 900, size: 50 }, // the same buffer listed twice: counted once, at its largest
    { address: 1000, size: 100 }, // touches the previous: one used range
    { address: 1100, size: 500 }, // above the window (L1_SMALL): clipped away
    { address: 50, size: 100 }, // straddles the start: only [100, 150) counts
  ]);
  assert.deepEqual(p, {
    device_id: 0,
    fullness_pct: 25,
    free_segments: 1,
    largest_free_block: 750,
    largest_free_pct: 75,
    used_bytes: 250,
    usable_bytes: 1000,
  });
  const empty = pressureOn(window, []);
  assert.equal(empty.free_segments, 1);
  assert.equal(empty.largest_free_block, 1000);
  const full = pressureOn(window, [{ address: 0, size: 5000 }]);
  assert.equal(full.free_segments, 0);
  assert.equal(full.largest_free_block, 0);
});

Deno.test("the most constrained device is the one with the smallest largest free block", () => {
  // Prevents the fullest device being reported when another has less room for one buffer.
  const fragmented = pressureOn({ device_id: 3, start: 0, end: 1000 }, [
    { address: 300, size: 10 },
    { address: 600, size: 10 },
  ]);
  const fuller = pressureOn({ device_id: 1, start: 0, end: 1000 }, [{ address: 0, size: 500 }]);
  assert.ok(fuller.fullness_pct > fragmented.fullness_pct);
  assert.equal(mostConstrained([fuller, fragmented])!.device_id, 3);
});

Deno.test("operation_detail's l1_pressure is bounded to the device window and marked upper-bound", async () => {
  // Prevents L1_SMALL or the firmware region counting as free L1, and unmarked free-space figures.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_detail", { operation_id: 9 });
  // [103712, 103712 + 1370848) = [103712, 1474560); the L1_SMALL buffer above it is left out.
  assert.deepEqual(a.l1_pressure, {
    device_id: 0,
    fullness_pct: 2.689,
    free_segments: 2,
    largest_free_block: 1474560 - 36864 - 8192 - 103712,
    largest_free_pct: 96.713,
    used_bytes: 36864,
    usable_bytes: 1370848,
    window: [103712, 1474560],
    devices_evaluated: 1,
    size_unit: "bytes_per_bank",
    free_space_precision: "upper_bound",
  });
  assert.match(String(a.caveat), /upper bound/);
  assert.match(String(a.caveat), /circular buffers/);
});

Deno.test("l1_pressure reports the most constrained device of a mesh", async () => {
  // Prevents one device standing for the mesh when another is fuller.
  const r = await loaded("v2_mesh_two_devices");
  const a = await r.call("operation_detail", { operation_id: 9 });
  const p = a.l1_pressure as Row;
  assert.equal(p.device_id, 1);
  assert.equal(p.used_bytes, 36864 + 65536);
  assert.equal(p.devices_evaluated, 2);
  const m = await r.call("memory_profile", { limit: 2 });
  const ranking = (m.l1_pressure as Row).ranking as Row[];
  assert.deepEqual(ranking.map((x) => [x.operation_id, x.device_id]), [[9, 1], [10, 0]]);
});

Deno.test("l1_pressure is null with the reason for an operation with no buffers rows", async () => {
  // Prevents an empty snapshot being reported as an empty L1.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_detail", { operation_id: 1 });
  assert.equal(a.l1_pressure, null);
  assert.match(String(a.caveat), /operation 1 has no buffers rows/);
});

Deno.test("l1_pressure is null with the reason when the devices record no L1 geometry", async () => {
  // Prevents a window invented from defaults the report does not give.
  const r = await loaded("v2_no_traces_no_geometry");
  const a = await r.call("operation_detail", { operation_id: 9 });
  assert.equal(a.l1_pressure, null);
  assert.match(String(a.caveat), /devices record no L1 geometry/);
  const m = await r.call("memory_profile", {});
  assert.equal(m.l1_pressure, null);
  assert.equal((m.device as Row).address_at_first_l1_cb_buffer, null);
});

Deno.test("memory_profile's l1_pressure ranks operations by the smallest largest free block", async () => {
  // Prevents a ranking by fullness, which hides fragmentation.
  const r = await loaded("w1_python_writer");
  const a = await r.call("memory_profile", { limit: 3 });
  const p = a.l1_pressure as Row;
  const ranking = p.ranking as Row[];
  assert.deepEqual(ranking.map((x) => x.operation_id), [9, 10, 8]);
  assert.equal(ranking[0].name, "ttnn.softmax");
  assert.equal(ranking[0].largest_free_block, 1325792);
  assert.equal(p.operation_count, 11, "every operation with a buffers row");
  assert.equal(p.size_unit, "bytes_per_bank");
  assert.equal(p.free_space_precision, "upper_bound");
});
