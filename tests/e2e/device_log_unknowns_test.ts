/**
 * The device-log answers an agent acts on, through the official MCP SDK client against the
 * real server: a log cut mid-kernel and a log whose profiler buffers filled leave cores
 * unknown (never 0 µs, never idle), figures summed over cores say they are core-time,
 * device_timeline names its basis beside tt-perf-report's totals, load_report counts the
 * log's devices, and a refusal for want of a log says how to capture one.
 */
import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { notesRead } from "../_support/notes.ts";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { type CaptureOptions, generateCapture } from "../../scripts/make_device_log.ts";

type Row = Record<string, unknown>;

const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/** A generated capture in a fresh directory. */
async function capture(options: CaptureOptions) {
  const dir = await tempDir();
  const { csv, log } = generateCapture(demoCsv, options);
  await writeFiles(dir.path, { "ops_perf_results_gen.csv": csv, "profile_log_device.csv": log });
  return dir;
}

Deno.test("an agent reading a log cut mid-kernel gets the cut core unknown, and named units", async () => {
  // Prevents a kernel start with no end reading as a 0 µs span or an idle core over the wire,
  // and core-summed figures passing as elapsed µs.
  // Four rows per RISC and operation: row 202 is a kernel start whose end was cut off.
  await using dir = await capture({ truncateAfterRows: 202 });
  const lines = Deno.readTextFileSync(`${dir.path}/profile_log_device.csv`).trimEnd().split("\n");
  assert.match(lines[lines.length - 1], /-KERNEL, ZONE_START/);
  const { client, close } = await connect();
  try {
    const loaded = await callOk(client, "load_report", { performance_path: dir.path });
    const handle = loaded.handle;
    const spread = await callOk(client, "core_spread", { handle, limit: 25 });
    const cut = (spread.operations as Row[]).find((o) => (o.cores_unpaired as number) > 0)!;
    assert.ok(cut, "the operation the log stopped in has an unpaired core");
    const unknown = cut.unknown_cores as Row[];
    assert.deepEqual(unknown.map((c) => [c.span_us, c.why]), [[null, "unpaired"]]);
    assert.ok((cut.span_us as Row).min as number > 0, "no 0 µs span among the known cores");
    const slow = (cut.slowest_cores as Row[]).map((c) => `${c.core_x},${c.core_y}`);
    assert.ok(!slow.includes(`${unknown[0].core_x},${unknown[0].core_y}`));

    const perfId = Number(cut.id);
    const util = await callOk(client, "core_utilisation", { handle, perf_id: perfId });
    const classes = util.classes as Record<string, Row>;
    assert.equal(classes.unknown.cores, 1);
    assert.equal((classes.unknown.examples as Row[])[0].x, unknown[0].core_x);
    assert.ok(
      !(classes.idle.examples as Row[]).some((c) =>
        c.x === unknown[0].core_x && c.y === unknown[0].core_y
      ),
      "the cut core is not idle",
    );

    const states = await callOk(client, "core_states", { handle, perf_id: perfId });
    const math = (states.states as Record<string, Row>).math;
    assert.deepEqual(Object.keys(math), ["core_cycles", "core_us", "share_percent"]);
    assert.match((await notesRead(client, states))["core_states.states"], /core-time/);
    assert.equal((states.unknown_cores as Row).unpaired, 1);

    const zones = await callOk(client, "zone_timings", { handle });
    assert.equal(zones.total_unit, "core_cycles_and_core_us");
  } finally {
    await close();
  }
});

Deno.test("an agent sees the cores whose profiler buffer filled as unknown, not idle, thereafter", async () => {
  // Prevents a full buffer's later, missing zones reading as idle cores or a lower mean.
  // The first two cores of each operation record six markers per RISC: one operation whole,
  // then a firmware start and a kernel start, and nothing more.
  await using dir = await capture({ replays: 2, bufferFull: { cores: 2, markers: 6 } });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const util = await callOk(client, "core_utilisation", { handle });
    const classes = util.classes as Record<string, Row>;
    assert.equal(classes.unknown.cores, 2);
    assert.equal(classes.idle.cores, 0);
    assert.deepEqual(util.mean_utilisation_over, { cores: 62, unknown_left_out: 2 });
    const spread = await callOk(client, "core_spread", { handle, limit: 3 });
    for (const op of spread.operations as Row[]) {
      assert.equal(op.cores_record_stopped, 2, `perf_id ${op.id}`);
      assert.match(String(op.caveat), /record had stopped mid-kernel/);
    }
  } finally {
    await close();
  }
});

Deno.test("device_timeline says its basis and gives tt-perf-report's totals beside its own", async () => {
  // Prevents two definitions of an operation's time answering side by side unexplained.
  await using dir = await capture({});
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const t = await callOk(client, "device_timeline", { handle });
    assert.equal(t.basis, "op_interval");
    const tt = t.tt_perf_report as Row;
    assert.equal(tt.basis, "device_kernel_duration");
    const top = await callOk(client, "top_ops", { handle });
    assert.equal(tt.device_time_sum_us, top.device_time_total, "the same rows top_ops sums");
    // The generator writes the CSV's kernel durations from the log it writes.
    assert.match(String(tt.why_they_differ), /exactly the firmware tails/);
    assert.equal(
      Math.round(((t.op_interval_sum_us as number) - (tt.device_time_sum_us as number)) * 1000),
      Math.round((tt.firmware_tail_sum_us as number) * 1000),
    );
  } finally {
    await close();
  }
});

Deno.test("load_report counts the devices of a device log, even one device of a T3K alone", async () => {
  // Prevents device_count ignoring the device log ({} for a T3K log of device 3).
  await using many = await capture({ devices: 4 });
  await using one = await tempDir();
  const row = (t: number, type: string) =>
    `3, 1, 1, BRISC, 1, ${t}, 0, 5, , , BRISC-FW, ${type}, 10, k.cc, `;
  await writeFiles(one.path, {
    "profile_log_device.csv": [
      "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64",
      "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], " +
      "data, run host ID, trace id, trace id counter, zone name, type, source line, source " +
      "file, meta data",
      row(100, "ZONE_START"),
      row(200, "ZONE_END"),
    ].join("\n") + "\n",
  });
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: many.path });
    assert.equal((a.device_count as Row).device_log, 4);
    const b = await callOk(client, "load_report", { performance_path: one.path });
    assert.deepEqual(b.device_count, { device_log: 1 });
  } finally {
    await close();
  }
});

Deno.test("without a device log the device-log tools say how to capture one", async () => {
  // Prevents a refusal that names the missing file but not how to get it.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "ops_perf_results_demo.csv": demoCsv });
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: dir.path });
    const capture = /TT_METAL_DEVICE_PROFILER=1.*python -m tracy -r/;
    for (const tool of ["zone_timings", "core_spread", "device_timeline", "core_utilisation"]) {
      assert.match(String(reasonsByTool(a)[tool]), capture, tool);
    }
    assert.match(String(reasonsByTool(a).perf_counters), /--profiler-capture/);
    assert.match(await callRefused(client, "device_timeline", { handle: a.handle }), capture);
    assert.match(
      await callRefused(client, "core_states", { handle: a.handle, perf_id: 2 }),
      capture,
    );
  } finally {
    await close();
  }
});
