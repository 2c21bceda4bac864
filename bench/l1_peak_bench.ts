/**
 * `deno run --allow-read --allow-write --allow-env bench/l1_peak_bench.ts [--ops N] [--rounds R]`:
 * times l1_peak on a generated profiler database of N operations (200,000 by default) that, unlike
 * profiler_bench.ts's, records a captured graph per operation — the shape l1_peak's first call
 * reads in full: a device operation with three circular buffers, an L1 output, an L1
 * intermediate allocated and freed, a DRAM buffer and the tensor nodes around them, every
 * param a string as older captures write them (about 2.4 KB of JSON per operation) — plus five
 * buffers rows per operation and the tensor tables the stale split reads. Written into a
 * temporary directory and deleted afterwards.
 *
 * Reports, in-process: the first call on a fresh handle (reads every graph) and a repeated
 * call on the same handle, as medians of a few rounds with min–max. Prints a markdown table.
 */
import { DatabaseSync } from "node:sqlite";
import { session } from "../tests/_support/in_process.ts";
import { createSchema, spread } from "./_profiler_db.ts";

const opsArg = Deno.args.indexOf("--ops");
const OPS = opsArg >= 0 ? Number(Deno.args[opsArg + 1]) : 200_000;
const roundsArg = Deno.args.indexOf("--rounds");
const ROUNDS = roundsArg >= 0 ? Number(Deno.args[roundsArg + 1]) : 3;

const dir = await Deno.makeTempDir({ prefix: "ttnn-mcp-l1-bench-" });
try {
  const t0 = performance.now();
  const { size, graphChars } = generate(`${dir}/db.sqlite`, OPS);
  console.error(
    `generated ${OPS} operations (${(size / 2 ** 20).toFixed(0)} MiB, ${
      (graphChars / 2 ** 20).toFixed(0)
    } MiB of graph) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const s = session();
  const cold: number[] = [];
  const stalls: number[] = [];
  let answer: Record<string, unknown> = {};
  for (let i = 0; i < ROUNDS; i++) {
    // A fresh session: one session's loads of an unchanged report share one report's work.
    const own = session();
    const { handle } = await own.call("load_report", { profiler_path: dir });
    // The longest the event loop went without running a 10 ms timer: how long a ping waits.
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 10);
    const t = performance.now();
    answer = await own.call("l1_peak", { handle, limit: 10 });
    cold.push(performance.now() - t);
    clearInterval(timer);
    stalls.push(worst);
  }
  const { handle } = await s.call("load_report", { profiler_path: dir });
  await s.call("l1_peak", { handle });
  const warm: number[] = [];
  for (let i = 0; i < ROUNDS * 2; i++) {
    const t = performance.now();
    await s.call("l1_peak", { handle, limit: 100 });
    warm.push(performance.now() - t);
  }
  const peak = answer.peak as Record<string, unknown> | null;
  console.log(
    `${OPS.toLocaleString("en")} operations, ${(size / 2 ** 20).toFixed(0)} MiB (${
      (graphChars / 2 ** 20).toFixed(0)
    } MiB of captured graph); peak ${peak?.total_bytes} B/bank at operation ${peak?.operation_id}, ` +
      `${answer.composition_count} compositions\n\n` +
      `| call (median (min–max)) | first on a fresh handle | repeated |\n|---|---:|---:|\n` +
      `| l1_peak | ${spread(cold)} | ${spread(warm)} |\n\n` +
      `Longest event-loop stall during a first call: ${spread(stalls)}.`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}

/** One operation's graph, string-typed as older captures write it. */
function graphOf(id: number, name: string): string {
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

/** Writes the database; returns its size in bytes and its characters of graph. */
function generate(path: string, ops: number): { size: number; graphChars: number } {
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
    const text = graphOf(id, name);
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
