/**
 * Progress to a client (issue 22), end to end: through the SDK client, a call carrying a
 * progress token on a generated 200 MB+ device log receives rising notifications with a total
 * before its result; a call without a token receives none. Counts and order are asserted,
 * never times.
 */
import assert from "node:assert/strict";
import { callOk, connect, RawServer } from "../_support/server.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { writeCapture } from "../../scripts/make_device_log.ts";

const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

const init = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
};

Deno.test("through the SDK client, a 200 MB device-log read sends rising progress before its result", async () => {
  // Prevents a client that asked for progress hearing nothing while a long read runs.
  await using dir = await tempDir();
  const size = await writeCapture(dir.path, demoCsv, { targetBytes: 210e6, devices: 8 });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const seen: ({ progress: number; total?: number; message?: string } | "result")[] = [];
    const result = await client.callTool(
      { name: "zone_timings", arguments: { handle } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    );
    seen.push("result");
    assert.equal(result.isError, undefined);
    const notes = seen.slice(0, -1) as { progress: number; total?: number; message?: string }[];
    assert.ok(notes.length >= 2, `${notes.length} notifications: ${JSON.stringify(notes)}`);
    assert.ok(notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress), "rising");
    assert.ok(notes.every((n) => n.total === size && n.progress <= size));
    assert.equal(notes[0].message, "bytes of profile_log_device.csv read");
  } finally {
    await close();
  }
});

Deno.test("a call without a progress token gets no progress notification", async () => {
  // Prevents notifications a client never asked for (and cannot match to a request).
  await using a = await tempDir();
  await using b = await tempDir();
  await writeCapture(a.path, demoCsv, { targetBytes: 40e6 });
  await writeCapture(b.path, demoCsv, { targetBytes: 40e6, seed: 2 });
  const s = new RawServer();
  await s.request(1, "initialize", init);
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  /** Every line up to the answer to `id`. */
  const until = async (id: number) => {
    const lines: Record<string, unknown>[] = [];
    while (true) {
      const m = await s.next();
      lines.push(m);
      if (m.id === id) return lines;
    }
  };
  const handles: string[] = [];
  for (const [id, dir] of [[2, a.path], [3, b.path]] as const) {
    const load = await s.call(id, "load_report", { performance_path: dir });
    assert.ok(load.ok);
    handles.push(String(load.answer.handle));
  }
  await s.send({
    jsonrpc: "2.0",
    id: 4,
    method: "tools/call",
    params: { name: "zone_timings", arguments: { handle: handles[0] } },
  });
  const without = await until(4);
  assert.deepEqual(without.map((m) => m.method ?? "answer"), ["answer"]);
  // The same read with a token does send them: the silence above is the token's absence.
  await s.send({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: {
      name: "zone_timings",
      arguments: { handle: handles[1] },
      _meta: { progressToken: "t-5" },
    },
  });
  const withToken = await until(5);
  const notes = withToken.filter((m) => m.method === "notifications/progress");
  assert.ok(notes.length >= 1);
  assert.ok(notes.every((n) => (n.params as { progressToken: string }).progressToken === "t-5"));
  assert.equal((await s.end()).code, 0);
});
