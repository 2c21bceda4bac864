/**
 * A log read in slices — on this thread or on workers — is read exactly as one pass reads it:
 * pairs across slice seams, unpaired counts, left-out rows and their lines, kernel spans.
 */
import assert from "node:assert/strict";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { generateCapture } from "../../scripts/make_device_log.ts";
import { readLog } from "./_logs.ts";
import type { DeviceLogSummary } from "../../src/device_log/summary.ts";

const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/**
 * Fails unless two reads of the same log agree on everything but the file's identity (each
 * read rewrites the file), compared field by field and row by row so a failure's diff is small.
 */
function assertSameRead(actual: DeviceLogSummary, expected: DeviceLogSummary, label: string) {
  const { identity: _a, spans: spansA, ...restA } = actual;
  const { identity: _b, spans: spansB, ...restB } = expected;
  assert.deepEqual(restA, restB, label);
  assert.equal(spansA === null, spansB === null, label);
  if (spansA === null || spansB === null) return;
  assert.equal(spansA.kernelRowsWithoutRow, spansB.kernelRowsWithoutRow, label);
  assert.deepEqual([...spansA.byRow.keys()], [...spansB.byRow.keys()], label);
  for (const [row, spans] of spansB.byRow) {
    assert.deepEqual(spansA.byRow.get(row), spans, `${label}, row index ${row}`);
  }
  // One record per (window, lane), its starts less ends summed across seams, as one pass has it.
  assert.deepEqual(spansA.windows, spansB.windows, `${label}: kernel records`);
}

/** A capture with every awkward thing: replays, two devices, bad rows, an unpaired end, a cut. */
function awkward(): { csv: string; log: string } {
  const { csv, log } = generateCapture(demoCsv, {
    devices: 2,
    replays: 2,
    truncateAfterRows: 40_000,
    seed: 7,
  });
  const lines = log.split("\n");
  lines[500] = lines[500].replace(/^\d+, /, "zero, ");
  lines[9000] = "0, 1, 1, BRISC";
  lines.splice(20_000, 0, "", "0, 3, 3, NCRISC, 1, 5, 0, 1024, , , NCRISC-FW, ZONE_END, 1, f, ");
  return { csv, log: lines.join("\n") };
}

Deno.test("a log read in slices on this thread pairs and counts exactly as one pass", async () => {
  // Prevents a zone split by a slice seam going unpaired, or a bad row's line shifting.
  await using dir = await tempDir();
  const { csv, log } = awkward();
  const whole = await readLog(dir.path, log, { csv, slices: 1 });
  assert.ok(whole.pairing!.unmatched_starts > 0 && whole.pairing!.unmatched_ends === 1);
  assert.equal(whole.leftOut.count, 2);
  for (const slices of [2, 3, 7]) {
    const sliced = await readLog(dir.path, log, { csv, slices, workers: false });
    assertSameRead(sliced, whole, `${slices} slices`);
  }
});

Deno.test("a log read in slices on worker threads gives the same answer", async () => {
  // Prevents the worker path (posting, transferring, merging) from drifting from the one-pass read.
  await using dir = await tempDir();
  const { csv, log } = awkward();
  const whole = await readLog(dir.path, log, { csv, slices: 1 });
  const sliced = await readLog(dir.path, log, { csv, slices: 3, workers: true });
  assertSameRead(sliced, whole, "3 slices on workers");
});

Deno.test("slices of a log without a boundary column count rows the same way", async () => {
  // Prevents occurrence counts doubling or vanishing at a seam when nothing pairs.
  await using dir = await tempDir();
  const { log } = generateCapture(demoCsv, { phase: false, replays: 2 });
  const whole = await readLog(dir.path, log, { slices: 1 });
  assertSameRead(await readLog(dir.path, log, { slices: 4, workers: false }), whole, "4 slices");
});
