/**
 * A device log larger than load_report reads whole: load_report says how much it sampled and
 * labels what it judged from the sample; the tools read every byte — zone_timings counts every
 * device — and a byte past the sample that is not UTF-8 is refused by each tool that reads the
 * log, naming its line, and refused again without another read.
 */
import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { sessionWith } from "../_support/in_process.ts";
import { zoneTimings } from "../../src/tools/zone_timings.ts";
import { perfCounters } from "../../src/tools/perf_counters.ts";
import { coreSpread } from "../../src/tools/core_spread.ts";
import { SAMPLE_HEAD_BYTES, SAMPLE_TAIL_BYTES } from "../../src/device_log/probe.ts";
import { counterRow } from "../../scripts/make_counter_log.ts";
import { v4, v4Log } from "./_logs.ts";

type Row = Record<string, unknown>;

const SAMPLED = SAMPLE_HEAD_BYTES + SAMPLE_TAIL_BYTES;

/**
 * A log written device by device (0, 1, 2), each a little more than the sample's halves, with
 * `zone` rows and a counter row at its start when `counters`: the sample sees devices 0 and 2.
 */
function bigLog(zone = "BRISC-KERNEL", counters = true): string {
  const rowBytes = v4(0, 1, 1, "BRISC", 100_000, 7, zone, "ZONE_START").length + 1;
  const perDevice = Math.ceil((SAMPLE_HEAD_BYTES + (1 << 19)) / rowBytes);
  const rows: string[] = [];
  if (counters) {
    rows.push(
      counterRow({ device: 0, x: 1, y: 1, run: 7, replay: 0 }, "FPU_COUNTER", 1000, 723, 950),
    );
  }
  for (let slot = 0; slot < 3; slot++) {
    for (let i = 0; i < perDevice; i++) {
      rows.push(v4(slot, 1, 1, "BRISC", 100 + i, 7, zone, i % 2 ? "ZONE_END" : "ZONE_START"));
    }
  }
  return v4Log(rows);
}

Deno.test("load_report labels what it sampled; zone_timings counts every device", async () => {
  // Prevents a count taken from part of a large log passing for the whole log's, and the
  // sample's count standing in for the one the full read finds.
  await using dir = await tempDir();
  const text = bigLog();
  await writeFiles(dir.path, { "profile_log_device.csv": text });
  const s = sessionWith([zoneTimings]);
  const a = await s.load(dir.path);
  const log = a.device_log as Row;
  assert.equal(log.decodes, true);
  const sampled = log.sampled as Row;
  assert.deepEqual([sampled.bytes_read, sampled.bytes], [SAMPLED, text.length]);
  assert.match(String(sampled.note), /judged from them.*zone_timings' device_count counts every/);
  assert.deepEqual(a.device_count, {
    device_log: 2,
    device_log_sampled: { bytes_read: SAMPLED, bytes: text.length },
  });
  const zones = await s.call("zone_timings", { handle: a.handle });
  assert.equal(zones.device_count, 3);
});

Deno.test("a byte past the sample that is not UTF-8 is refused by every reading tool, by line", async () => {
  // Prevents a tool answering from a log load_report only sampled when a later byte is not
  // UTF-8, and the refusal costing a whole read again on the next call.
  await using dir = await tempDir();
  const text = bigLog();
  const bytes = new TextEncoder().encode(text);
  const at = text.indexOf("\n", Math.floor(text.length / 2)) + 5;
  bytes[at] = 0xff;
  const line = text.slice(0, at).split("\n").length;
  await writeFiles(dir.path, { "profile_log_device.csv": bytes });
  const s = sessionWith([zoneTimings, perfCounters]);
  const a = await s.load(dir.path);
  assert.equal((a.device_log as Row).decodes, true, "load_report did not read that far");
  assert.ok((a.answerable as string[]).includes("zone_timings"));
  const why =
    `profile_log_device.csv is not UTF-8 text (the first invalid byte is on line ${line})`;
  for (const tool of ["zone_timings", "perf_counters"]) {
    const refusal = await s.refusal(tool, { handle: a.handle });
    assert.equal(refusal, `${tool} cannot answer for ${a.handle}: ${why}`);
  }
  const report = await s.registry.get(String(a.handle));
  const kept = [...report.cache.keys()];
  assert.equal(kept.length, 2, "both refusals are kept");
  assert.match(await s.refusal("zone_timings", { handle: a.handle }), /line \d+\)$/);
  assert.deepEqual([...report.cache.keys()], kept);
});

Deno.test("what the sample lacks is said to be the sample's", async () => {
  // Prevents a reason claiming a whole large log lacks counter rows when only its start and
  // end were read.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "profile_log_device.csv": bigLog("BRISC-FW", false) });
  const s = sessionWith([zoneTimings, perfCounters, coreSpread]);
  const a = await s.load(dir.path);
  const reasons = reasonsByTool(a);
  assert.match(
    reasons.perf_counters,
    /holds no performance-counter rows .* in the 8 MiB load_report read of its \d+(\.\d)? MiB \(its first 4 MiB and last 4 MiB/,
  );
});
