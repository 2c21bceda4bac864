/**
 * `deno run --allow-read --allow-write --allow-env bench/operation_detail_bench.ts [--ops N]`:
 * times operation_detail — with its circular_buffers, error and dram_fallback — on a generated
 * profiler database of N operations (200,000 by default): a W2-shaped report with an errors
 * table, one input and one output tensor per operation, a memory_config argument, three live
 * buffers, and a captured graph per operation holding one device-operation launch with four
 * circular buffers (every fifth a cached relaunch with none), one device. Written into a
 * temporary directory and deleted afterwards.
 *
 * Reports, in-process, medians of 5 rounds (min–max): the first operation_detail on a fresh
 * handle (opens the connection; reads the captured_graph ids once) and later calls on one
 * handle, each for an operation near the start, the middle and the end; and, for comparison,
 * the whole-report dram_fallbacks inference the detail call no longer pays.
 */
import { DatabaseSync } from "node:sqlite";
import { session } from "../tests/_support/in_process.ts";
import { createSchema, spread } from "./_profiler_db.ts";

const opsArg = Deno.args.indexOf("--ops");
const OPS = opsArg >= 0 ? Number(Deno.args[opsArg + 1]) : 200_000;
const ROUNDS = 5;

const dir = await Deno.makeTempDir({ prefix: "ttnn-mcp-detail-bench-" });
try {
  let t = performance.now();
  const size = generate(`${dir}/db.sqlite`, OPS);
  console.error(
    `generated ${OPS} operations (${(size / 2 ** 20).toFixed(0)} MiB) in ${
      ((performance.now() - t) / 1000).toFixed(1)
    } s`,
  );
  const s = session();
  const ids = [7, Math.floor(OPS / 2), OPS - 30];
  const cold: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const { handle } = await s.call("load_report", { profiler_path: dir });
    t = performance.now();
    const d = await s.call("operation_detail", { handle, operation_id: ids[i % ids.length] });
    cold.push(performance.now() - t);
    if (!d.circular_buffers || !("dram_fallback" in d)) throw new Error("fields missing");
  }
  const { handle } = await s.call("load_report", { profiler_path: dir });
  await s.call("operation_detail", { handle, operation_id: 1 });
  const warm: number[] = [];
  for (let i = 0; i < ROUNDS * ids.length; i++) {
    t = performance.now();
    await s.call("operation_detail", { handle, operation_id: ids[i % ids.length] + i });
    warm.push(performance.now() - t);
  }
  const whole: number[] = [];
  for (let i = 0; i < 3; i++) {
    const fresh = (await s.call("load_report", { profiler_path: dir })).handle;
    t = performance.now();
    await s.call("dram_fallbacks", { handle: fresh, limit: 10 });
    whole.push(performance.now() - t);
  }
  console.log(
    `${OPS.toLocaleString("en")} operations, ${(size / 2 ** 20).toFixed(0)} MiB\n\n` +
      "| call (median (min–max)) | time |\n|---|---:|\n" +
      `| operation_detail, first on a fresh handle | ${spread(cold)} |\n` +
      `| operation_detail, later calls on one handle | ${spread(warm)} |\n` +
      `| dram_fallbacks (whole report), first on a fresh handle | ${spread(whole)} |`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}

function graphOf(id: number, name: string): string {
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

/** Writes the database; returns its size in bytes. */
function generate(path: string, ops: number): number {
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
    graph.run(id, graphOf(id, name));
  }
  db.exec("COMMIT");
  db.close();
  return Deno.statSync(path).size;
}
