import assert from "node:assert/strict";
import { callOk, connect } from "../_support/server.ts";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;

Deno.test("operation_detail's circular buffers, error and DRAM fallback over stdio", async () => {
  // Prevents the new fields breaking on the wire: the published description, the structured
  // answer through the official SDK client, and each shape's counts and caveats.
  const { client, close } = await connect();
  try {
    const { tools } = await client.listTools();
    const detail = tools.find((t) => t.name === "operation_detail")!;
    assert.match(detail.description!, /circular buffers/);
    assert.match(detail.description!, /DRAM fallback/);
    const old = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_mesh_per_device_launches`,
    });
    assert.ok((old.answerable as string[]).includes("operation_detail"));
    const failed = await callOk(client, "operation_detail", {
      handle: old.handle,
      operation_id: 14,
    });
    const cbs = failed.circular_buffers as Row;
    assert.equal(cbs.size_unit, "bytes_per_bank");
    assert.deepEqual(
      (cbs.device_operations as Row[]).map((e) => [e.name, e.max_bytes_per_core]),
      [["MatmulDeviceOperation", 409600 + 98304]],
    );
    assert.deepEqual((failed.error as Row).failed_device_operations, ["MatmulDeviceOperation"]);
    assert.equal(failed.dram_fallback, null);
    const cut = await callOk(client, "operation_detail", { handle: old.handle, operation_id: 15 });
    assert.equal((cut.circular_buffers as Row).unlisted_circular_buffer_count, 2);
    assert.match(String(cut.caveat), /not listed/);
    const warm = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_mesh_warm_cache`,
    });
    const cached = await callOk(client, "operation_detail", {
      handle: warm.handle,
      operation_id: 14,
    });
    assert.equal((cached.circular_buffers as Row).unrecorded_launch_count, 1);
    assert.match(String(cached.caveat), /unknown rather than zero/);
    const run = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_failed_run`,
    });
    const retry = await callOk(client, "operation_detail", {
      handle: run.handle,
      operation_id: 14,
    });
    assert.equal((retry.dram_fallback as Row).signal, "retry_after_failure");
  } finally {
    await close();
  }
});
