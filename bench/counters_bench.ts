/**
 * The counter reader at scale. Generates a counter capture from the demo's ops CSV into a
 * temporary directory (`--replays` passes, every core of every operation with the generator's
 * default thirteen counters; 110 replays is about 250 MB and 880,000 counter rows), never
 * committed and deleted afterwards, then times in this process, median of `--rounds`:
 *
 *  - load_report's probe (one pass: UTF-8 check and counter-row count);
 *  - the counter scan (what perf_counters' first call reads);
 *  - the figures of every operation pooled (the largest op_code answer possible).
 *
 *   deno run --allow-read --allow-write bench/counters_bench.ts [--replays 110] [--rounds 3]
 *
 * Figures are this machine's; copy them into bench/RESULTS.md with the date.
 */
import { generateCounterCapture } from "../scripts/make_counter_log.ts";
import { probeDeviceLog } from "../src/device_log/probe.ts";
import { scanCounters } from "../src/device_log/_counter_scan.ts";
import { counterFigures } from "../src/device_log/counters.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
const replays = arg("replays", 110);
const rounds = arg("rounds", 3);
const root = new URL("../", import.meta.url).pathname;
const csv = await Deno.readTextFile(`${root}fixtures/demo/performance/ops_perf_results_demo.csv`);
const dir = await Deno.makeTempDir({ prefix: "ttnn-counters-bench-" });
try {
  const path = `${dir}/profile_log_device.csv`;
  await Deno.writeTextFile(path, generateCounterCapture(csv, { replays }).log);
  const size = (await Deno.stat(path)).size;
  const median = async (f: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t = performance.now();
      await f();
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[rounds >> 1];
  };
  const probe = (await probeDeviceLog(path))!;
  const probeMs = await median(() => probeDeviceLog(path));
  const scanMs = await median(() => scanCounters(probe));
  const scan = await scanCounters(probe);
  const figuresMs = await median(() => Promise.resolve(counterFigures([...scan.ops.values()])));
  console.log(
    [
      `| log | counter rows | probe | scan | all figures | RSS |`,
      `|---|---|---|---|---|---|`,
      `| ${(size / 1e6).toFixed(0)} MB | ${probe.counterRows} | ${probeMs.toFixed(0)} ms | ${
        scanMs.toFixed(0)
      } ms | ${figuresMs.toFixed(0)} ms | ${(Deno.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB |`,
    ].join("\n"),
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
