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
import { session } from "../tests/_support/in_process.ts";
import { spread } from "./_profiler_db.ts";
import { writeGraphDb } from "../scripts/make_large_profiler_db.ts";

const opsArg = Deno.args.indexOf("--ops");
const OPS = opsArg >= 0 ? Number(Deno.args[opsArg + 1]) : 200_000;
const roundsArg = Deno.args.indexOf("--rounds");
const ROUNDS = roundsArg >= 0 ? Number(Deno.args[roundsArg + 1]) : 3;

const dir = await Deno.makeTempDir({ prefix: "ttnn-mcp-l1-bench-" });
try {
  const t0 = performance.now();
  const { size, graphChars } = writeGraphDb(`${dir}/db.sqlite`, OPS);
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
