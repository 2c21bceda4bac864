/**
 * Large generated profiler databases for the benches and the responsiveness tests, W-shaped
 * with one Wormhole device (`bench/_profiler_db.ts`'s schema):
 *
 * - `writeDetailDb`: operation_detail's and dram_fallbacks' shape — an errors table, one input
 *   and one output tensor per operation, a memory_config argument (every third asks for L1),
 *   three live buffers, and a captured graph per operation holding one device-operation launch
 *   with four circular buffers (every fifth a cached relaunch with none);
 * - `writeGraphDb`: l1_peak's shape — a string-typed captured graph per operation (about 2.4 KB
 *   of JSON: three circular buffers, an L1 output, an L1 intermediate allocated and freed, a
 *   DRAM buffer and the tensor nodes around them), five buffers rows and the tensor tables.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { createSchema } from "../bench/_profiler_db.ts";

function launchGraph(id: number, name: string): string {
  const cached = id % 5 === 0;
  const nodes: Record<string, unknown>[] = [
    { node_type: "capture_start", params: {} },
    { node_type: "function_start", params: { name, inputs: "1" } },
    { node_type: "function_start", params: { name: "BinaryNgDeviceOperation", inputs: "1" } },
    { node_type: "circular_buffer_deallocate_all", params: { device_id: 0 } },
  ];
  for (let k = 0; !cached && k < 4; k++) {
    nodes.push({
      node_type: "circular_buffer_allocate",
      params: {
        address: 103712 + 8192 * k,
        size: 2048 * (1 + (id + k) % 4),
        core_range_set: "{[(x=0,y=0) - (x=7,y=7)]}",
        globally_allocated: 0,
        device_id: 0,
      },
    });
  }
  nodes.push(
    {
      node_type: "buffer_allocate",
      params: { address: 2000000, size: 65536, type: "DRAM", num_cores: 0, device_id: 0 },
    },
    { node_type: "function_end", params: { name: "BinaryNgDeviceOperation" } },
    { node_type: "function_end", params: { name } },
    { node_type: "capture_end", params: {} },
  );
  return JSON.stringify(nodes.map((n, i) => ({ counter: i, ...n, connections: [i + 1] })));
}

/**
 * Writes operation_detail's database of `ops` operations (see the module); returns its size in
 * bytes. Without `graphs`, the captured_graph table is left empty.
 */
export function writeDetailDb(path: string, ops: number, graphs = true): number {
  const db = new DatabaseSync(path);
  createSchema(db, ["operation_arguments", "captured_graph", "errors"]);
  db.exec(`
    INSERT INTO errors VALUES (0, 'ttnn.to_torch', 'incomplete_operation',
      'Operation started but never completed (likely crashed)', '', '');
  `);
  const names = ["ttnn.matmul", "ttnn.add", "ttnn.softmax", "ttnn.layer_norm", "ttnn.reshape"];
  const config = (type: string) =>
    "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::" +
    `${type},shard_spec=std::nullopt)`;
  const op = db.prepare("INSERT INTO operations VALUES (?, ?, ?)");
  const arg = db.prepare("INSERT INTO operation_arguments VALUES (?, ?, ?)");
  const tensor = db.prepare(
    "INSERT INTO tensors VALUES (?, 'Shape([1, 1, 32, 1024])', 'DataType.BFLOAT16', " +
      "'Layout.TILE', ?, 0, ?, ?)",
  );
  const input = db.prepare("INSERT INTO input_tensors VALUES (?, 0, ?)");
  const output = db.prepare("INSERT INTO output_tensors VALUES (?, 0, ?)");
  const buf = db.prepare("INSERT INTO buffers VALUES (?, 0, ?, ?, ?)");
  const graph = db.prepare("INSERT INTO captured_graph VALUES (?, ?)");
  db.exec("BEGIN");
  tensor.run(0, config("DRAM"), 1920032, 0);
  for (let id = 1; id <= ops; id++) {
    const name = names[id % names.length];
    const l1 = id % 3 === 0;
    op.run(id, name, 0.0001 * (id % 97));
    arg.run(id, "memory_config", config(l1 ? "L1" : "DRAM"));
    tensor.run(id, config(l1 ? "L1" : "DRAM"), 1960992 + 2048 * (id % 7), l1 ? 1 : 0);
    input.run(id, id - 1);
    output.run(id, id);
    buf.run(id, 1920032, 34816, 0);
    buf.run(id, 1960992 + 2048 * (id % 7), 2048, 0);
    buf.run(id, 1474560 - 8192, 8192, 1);
    if (graphs) graph.run(id, launchGraph(id, name));
  }
  db.exec("COMMIT");
  db.close();
  return Deno.statSync(path).size;
}

