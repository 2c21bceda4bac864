import assert from "node:assert/strict";
import { derived, loaded } from "./_fixtures.ts";

const BUDGET = 256 * 1024;

Deno.test("no database answer passes 256 KB, even for an operation with everything at its cap", async () => {
  // Prevents an answer a client refuses or truncates as too large: 120 arguments of 177,717
  // characters, a 40-frame trace, 150 inputs and 150 outputs with scattered shard grids.
  const grid = Array.from({ length: 40 }, (_, i) => `[(x=${i % 8},y=${i}) - (x=${i % 8},y=${i})]`)
    .join(", ");
  const config = "MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED," +
    `buffer_type=BufferType::L1,shard_spec=ShardSpec(grid={${grid}},shape={32, 64},` +
    "orientation=ShardOrientation::ROW_MAJOR,halo=0))";
  const huge = "x".repeat(177717);
  const trace = Array.from(
    { length: 40 },
    (_, i) =>
      `  File "/home/user/tt-metal/models/very/long/path/module_${i}.py", line ${i}, in f${i}\n    ${
        "y".repeat(150)
      }\n`,
  ).join("\n");
  const sql = [
    `WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 300) INSERT INTO operation_arguments SELECT 12, 'arg_' || value, '${huge}' FROM n WHERE value <= 120;`,
    `UPDATE stack_traces SET stack_trace = '${trace}' WHERE operation_id = 12;`,
    `WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 300) INSERT INTO tensors SELECT 100 + value, 'Shape([1, 1, 3136, 64])', 'DataType.BFLOAT16', 'Layout.TILE', '${config}', 0, 1000000 + value, 1 FROM n;`,
    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 300) INSERT INTO input_tensors SELECT 12, value, 100 + value FROM n WHERE value <= 150;",
    "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 300) INSERT INTO output_tensors SELECT 12, value, 250 + value FROM n WHERE value <= 150;",
  ].join("\n");
  await using dir = await derived("w1_python_writer", sql);
  const r = await loaded(dir.path);
  const answers = [
    await r.call("operation_provenance", { operation_id: 12, limit: 1000 }),
    await r.call("operation_detail", { operation_id: 12 }),
    await r.call("memory_profile", { limit: 1000 }),
    await r.call("find_operations", { limit: 1000 }),
    await r.call("tensor_flow", { tensor_id: 101 }),
  ];
  for (const a of answers) {
    const bytes = new TextEncoder().encode(JSON.stringify(a)).length;
    assert.ok(bytes <= BUDGET, `${bytes} bytes`);
  }
});
