import assert from "node:assert/strict";
import { parseMemoryConfig } from "../../src/profiler_db/memory_config.ts";
import { bufferTypeName } from "../../src/profiler_db/buffer_types.ts";
import { derived, loaded } from "./_fixtures.ts";

type Row = Record<string, unknown>;

Deno.test("a memory config says interleaved or sharded, and a shard spec its grid and shape", () => {
  // Prevents an agent scaling a sharded per-bank figure by every bank of the device.
  assert.deepEqual(
    parseMemoryConfig(
      "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::DRAM," +
        "shard_spec=std::nullopt)",
    ),
    { memory_layout: "INTERLEAVED", buffer_type: "DRAM", shard_spec: null },
  );
  const older = parseMemoryConfig(
    "MemoryConfig(memory_layout=TensorMemoryLayout::BLOCK_SHARDED,buffer_type=BufferType::L1," +
      "shard_spec=ShardSpec(grid={[(x=0,y=0) - (x=2,y=1)]},shape={224, 64}," +
      "orientation=ShardOrientation::ROW_MAJOR,halo=0))",
  );
  assert.deepEqual(older?.shard_spec, {
    grid: [{ start: [0, 0], end: [2, 1] }],
    core_count: 6,
    shape: [224, 64],
    orientation: "ROW_MAJOR",
  });
  const newer = parseMemoryConfig(
    "MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED,buffer_type=BufferType::L1," +
      'shard_spec=ShardSpec{grid=[{"start":{"x":0,"y":0},"end":{"x":5,"y":7}}], shape=[224, 224], ' +
      "orientation=ShardOrientation::ROW_MAJOR},nd_shard_spec=std::nullopt,created_with_nd_shard_spec=0)",
  );
  assert.deepEqual(newer?.shard_spec, {
    grid: [{ start: [0, 0], end: [5, 7] }],
    core_count: 48,
    shape: [224, 224],
    orientation: "ROW_MAJOR",
  });
  const odd = parseMemoryConfig(
    "MemoryConfig(memory_layout=TensorMemoryLayout::WIDTH_SHARDED,buffer_type=BufferType::L1," +
      "shard_spec=SomethingNew<1>)",
  );
  assert.deepEqual(odd?.shard_spec, { unparsed: "SomethingNew<1>)" });
  for (const text of ["{}", "", null, "None", "MemoryConfig(unclosed"]) {
    assert.equal(parseMemoryConfig(text), null, String(text));
  }
});

Deno.test("a stored buffer type is named whichever form it takes; an unknown one passes through", () => {
  // Prevents integer captures and text captures disagreeing, and DRAM (0) read as falsy.
  assert.deepEqual([0, 1, 2, 3, 4].map(bufferTypeName), [
    "DRAM",
    "L1",
    "SYSTEM_MEMORY",
    "L1_SMALL",
    "TRACE",
  ]);
  assert.deepEqual(["L1", "BufferType::L1", "3", 99, "FOO"].map(bufferTypeName), [
    "L1",
    "L1",
    "L1_SMALL",
    "99",
    "FOO",
  ]);
});

Deno.test("tensor_flow names the producing and consuming operations", async () => {
  // Prevents producers and consumers being swapped (output_tensors lists producers).
  const r = await loaded("w1_python_writer");
  const a = await r.call("tensor_flow", { tensor_id: 8 });
  assert.deepEqual(a.producers, [{ operation_id: 8, name: "ttnn.linear" }]);
  assert.deepEqual(a.consumers, [
    { operation_id: 9, name: "ttnn.softmax" },
    { operation_id: 10, name: "ttnn.add" },
  ]);
  assert.equal(a.producer_count, 1);
  assert.equal(a.consumer_count, 2);
  assert.deepEqual((a.tensor as Row).shape, "Shape([1, 1, 3136, 128])");
  assert.deepEqual((a.tensor as Row).memory_config, {
    memory_layout: "INTERLEAVED",
    buffer_type: "L1",
    shard_spec: null,
  });
});

Deno.test("a tensor's size is whole bytes where the report records it, else its buffer's per-bank figure", async () => {
  // Prevents a per-bank figure being read as a whole-tensor size, or the reverse.
  const perBank = await loaded("w1_python_writer");
  const a = await perBank.call("tensor_flow", { tensor_id: 8 });
  assert.equal(a.tensor_size_unit, "bytes_per_bank");
  assert.equal((a.tensor as Row).size, 14336); // ceil(392 tiles / 64 banks) x 2048
  const whole = await loaded("v2_1_tensor_size");
  const b = await whole.call("tensor_flow", { tensor_id: 8 });
  assert.equal(b.tensor_size_unit, "bytes");
  assert.equal((b.tensor as Row).size, 3136 * 128 * 2);
  assert.equal((b.tensor as Row).buffer_type, "L1"); // stored as text in this capture
});

Deno.test("a host tensor has no buffer type even where the importer wrote 0", async () => {
  // Prevents the importer's placeholder 0 being read as DRAM.
  const r = await loaded("v2_mesh_two_devices");
  const a = await r.call("tensor_flow", { tensor_id: 0 });
  assert.equal((a.tensor as Row).buffer_type, null);
  assert.equal((a.tensor as Row).address, null);
  assert.equal((a.tensor as Row).size, null);
  assert.deepEqual(a.producers, [{ operation_id: 1, name: "ttnn.from_torch" }]);
});

Deno.test("an unknown tensor is refused", async () => {
  // Prevents an empty answer being read as 'nobody used this tensor'.
  const r = await loaded("w1_python_writer");
  assert.match(await r.refusal("tensor_flow", { tensor_id: 99 }), /^no tensor 99 in this report$/);
});

