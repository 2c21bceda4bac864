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
import { session } from "../tests/_support/in_process.ts";
import { spread } from "./_profiler_db.ts";
import { writeDetailDb } from "../scripts/make_large_profiler_db.ts";

const opsArg = Deno.args.indexOf("--ops");
const OPS = opsArg >= 0 ? Number(Deno.args[opsArg + 1]) : 200_000;
const ROUNDS = 5;

const dir = await Deno.makeTempDir({ prefix: "ttnn-mcp-detail-bench-" });
try {
  let t = performance.now();
  const size = writeDetailDb(`${dir}/db.sqlite`, OPS);
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
