/**
 * device_timeline, core_utilisation and core_states through the official MCP SDK client
 * against the real server process with the production permission flags, on a generated
 * two-device capture with trace replays.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { generateCapture } from "../../scripts/make_device_log.ts";

type Row = Record<string, unknown>;

Deno.test("an agent reads busy time, core utilisation and core states of a traced capture", async () => {
  // Prevents the timeline tools failing under the server's real flags or over the wire.
  await using dir = await tempDir();
  const source = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
  const { csv, log } = generateCapture(source, { devices: 2, replays: 3, clockMhz: 1350 });
  await writeFiles(dir.path, { "ops_perf_results_gen.csv": csv, "profile_log_device.csv": log });
  const { client, close } = await connect();
  try {
    const loaded = await callOk(client, "load_report", { performance_path: dir.path });
    for (const tool of ["device_timeline", "core_utilisation", "core_states"]) {
      assert.ok((loaded.answerable as string[]).includes(tool), tool);
    }
    const handle = loaded.handle;

    const timeline = await callOk(client, "device_timeline", { handle, device: 1 });
    assert.equal(timeline.device, 1);
    assert.equal(timeline.clock_mhz, 1350);
    const busy = timeline.busy_cycles as number;
    const parts = (timeline.op_interval_sum_cycles as number) +
      (timeline.gap_sum_cycles as number) + (timeline.residual_cycles as number);
    assert.equal(parts, busy, "op intervals + gaps + residual = busy");
    const iterations = timeline.iterations as Row;
    assert.equal(iterations.by, "signpost", "each pass repeats the demo's signposts");
    assert.equal(iterations.count, 3, "one iteration per pass");

    const util = await callOk(client, "core_utilisation", { handle, op_code: "Matmul" });
    assert.equal(util.cores_in_log, 64);
    const classes = util.classes as Record<string, Row>;
    const counted = Object.values(classes).reduce((n, c) => n + (c.cores as number), 0);
    assert.equal(counted, 64, "every core of the log is in one class");

    const states = await callOk(client, "core_states", { handle, op_code: "Matmul" });
    const shares = Object.values(states.states as Row).map((s) => (s as Row).share_percent);
    assert.ok(
      Math.abs(shares.reduce((a, b) => (a as number) + (b as number), 0) as number - 100) < 0.01,
    );

    assert.match(
      await callRefused(client, "core_states", { handle }),
      /exactly one of perf_id and op_code/,
    );
  } finally {
    await close();
  }
});
