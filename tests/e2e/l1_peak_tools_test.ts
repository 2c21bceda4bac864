import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;

Deno.test("an out-of-memory question answered by l1_peak over stdio: the peak, its parts, and a withheld replay", async () => {
  // Prevents l1_peak breaking on the wire: its schema, load_report's listing, the answer's
  // decomposition, the withheld figures and a rank refusal.
  const { client, close } = await connect();
  try {
    const { tools } = await client.listTools();
    const tool = tools.find((x) => x.name === "l1_peak");
    const schema = tool?.inputSchema as { properties: Row; required: string[] };
    assert.ok(schema, "l1_peak is listed");
    assert.deepEqual(Object.keys(schema.properties).sort(), ["handle", "limit", "rank"]);
    assert.deepEqual(schema.required, ["handle"]);
    assert.match(tool!.description!, /out-of-memory question/);
    assert.equal(tool!.annotations?.readOnlyHint, true);

    const a = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_l1_peak`,
    });
    assert.ok((a.answerable as string[]).includes("l1_peak"));
    const p = await callOk(client, "l1_peak", { handle: a.handle, limit: 2 });
    const peak = p.peak as Row;
    assert.deepEqual(
      [
        peak.operation_id,
        peak.total_bytes,
        peak.circular_buffer_bytes,
        peak.intermediate_tensor_bytes,
        peak.persistent_tensor_bytes,
        peak.stale_tensor_bytes,
        peak.precision,
      ],
      [13, 165888, 65536, 10240, 67584, 22528, "upper_bound"],
    );
    const top = p.top_operations as Row[];
    assert.deepEqual(top.map((t) => [t.operation_id, t.also_at, t.also_at_count]), [
      [13, [], 0],
      [9, [10], 1],
    ]);
    assert.equal(p.composition_count, 12);

    const x = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_l1_peak_exceeds`,
    });
    const w = await callOk(client, "l1_peak", { handle: x.handle });
    assert.equal(w.figures_withheld, true);
    assert.equal(w.peak, null);
    assert.match(String(w.reason), /exceeds the device's L1/);

    assert.match(await callRefused(client, "l1_peak", { handle: a.handle, rank: 2 }), /rank 2/);
    const m = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}mixed_rank_operations_only`,
    });
    assert.ok((m.unanswerable as string[]).includes("l1_peak"));
    assert.match(
      await callRefused(client, "l1_peak", { handle: m.handle }),
      /cannot be attributed to rank 0/,
    );
  } finally {
    await close();
  }
});
