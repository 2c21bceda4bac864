/**
 * operation_detail's circular_buffers, error and dram_fallback on the generated captures:
 * each shape a real capture takes, and absent, withheld and real zero told apart.
 */
import assert from "node:assert/strict";
import { derived, type FixtureName, loaded } from "./_fixtures.ts";
import { MAX_GRAPH_CHARS } from "../../src/analysis/run_errors.ts";

type Row = Record<string, unknown>;
type Entry = { name: string; device_count: number; circular_buffers: Row[] } & Row;

const entries = (r: Row) => (r.circular_buffers as Row).device_operations as Entry[];

Deno.test("a warm mesh capture folds device copies and counts cached relaunches", async () => {
  // Prevents a mesh's buffers counted per device, a view onto a tensor counted as L1, or a
  // cached relaunch reading as zero buffers.
  const r = await loaded("v2_1_mesh_warm_cache");
  const matmul = await r.call("operation_detail", { operation_id: 13 });
  const cbs = matmul.circular_buffers as Row;
  assert.equal(cbs.size_unit, "bytes_per_bank");
  assert.deepEqual(entries(matmul).map((e) => [e.name, e.device_count]), [[
    "MatmulDeviceOperation",
    2,
  ]]);
  const rows = entries(matmul)[0].circular_buffers;
  assert.deepEqual(rows.map((b) => b.device_count), [2, 2, 2, 2, 2]);
  assert.deepEqual(rows.map((b) => b.globally_allocated), [false, false, true, false, false]);
  assert.equal(entries(matmul)[0].max_bytes_per_core, 32768 + 65536 + 1024);
  assert.equal(entries(matmul)[0].unattributed_bytes, 2048);
  assert.equal((rows[4].core_range_set as string).length, 200);
  assert.equal(rows[4].core_range_set_full_length, 300);
  assert.equal(rows[4].core_count, 12);
  const warm = await r.call("operation_detail", { operation_id: 14 });
  assert.equal((warm.circular_buffers as Row).device_operation_count, 0);
  assert.equal((warm.circular_buffers as Row).unrecorded_launch_count, 1);
  assert.deepEqual((warm.circular_buffers as Row).unrecorded_device_operations, [
    { name: "MatmulDeviceOperation", launch_count: 1, device_count: 2 },
  ]);
  assert.match(String(warm.caveat), /unknown rather than zero/);
  const add = await r.call("operation_detail", { operation_id: 15 });
  assert.deepEqual(entries(add).map((e) => e.name), [
    "BinaryNgDeviceOperation",
    "BinaryNgDeviceOperation",
  ]);
  assert.equal((add.circular_buffers as Row).unrecorded_launch_count, 3);
});

Deno.test("circular buffer rows are capped at 100, or 25 with include, with every one counted", async () => {
  // Prevents an operation with many launches overflowing a client's answer limit.
  const r = await loaded("v2_1_mesh_warm_cache");
  const plain = (await r.call("operation_detail", { operation_id: 16 })).circular_buffers as Row;
  assert.equal(plain.returned_rows, 100);
  assert.equal(plain.circular_buffer_count, 120);
  assert.equal(plain.device_operation_count, 30);
  const detailed = (await r.call("operation_detail", { operation_id: 16, include: ["config"] }))
    .circular_buffers as Row;
  assert.equal(detailed.returned_rows, 25);
  assert.equal(detailed.circular_buffer_count, 120);
});

Deno.test("an older mesh capture folds per-device launches and counts what it cannot list", async () => {
  // Prevents per-device device operations listed once per device, a failed launch losing its
  // buffers, or buffers left out without a count and a caveat.
  const r = await loaded("v2_mesh_per_device_launches");
  const conv = await r.call("operation_detail", { operation_id: 13 });
  assert.deepEqual(entries(conv).map((e) => [e.name, e.device_count]), [
    ["HaloDeviceOperation", 2],
    ["Conv2d", 2],
  ]);
  assert.equal((conv.circular_buffers as Row).circular_buffer_count, 4);
  const failed = await r.call("operation_detail", { operation_id: 14 });
  assert.deepEqual(entries(failed).map((e) => e.name), ["MatmulDeviceOperation"]);
  assert.deepEqual((failed.error as Row).failed_device_operations, ["MatmulDeviceOperation"]);
  assert.equal(((failed.error as Row).allocation_failure as Row).kind, "circular_buffers_clash");
  const cut = await r.call("operation_detail", { operation_id: 15 });
  assert.equal((cut.circular_buffers as Row).unlisted_circular_buffer_count, 2);
  assert.equal((cut.circular_buffers as Row).circular_buffer_count, 2);
  assert.match(
    String(cut.caveat),
    /circular_buffer_count and device_operation_count leave them out/,
  );
  const split = await r.call("operation_detail", { operation_id: 16 });
  assert.equal((split.circular_buffers as Row).unlisted_circular_buffer_count, 2);
  assert.deepEqual(entries(split)[0].circular_buffers.map((b) => [b.size, b.device_count]), [
    [24576, 2],
  ]);
});

