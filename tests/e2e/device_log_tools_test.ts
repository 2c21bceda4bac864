/**
 * zone_timings and core_spread through the official MCP SDK client against the real server
 * process with the production permission flags, on a generated multi-device capture with
 * trace replays.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { generateCapture } from "../../scripts/make_device_log.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";

type Row = Record<string, unknown>;

Deno.test("an agent reads zone totals and core spreads of a multi-device traced capture", async () => {
  // Prevents the device-log tools failing under the server's real flags or over the wire.
  await using dir = await tempDir();
  const source = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
  const { csv, log } = generateCapture(source, { devices: 2, replays: 2, clockMhz: 1350 });
  await writeFiles(dir.path, { "ops_perf_results_gen.csv": csv, "profile_log_device.csv": log });
  const table = parseCsvTable(csv, "gen.csv");
  const { client, close } = await connect();
  try {
    const loaded = await callOk(client, "load_report", { performance_path: dir.path });
    const answerable = loaded.answerable as string[];
    assert.ok(answerable.includes("zone_timings") && answerable.includes("core_spread"));
    const handle = loaded.handle;

    const zones = await callOk(client, "zone_timings", { handle, limit: 2 });
    assert.equal(zones.clock_mhz, 1350);
    assert.equal(zones.device_count, 2);
    assert.equal(zones.returned, 2);
    assert.equal((zones.rest as Row).zone_count, 8);
    const top = (zones.zones as Row[])[0];
    assert.equal(top.cores, 128, "64 cores on each of two devices");
    assert.match(String(zones.note), /occupancy/);

    const spread = await callOk(client, "core_spread", { handle, limit: 3 });
    assert.equal(spread.returned, 3);
    for (const op of spread.operations as Row[]) {
      const cells = table.rows[Number(op.id) - 2];
      const max = Number(cells[table.header.indexOf("DEVICE KERNEL DURATION PER CORE MAX [ns]")]);
      assert.equal((op.span_us as Row).max, max / 1000);
      assert.equal(op.device, Number(cells[table.header.indexOf("DEVICE ID")]));
    }
    assert.match(
      await callRefused(client, "core_spread", { handle, perf_id: 100000 }),
      /no performance row has id 100000/,
    );
  } finally {
    await close();
  }
});
