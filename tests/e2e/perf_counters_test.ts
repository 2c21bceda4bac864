/**
 * perf_counters through the official MCP SDK client against the real server process with the
 * production permission flags: listed by load_report for a capture with counters, answering
 * with known ratios, and refused (with how to capture counters) for one without.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { generateCapture } from "../../scripts/make_device_log.ts";
import { generateCounterCapture } from "../../scripts/make_counter_log.ts";

type Row = Record<string, unknown>;

Deno.test("an agent reads an op code's pooled counters and is told when none were captured", async () => {
  // Prevents perf_counters failing under the server's real flags or over the wire.
  await using withCounters = await tempDir();
  await using without = await tempDir();
  const source = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
  const counted = generateCounterCapture(source, {
    devices: 2,
    replays: 2,
    clockMhz: 1350,
    counters: (s) => ({ FPU_COUNTER: s.device === 0 ? 0.6 : 0.8, THREAD_STALLS_1: 0.05 }),
    ref: () => 20_000,
  });
  await writeFiles(withCounters.path, {
    "ops_perf_results_gen.csv": counted.csv,
    "profile_log_device.csv": counted.log,
  });
  const plain = generateCapture(source, {});
  await writeFiles(without.path, {
    "ops_perf_results_gen.csv": plain.csv,
    "profile_log_device.csv": plain.log,
  });
  const { client, close } = await connect();
  try {
    const loaded = await callOk(client, "load_report", { performance_path: withCounters.path });
    assert.ok((loaded.answerable as string[]).includes("perf_counters"));
    const handle = loaded.handle;

    const all = await callOk(client, "perf_counters", { handle, op_code: "LayerNorm" });
    assert.equal(all.calls_in_csv, 8, "4 LayerNorms on each of 2 devices");
    const fpu = (all.pooled as Row).fpu_utilisation as Row;
    assert.equal(fpu.pooled_pct, 70, "devices at 60% and 80%, equal refs");
    assert.equal(fpu.median_pct, 70);
    assert.equal(fpu.min_pct, 60);
    assert.equal(fpu.max_pct, 80);
    assert.match(String(all.method), /never are subtracted/);

    const one = await callOk(client, "perf_counters", { handle, op_code: "LayerNorm", device: 1 });
    assert.equal(((one.pooled as Row).fpu_utilisation as Row).pooled_pct, 80);

    const other = await callOk(client, "load_report", { performance_path: without.path });
    assert.ok((other.unanswerable as string[]).includes("perf_counters"));
    assert.match(
      await callRefused(client, "perf_counters", { handle: other.handle }),
      /no performance-counter rows.*TT_METAL_PROFILE_PERF_COUNTERS/,
    );
  } finally {
    await close();
  }
});

Deno.test("perf_counters takes the label top_ops printed, and a label matching nothing lists the op codes", async () => {
  // Prevents perf_counters refusing "Matmul 32 x 8192 x 2048" (one shape) that top_ops printed,
  // and a refusal that leaves the agent guessing the op codes.
  await using dir = await tempDir();
  const source = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
  const counted = generateCounterCapture(source, {
    devices: 1,
    replays: 1,
    clockMhz: 1000,
    counters: () => ({ FPU_COUNTER: 0.5 }),
    ref: () => 20_000,
  });
  await writeFiles(dir.path, {
    "ops_perf_results_gen.csv": counted.csv,
    "profile_log_device.csv": counted.log,
  });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const label = "Matmul 32 x 8192 x 2048";
    const top = await callOk(client, "top_ops", { handle, op_code: label, limit: 100 });
    const shape = await callOk(client, "perf_counters", { handle, op_code: label });
    assert.equal(shape.calls_in_csv, (top.ops as Row[]).length);
    const all = await callOk(client, "perf_counters", { handle, op_code: "Matmul" });
    assert.ok((all.calls_in_csv as number) > (shape.calls_in_csv as number));
    assert.match(
      await callRefused(client, "perf_counters", { handle, op_code: "NoSuchOp" }),
      /its op codes: .*Matmul/,
    );
  } finally {
    await close();
  }
});
