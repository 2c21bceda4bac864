/**
 * Responsiveness during long reads: a ping sent while a device log is being read is answered
 * before the read's answer, and a cancelled read stops, is forgotten and is started afresh by
 * the next call. Ordering is asserted, never timing.
 */
import assert from "node:assert/strict";
import { callOk, connect, RawServer } from "../_support/server.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { writeCapture } from "../../scripts/make_device_log.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import { readDeviceLog } from "../../src/device_log/read.ts";
import { deviceLogSummary } from "../../src/session/device_log.ts";
import { HandleRegistry } from "../../src/session/handles.ts";
import { Roots } from "../../src/kit/roots.ts";
import { loadReportTool } from "../../src/tools/load_report.ts";
import { zoneTimings } from "../../src/tools/zone_timings.ts";
import type { Tool } from "../../src/tools/tool.ts";
import { callTool } from "../../src/protocol/tool_call.ts";

const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/** A capture whose log takes many buffer reads (≈ 40 MB: ten 4 MB reads or more). */
async function bigCapture(dir: string): Promise<void> {
  await writeCapture(dir, demoCsv, { targetBytes: 40e6, replays: 1 });
}

const init = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
};

/** A server, initialised, with the capture in `dir` loaded (requests 1 and 2). */
async function loadedServer(dir: string): Promise<{ s: RawServer; handle: string }> {
  const s = new RawServer();
  await s.request(1, "initialize", init);
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const load = await s.request(2, "tools/call", {
    name: "load_report",
    arguments: { performance_path: dir },
  });
  const answer = load.result as { structuredContent: { handle: string } };
  return { s, handle: answer.structuredContent.handle };
}

Deno.test("a ping sent during a device-log read is answered before the read's answer", async () => {
  // Prevents a long read blocking the session: the agent's keep-alive must not wait on it.
  await using dir = await tempDir();
  await bigCapture(dir.path);
  const { s, handle } = await loadedServer(dir.path);
  await s.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "zone_timings", arguments: { handle } },
  });
  await s.send({ jsonrpc: "2.0", id: 4, method: "ping" });
  const first = await s.next();
  const second = await s.next();
  assert.deepEqual([first.id, second.id], [4, 3], "the ping overtakes the read");
  assert.equal((second.result as { isError?: boolean }).isError, undefined);
  assert.equal((await s.end()).code, 0);
});

Deno.test("a cancelled read gets no answer, and the next call on the handle reads afresh", async () => {
  // Prevents a cancelled read's failure being cached, or a reply sent for a cancelled request.
  await using dir = await tempDir();
  await bigCapture(dir.path);
  const { s, handle } = await loadedServer(dir.path);
  await s.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "zone_timings", arguments: { handle } },
  });
  await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
  const again = await s.request(4, "tools/call", {
    name: "zone_timings",
    arguments: { handle, limit: 1 },
  });
  assert.equal(again.id, 4, "nothing is written for the cancelled request");
  const answer = (again.result as { structuredContent: { returned: number } }).structuredContent;
  assert.equal(answer.returned, 1);
  const ping = await s.request(5, "ping");
  assert.equal(ping.id, 5);
  assert.equal((await s.end()).code, 0);
});

Deno.test("an aborted read stops with the abort's reason instead of finishing", async () => {
  // Prevents a cancelled request's read running to the end of a 1 GB log regardless.
  await using dir = await tempDir();
  await bigCapture(dir.path);
  const probe = (await probeDeviceLog(`${dir.path}/profile_log_device.csv`))!;
  const controller = new AbortController();
  const read = readDeviceLog(probe, null, { signal: controller.signal, bufferBytes: 1 << 20 });
  controller.abort(new Error("cancelled by the client"));
  await assert.rejects(read, /cancelled by the client/);
});

Deno.test("when its last waiting call is cancelled the shared read is dropped from the handle", async () => {
  // Prevents a stopped read's memory staying on the handle, or a cancelled read being reused.
  await using dir = await tempDir();
  await bigCapture(dir.path);
  const tools: Tool[] = [];
  tools.push(loadReportTool(() => tools), zoneTimings);
  const registry = new HandleRegistry();
  const ctx = { registry, roots: Roots.any(), signal: new AbortController().signal };
  const load = await callTool(tools[0], { performance_path: dir.path }, ctx);
  const handle = (load.result.structuredContent as { handle: string }).handle;
  const report = await registry.get(handle);
  const one = new AbortController();
  const two = new AbortController();
  const a = deviceLogSummary({ tool: "zone_timings", report, signal: one.signal });
  const b = deviceLogSummary({ tool: "zone_timings", report, signal: two.signal });
  const readKeys = () => [...report.cache.keys()].filter((k) => k.startsWith("device-log-read"));
  assert.equal(readKeys().length, 1, "both calls share one read");
  one.abort(new Error("first cancelled"));
  await assert.rejects(a, /first cancelled/);
  assert.equal(readKeys().length, 1, "the read goes on while a call still waits for it");
  two.abort(new Error("second cancelled"));
  await assert.rejects(b, /second cancelled/);
  assert.equal(readKeys().length, 0, "no call waits: the read is stopped and forgotten");
  const fresh = await deviceLogSummary({ tool: "zone_timings", report });
  assert.ok(fresh.dataRows > 0);
});

Deno.test("through the SDK client: a ping answers during a read, and a cancelled read leaves the session working", async () => {
  // Prevents responsiveness and cancellation working only for hand-written frames.
  await using dir = await tempDir();
  await bigCapture(dir.path);
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const finished: string[] = [];
    const read = client.callTool({ name: "zone_timings", arguments: { handle } })
      .then(() => finished.push("read"));
    await client.ping().then(() => finished.push("ping"));
    await read;
    assert.deepEqual(finished, ["ping", "read"]);

    const again = await callOk(client, "load_report", { performance_path: dir.path });
    const cancel = new AbortController();
    const cancelled = client.callTool(
      { name: "zone_timings", arguments: { handle: again.handle } },
      undefined,
      { signal: cancel.signal },
    );
    cancel.abort("the agent moved on");
    await assert.rejects(cancelled);
    const answer = await callOk(client, "zone_timings", { handle: again.handle, limit: 1 });
    assert.equal(answer.returned, 1);
  } finally {
    await close();
  }
});
