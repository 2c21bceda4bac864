/** The synthetic device-log generator (scripts/make_device_log.ts) the other tests stand on. */
import assert from "node:assert/strict";
import { DEMO, tempDir } from "../_support/dirs.ts";
import {
  coreSpans,
  cyclesToNs,
  generateCapture,
  writeCapture,
} from "../../scripts/make_device_log.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { readLog } from "./_logs.ts";

const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
const small = demoCsv.split("\n").slice(0, 6).join("\n") + "\n";

Deno.test("the generator is deterministic for a seed", () => {
  // Prevents fixtures and benchmarks that change from run to run.
  assert.deepEqual(generateCapture(small, { seed: 3 }), generateCapture(small, { seed: 3 }));
  assert.notEqual(generateCapture(small, { seed: 3 }).log, generateCapture(small, { seed: 4 }).log);
});

Deno.test("every header variant carries the same zones", async () => {
  // Prevents a variant the reader is tested on from holding different data by accident.
  await using dir = await tempDir();
  const read = async (options: Parameters<typeof generateCapture>[1]) =>
    (await readLog(dir.path, generateCapture(small, options).log)).zones;
  const base = await read({});
  for (const header of ["v2", "v3", "v5"] as const) assert.deepEqual(await read({ header }), base);
  assert.deepEqual(await read({ spaced: false, crlf: true, finalNewline: false }), base);
  const v2 = generateCapture(small, { header: "v2" }).log.split("\n")[1];
  assert.ok(v2.includes("run host ID,  zone name, zone phase,"), v2);
  assert.doesNotMatch(generateCapture(small, { phase: false }).log.split("\n")[1], /, type,/);
});

Deno.test("the CSV written beside the log records what the log holds", () => {
  // Prevents agreement tests passing against a CSV the log does not reproduce.
  const { csv, log } = generateCapture(small, { clockMhz: 1350 });
  const table = parseCsvTable(csv, "x.csv");
  const col = (n: string) => table.header.indexOf(n);
  const row = table.rows.find((r) => r[col("OP TYPE")] === "tt_dnn_device")!;
  const times = log.trimEnd().split("\n").slice(2).map((l) => l.split(", "))
    .filter((c) => c[7] === row[col("GLOBAL CALL COUNT")] && c[10].endsWith("-FW"))
    .map((c) => Number(c[5]));
  assert.equal(Number(row[col("DEVICE FW START CYCLE")]), Math.min(...times));
  assert.equal(Number(row[col("DEVICE FW END CYCLE")]), Math.max(...times));
  assert.equal(
    Number(row[col("DEVICE FW DURATION [ns]")]),
    cyclesToNs(Math.max(...times) - Math.min(...times), 1350),
  );
});

Deno.test("core spans hit the target minimum, maximum and average", () => {
  // Prevents a generated op whose per-core columns cannot match its zones.
  let seed = 1;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const spans = coreSpans(7, 100, 200, 150, rnd);
  assert.deepEqual([Math.min(...spans), Math.max(...spans)], [100, 200]);
  assert.equal(spans.reduce((a, b) => a + b, 0), 1050);
  assert.deepEqual(coreSpans(1, 100, 200, 150, rnd), [200]);
});

Deno.test("a target size repeats the operations as replays until the log reaches it", async () => {
  // Prevents the benchmark measuring a smaller file than it reports.
  await using dir = await tempDir();
  const bytes = await writeCapture(dir.path, small, { targetBytes: 3_000_000 });
  assert.ok(bytes >= 3_000_000 && bytes < 3_000_000 + 2 ** 21, String(bytes));
  assert.equal((await Deno.stat(`${dir.path}/profile_log_device.csv`)).size, bytes);
});

Deno.test("cycles become nanoseconds with ties to even", () => {
  // Prevents the generator's CSV drifting from tt-metal's %.0f by half a nanosecond.
  assert.equal(cyclesToNs(1, 2000), 0); // 0.5 → 0
  assert.equal(cyclesToNs(3, 2000), 2); // 1.5 → 2
  assert.equal(cyclesToNs(1350, 1350), 1000);
});