Deno.test("an operation that launched nothing on the device has a real zero", async () => {
  // Prevents a zero being caveated as unknown, or an unknown being given as zero.
  const r = await loaded("v2_1_tensor_size");
  const d = await r.call("operation_detail", { operation_id: 1 });
  const cbs = d.circular_buffers as Row;
  assert.equal(cbs.device_operation_count, 0);
  assert.equal("unrecorded_launch_count" in cbs, false);
  assert.equal("unlisted_circular_buffer_count" in cbs, false);
  assert.doesNotMatch(String(d.caveat), /circular/);
});

Deno.test("circular_buffers is absent when the report has no captured graph for the operation", async () => {
  // Prevents a report that never captured graphs reading as operations with no buffers.
  await using noTable = await derived("v2_1_tensor_size", "DROP TABLE captured_graph;");
  const a = await (await loaded(noTable.path)).call("operation_detail", { operation_id: 5 });
  assert.equal("circular_buffers" in a, false);
  await using noRow = await derived(
    "v2_1_tensor_size",
    "DELETE FROM captured_graph WHERE operation_id = 5;",
  );
  const b = await (await loaded(noRow.path)).call("operation_detail", { operation_id: 5 });
  assert.equal("circular_buffers" in b, false);
  assert.doesNotMatch(String(b.caveat), /circular_buffers/);
});

Deno.test("a graph that does not parse withholds circular_buffers and failed launches, not the error", async () => {
  // Prevents a damaged graph answering as a real zero, or costing the rest of the answer.
  await using dir = await derived(
    "v2_1_failed_run" as FixtureName,
    "UPDATE captured_graph SET captured_graph = '{not json' WHERE operation_id = 13;" +
      `UPDATE captured_graph SET captured_graph = '{"nodes": []}' WHERE operation_id = 5;`,
  );
  const r = await loaded(dir.path);
  const failed = await r.call("operation_detail", { operation_id: 13 });
  assert.equal(failed.circular_buffers, null);
  assert.match(
    String(failed.caveat),
    /circular_buffers is withheld: its captured graph does not parse/,
  );
  const error = failed.error as Row;
  assert.equal(error.failed_device_operations, null);
  assert.match(String(error.failed_device_operations_unavailable), /withheld/);
  assert.equal((error.diagnosis as Row).reason, "not_enough_free_space");
  const conv = await r.call("operation_detail", { operation_id: 5 });
  assert.equal(conv.circular_buffers, null);
  assert.match(String(conv.caveat), /withheld: its captured graph is not a JSON list/);
});

Deno.test("a graph past the size a tool reads withholds circular_buffers", async () => {
  // Prevents one enormous graph being parsed into memory on a detail call.
  const half = Math.floor(MAX_GRAPH_CHARS / 2) + 1;
  await using dir = await derived(
    "v2_1_tensor_size",
    `UPDATE captured_graph SET captured_graph = hex(zeroblob(${half})) WHERE operation_id = 5;`,
  );
  const d = await (await loaded(dir.path)).call("operation_detail", { operation_id: 5 });
  assert.equal(d.circular_buffers, null);
  assert.match(String(d.caveat), /withheld: its captured graph is past the 67108864 characters/);
});

Deno.test("a table without rank on a multi-rank report withholds its fields, never another rank's", async () => {
  // Prevents the union of every rank's graphs, arguments or errors attributed to the rank asked.
  await using dir = await derived(
    "ranked_two_hosts",
    "ALTER TABLE captured_graph DROP COLUMN rank; ALTER TABLE operation_arguments DROP COLUMN " +
      "rank; ALTER TABLE errors DROP COLUMN rank;",
  );
  const d = await (await loaded(dir.path)).call("operation_detail", { operation_id: 5, rank: 1 });
  assert.equal(d.circular_buffers, null);
  assert.equal(d.error, null);
  assert.equal(d.dram_fallback, null);
  const caveat = String(d.caveat);
  assert.match(caveat, /circular_buffers is withheld: .*not on `captured_graph`.*rank 1/);
  assert.match(caveat, /error is withheld: .*not on `errors`/);
  assert.match(caveat, /dram_fallback is withheld: .*not on `operation_arguments`/);
  assert.equal((d.inputs as Row[]).length > 0, true);
  assert.equal(d.rank, 1);
});