Deno.test("operation_detail describes the tensors an operation read and wrote", async () => {
  // Prevents missing or misordered inputs, and a sharded tensor shown without its shard spec.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_detail", { operation_id: 5 });
  assert.equal(a.name, "ttnn.conv2d");
  assert.equal(a.duration_unit, "host_seconds");
  assert.equal(a.input_count, 3);
  assert.deepEqual((a.inputs as Row[]).map((t) => [t.index, t.tensor_id]), [[0, 2], [1, 3], [
    2,
    4,
  ]]);
  const out = (a.outputs as Row[])[0];
  assert.equal(out.dtype, "DataType.BFLOAT16");
  assert.equal(out.layout, "Layout.TILE");
  assert.equal(out.buffer_type, "L1");
  assert.equal(out.size, 8192); // 196 tiles over 49 cores, 4 per core x 2048
  assert.deepEqual(out.memory_config, {
    memory_layout: "HEIGHT_SHARDED",
    buffer_type: "L1",
    shard_spec: {
      grid: [{ start: [0, 0], end: [7, 5] }, { start: [0, 6], end: [0, 6] }],
      core_count: 49,
      shape: [64, 64],
      orientation: "ROW_MAJOR",
    },
  });
});

Deno.test("allocations are per buffer type in bytes per bank, never summed across types", async () => {
  // Prevents a DRAM figure added to an L1 figure, two denominators in one integer.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_detail", { operation_id: 10 });
  assert.equal(a.allocation_size_unit, "bytes_per_bank");
  assert.deepEqual(a.allocations, {
    DRAM: { buffers: 5, size: 112640, device_id: 0, devices: 1 },
    L1: { buffers: 3, size: 36864, device_id: 0, devices: 1 },
    L1_SMALL: { buffers: 1, size: 16384, device_id: 0, devices: 1 },
  });
  const text = JSON.stringify(a);
  for (const sum of [112640 + 36864, 112640 + 36864 + 16384, 36864 + 16384]) {
    assert.ok(!text.includes(String(sum)), `no cross-type sum ${sum}`);
  }
  assert.ok(!/"total/.test(text));
});

Deno.test("allocations say a device-wide total cannot be derived, and why, and that DRAM capacity is absent", async () => {
  // Prevents an agent multiplying a per-bank figure by the bank count, or assuming a DRAM capacity.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_detail", { operation_id: 10 });
  const absences = a.stated_absences as Record<string, string>;
  assert.match(absences.whole_device_figure, /cannot be derived/);
  assert.match(absences.whole_device_figure, /different numbers of banks/);
  assert.match(absences.dram_capacity, /no DRAM capacity/);
});

Deno.test("on a mesh, an allocation is the most loaded device's, naming it", async () => {
  // Prevents per-bank figures of two devices being added into a figure of neither.
  const r = await loaded("v2_mesh_two_devices");
  const a = await r.call("operation_detail", { operation_id: 9 });
  assert.deepEqual((a.allocations as Row).L1, {
    buffers: 7,
    size: 36864 + 65536,
    device_id: 1,
    devices: 2,
  });
});

Deno.test("a runaway tensor list is capped at 100 but counted whole", async () => {
  // Prevents a 105-input concat flooding the answer, or its count being the capped length.
  const rows = Array.from({ length: 105 }, (_, i) => `(12, ${i + 1}, 2)`).join(", ");
  await using dir = await derived("w1_python_writer", `INSERT INTO input_tensors VALUES ${rows};`);
  const r = await loaded(dir.path);
  const a = await r.call("operation_detail", { operation_id: 12 });
  assert.equal((a.inputs as Row[]).length, 100);
  assert.equal(a.input_count, 106);
});

Deno.test("a tensor id with no tensors row is listed by id alone", async () => {
  // Prevents a crash, or invented fields, for a dangling reference.
  await using dir = await derived("w1_python_writer", "DELETE FROM tensors WHERE tensor_id = 3;");
  const r = await loaded(dir.path);
  const a = await r.call("operation_detail", { operation_id: 5 });
  assert.deepEqual((a.inputs as Row[])[1], { index: 1, tensor_id: 3 });
  const b = await r.call("tensor_flow", { tensor_id: 3 });
  assert.equal(b.tensor, null);
  assert.match(String(b.caveat), /has no row in `tensors`/);
});

Deno.test("operation_detail refuses an unknown operation", async () => {
  // Prevents an empty answer for a wrong id.
  const r = await loaded("w1_python_writer");
  assert.match(await r.refusal("operation_detail", { operation_id: 99 }), /^no operation 99 /);
});

Deno.test("a shard grid of many ranges lists 16 of them and counts every core", () => {
  // Prevents a scattered grid from inflating every tensor entry of an answer.
  const ranges = Array.from(
    { length: 40 },
    (_, i) => `[(x=${i % 8},y=${i}) - (x=${i % 8},y=${i})]`,
  );
  const c = parseMemoryConfig(
    "MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED,buffer_type=BufferType::L1," +
      `shard_spec=ShardSpec(grid={${ranges.join(", ")}},shape={32, 64},` +
      "orientation=ShardOrientation::ROW_MAJOR,halo=0))",
  );
  const spec = c?.shard_spec as { grid: unknown[]; grid_range_count: number; core_count: number };
  assert.equal(spec.grid.length, 16);
  assert.equal(spec.grid_range_count, 40);
  assert.equal(spec.core_count, 40);
});
