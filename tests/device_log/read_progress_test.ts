/**
 * The device-log read says how far it is: bytes read of the file's size, rising, from every
 * slice — those on workers too — up to the size; and every call waiting on a handle's shared
 * read hears it, each through its own progress.
 */
import assert from "node:assert/strict";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { writeCapture } from "../../scripts/make_device_log.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import { READ_PROGRESS_MESSAGE, readDeviceLog } from "../../src/device_log/read.ts";
import { deviceLogSummary } from "../../src/session/device_log.ts";
import { sessionWith } from "../_support/in_process.ts";
import { zoneTimings } from "../../src/tools/zone_timings.ts";
import type { Progress } from "../../src/kit/progress.ts";

const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/** A progress that keeps what it hears. */
function recorder(): Progress & { heard: [number, number | null, string][] } {
  const heard: [number, number | null, string][] = [];
  return { heard, report: (d, t, m) => heard.push([d, t, m]) };
}

Deno.test("the read reports bytes read of the file's size, from every slice, up to the size", async () => {
  // Prevents a long read telling nothing until it answers, progress from worker slices being
  // lost (it would stop short of the size), and a figure that falls back.
  await using dir = await tempDir();
  const size = await writeCapture(dir.path, demoCsv, { targetBytes: 6e6 });
  const probe = (await probeDeviceLog(`${dir.path}/profile_log_device.csv`))!;
  for (const workers of [true, false]) {
    const p = recorder();
    await readDeviceLog(probe, null, { slices: 3, workers, bufferBytes: 256 << 10, progress: p });
    assert.ok(p.heard.length >= 20, `${p.heard.length} reports`);
    assert.ok(p.heard.every(([, t, m]) => t === size && m === READ_PROGRESS_MESSAGE));
    assert.ok(p.heard.every(([d], i) => i === 0 || d > p.heard[i - 1][0]), "rising");
    assert.equal(p.heard[p.heard.length - 1][0], size, `workers: ${workers}`);
  }
});

Deno.test("every call waiting on the shared read hears its progress", async () => {
  // Prevents only the call that started a read hearing it, while a second waits in silence.
  await using dir = await tempDir();
  const size = await writeCapture(dir.path, demoCsv, { targetBytes: 6e6 });
  const s = sessionWith([zoneTimings]);
  const { handle } = await s.load(dir.path);
  const report = await s.registry.get(String(handle));
  const [one, two] = [recorder(), recorder()];
  await Promise.all([
    deviceLogSummary({ tool: "zone_timings", report, progress: one }, "zones"),
    deviceLogSummary({ tool: "zone_timings", report, progress: two }, "zones"),
  ]);
  for (const p of [one, two]) {
    assert.ok(p.heard.length > 0);
    assert.equal(p.heard[p.heard.length - 1][0], size);
  }
});