/** One operation's graph, string-typed as older captures write it. */
function stringGraph(id: number, name: string): string {
  const nodes: Record<string, unknown>[] = [];
  const push = (node_type: string, params: Record<string, unknown>) =>
    nodes.push({ counter: nodes.length, node_type, params, connections: [nodes.length + 1] });
  const out = 1474560 - 8192 - 2048 * (1 + (id % 13));
  push("capture_start", {});
  push("tensor", {
    tensor_id: String(2 * id),
    shape: "Shape([1, 1, 1024, 1024])",
    dtype: "DataType::BFLOAT16",
    layout: "Layout::TILE",
    storage_type: "DEVICE",
    address: "1474560",
    buffer_type: "L1",
  });
  push("function_start", { name, inputs: "1" });
  push("function_start", { name: "MatmulDeviceOperation", inputs: "1" });
  push("circular_buffer_deallocate_all", { device_id: "0" });
  for (let cb = 0; cb < 3; cb++) {
    push("circular_buffer_allocate", {
      address: String(103712 + cb * 32768),
      size: String(16384 * (1 + ((id + cb) % 3))),
      core_range_set: "{[(x=0,y=0) - (x=7,y=7)]}",
      globally_allocated: "0",
      device_id: "0",
    });
  }
  const buffer = (address: number, size: number, type: string) => ({
    address: String(address),
    size: String(size),
    type,
    layout: "INTERLEAVED",
    page_size: "2048",
    num_cores: "0",
    max_size_per_bank: String(size / 64),
    device_id: "0",
  });
  push("buffer_allocate", buffer(1200000, 655360, "L1"));
  push("buffer_allocate", buffer(out, 2048 * (1 + (id % 13)) * 64, "L1"));
  push("buffer_deallocate", buffer(1200000, 655360, "L1"));
  push("buffer_allocate", buffer(1960992, 24576, "DRAM"));
  push("function_end", { name: "MatmulDeviceOperation" });
  push("function_end", { name });
  push("tensor", {
    tensor_id: String(2 * id + 1),
    shape: "Shape([1, 1, 1024, 1024])",
    dtype: "DataType::BFLOAT16",
    layout: "Layout::TILE",
    storage_type: "DEVICE",
    address: String(out),
    buffer_type: "L1",
  });
  push("capture_end", {});
  return JSON.stringify(nodes);
}

/** Writes l1_peak's database of `ops` operations; returns its size and characters of graph. */
export function writeGraphDb(path: string, ops: number): { size: number; graphChars: number } {
  const db = new DatabaseSync(path);
  createSchema(db, ["captured_graph"]);
  const names = ["ttnn.matmul", "ttnn.add", "ttnn.softmax", "ttnn.layer_norm", "ttnn.reshape"];
  const op = db.prepare("INSERT INTO operations VALUES (?, ?, ?)");
  const buf = db.prepare("INSERT INTO buffers VALUES (?, 0, ?, ?, ?)");
  const graph = db.prepare("INSERT INTO captured_graph VALUES (?, ?)");
  const tensor = db.prepare(
    "INSERT INTO tensors VALUES (?, 'Shape([1, 1, 1024, 1024])', " +
      "'DataType.BFLOAT16', 'Layout.TILE', NULL, 0, ?, 1)",
  );
  const input = db.prepare("INSERT INTO input_tensors VALUES (?, 0, ?)");
  const output = db.prepare("INSERT INTO output_tensors VALUES (?, 0, ?)");
  let graphChars = 0;
  db.exec("BEGIN");
  for (let id = 1; id <= ops; id++) {
    const name = names[id % names.length];
    op.run(id, name, 0.0001 * (id % 97));
    const text = stringGraph(id, name);
    graphChars += text.length;
    graph.run(id, text);
    const out = 1474560 - 8192 - 2048 * (1 + (id % 13));
    tensor.run(2 * id + 1, out);
    output.run(id, 2 * id + 1);
    if (id > 1) input.run(id, 2 * id - 1);
    buf.run(id, 1920032, 34816, 0);
    buf.run(id, 1954848, 6144, 0);
    buf.run(id, 1960992 + 2048 * (id % 7), 2048, 0);
    buf.run(id, 1474560 - 8192, 8192, 1);
    buf.run(id, out, 2048 * (1 + (id % 13)), 1);
  }
  db.exec("COMMIT");
  db.close();
  return { size: Deno.statSync(path).size, graphChars };
}
