/**
 * The counter-log generator: it adds counter rows to make_device_log.ts's capture without
 * changing a byte of it, in the documented format, with values whose ratios are known.
 */
import assert from "node:assert/strict";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { generateCapture } from "../../scripts/make_device_log.ts";
import { generateCounterCapture, nocOfCore } from "../../scripts/make_counter_log.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import { scanCounters } from "../../src/device_log/_counter_scan.ts";

const SOURCE = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

Deno.test("the zone capture underneath is byte-identical to make_device_log's", () => {
  // Prevents the counter generator altering the existing generated output.
  const options = { devices: 2, replays: 2, clockMhz: 1350 };
  const plain = generateCapture(SOURCE, options);
  const counted = generateCounterCapture(SOURCE, options);
  assert.equal(counted.csv, plain.csv);
  assert.ok(counted.log.startsWith(plain.log));
  assert.ok(counted.log.length > plain.log.length);
});

Deno.test("counter rows are TS_DATA rows of timer 9090 with semicolon meta data", () => {
  // Prevents fixtures drifting from the format tt-metal writes.
  const { log } = generateCounterCapture(SOURCE, {
    counters: () => ({ FPU_COUNTER: 0.25 }),
    ref: () => 4000,
  });
  const row = log.trimEnd().split("\n").at(-1)!;
  const cells = row.split(", ");
  assert.equal(cells[4], "9090");
  assert.equal(cells[11], "TS_DATA");
  assert.equal(cells[14], '{"counter type":"FPU_COUNTER";"ref cnt":4000;"value":1000}');
  assert.ok(!cells[14].includes(","));
});

Deno.test("every core of every instance gets the ratio asked for, read back exactly", async () => {
  // Prevents fixtures whose ratios the tests assume differing from what they contain.
  await using dir = await tempDir();
  const { log } = generateCounterCapture(SOURCE, {
    replays: 2,
    counters: (s) => ({ FPU_COUNTER: (s.core + 1) / 100, THREAD_STALLS_1: s.replay / 10 }),
    ref: (s) => 1000 * (s.op + 1),
  });
  await Deno.writeTextFile(`${dir.path}/profile_log_device.csv`, log);
  const scan = await scanCounters((await probeDeviceLog(`${dir.path}/profile_log_device.csv`))!);
  const embeddings = scan.ops.get("0|1024")!; // 2 cores, the demo's first operation
  assert.deepEqual(embeddings.replays, ["", "1"]);
  const fpu = embeddings.series.get("FPU_COUNTER")!;
  assert.deepEqual(fpu.req, [10, 20, 10, 20]);
  assert.deepEqual(fpu.ref, [1000, 1000, 1000, 1000]);
  const [x, y] = nocOfCore(1);
  assert.equal(fpu.core[1], x * 1024 + y);
  assert.deepEqual(embeddings.series.get("THREAD_STALLS_1")!.req, [0, 0, 100, 100]);
  assert.equal(scan.ops.size, 24, "every device operation of the demo");
});