Deno.test("a ranked report with rank on its graphs answers circular_buffers at the rank asked", async () => {
  // Prevents the rank guard withholding a field whose table does carry the rank.
  const r = await loaded("ranked_two_hosts");
  const d = await r.call("operation_detail", { operation_id: 5, rank: 1 });
  assert.deepEqual(entries(d).map((e) => e.name), ["HaloDeviceOperation", "Conv2d"]);
  assert.doesNotMatch(String(d.caveat), /withheld/);
});

Deno.test("operation_detail carries the DRAM fallback dram_fallbacks lists for it", async () => {
  // Prevents the detail and the list disagreeing, or the field missing on an operation without one.
  const r = await loaded("v2_1_failed_run");
  const retry = await r.call("operation_detail", { operation_id: 14 });
  assert.equal((retry.dram_fallback as Row).signal, "retry_after_failure");
  assert.equal((retry.dram_fallback as Row).failed_operation_id, 13);
  const mismatch = await r.call("operation_detail", { operation_id: 15 });
  assert.equal((mismatch.dram_fallback as Row).signal, "argument_mismatch");
  const view = await r.call("operation_detail", { operation_id: 16 });
  assert.equal(view.dram_fallback, null);
});

Deno.test("operation_detail stays within 256 KB with every list at its cap and long core ranges", async () => {
  // Prevents circular buffer rows pushing the answer past what a client accepts: 100 inputs
  // and outputs with long shard grids, 150 launches of buffers on long core ranges, 40
  // unrecorded device-operation names.
  const grid = Array.from({ length: 40 }, (_, i) => `[(x=${i % 8},y=${i}) - (x=${i % 8},y=${i})]`)
    .join(", ");
  const config = "MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED," +
    `buffer_type=BufferType::L1,shard_spec=ShardSpec(grid={${grid}},shape={32, 64},` +
    "orientation=ShardOrientation::ROW_MAJOR,halo=0))";
  const node = (node_type: string, params: Row) => ({ node_type, params });
  const graph = [node("function_start", { name: "ttnn.big" })];
  for (let i = 0; i < 150; i++) {
    graph.push(node("function_start", { name: `Op${i}DeviceOperation` }));
    graph.push(node("circular_buffer_deallocate_all", {}));
    graph.push(node("circular_buffer_allocate", {
      address: String(100000 + i),
      size: "4096",
      core_range_set: `{${grid}}`,
      globally_allocated: "0",
    }));
    graph.push(node("function_end", { name: `Op${i}DeviceOperation` }));
  }
  for (let i = 0; i < 40; i++) {
    graph.push(node("function_start", { name: `Cached${"z".repeat(150)}${i}` }));
    graph.push(node("function_end", { name: `Cached${"z".repeat(150)}${i}` }));
  }
  graph.push(node("function_end", { name: "ttnn.big" }));
  const text = JSON.stringify(graph).replaceAll("'", "''");
  const many = (table: string, base: number) =>
    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 150) " +
    `INSERT INTO ${table} SELECT 12, value, ${base} + value FROM n;`;
  await using dir = await derived(
    "w1_python_writer",
    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 300) " +
      "INSERT INTO tensors SELECT 100 + value, 'Shape([1, 1, 3136, 64])', 'DataType.BFLOAT16', " +
      `'Layout.TILE', '${config}', 0, 1000000 + value, 1 FROM n;` +
      many("input_tensors", 100) + many("output_tensors", 250) +
      `UPDATE captured_graph SET captured_graph = '${text}' WHERE operation_id = 12;`,
  );
  const d = await (await loaded(dir.path)).call("operation_detail", { operation_id: 12 });
  const cbs = d.circular_buffers as Row;
  assert.equal(cbs.returned_rows, 100);
  assert.equal(cbs.unrecorded_launch_count, 40);
  assert.equal((cbs.unrecorded_device_operations as Row[]).length, 20);
  assert.equal(cbs.unrecorded_device_operation_name_count, 40);
  assert.match(String(d.caveat), /The first 20 of 40 device-operation names are listed/);
  const bytes = new TextEncoder().encode(JSON.stringify(d)).length;
  assert.ok(bytes <= 256 * 1024, `${bytes} bytes`);
});
