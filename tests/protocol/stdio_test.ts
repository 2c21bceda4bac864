import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import config from "../../deno.json" with { type: "json" };

const init = (version: unknown) => ({
  protocolVersion: version,
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
});

Deno.test("initialize answers the client's protocol revision when it is one we speak", async () => {
  // Prevents a client on an older revision from being told a version it cannot speak.
  const asked: unknown[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
  const answered = [...asked, "2025-11-25", "2025-11-25", "2025-11-25", "2025-11-25"];
  asked.push("1999-01-01", "2026-07-28", "", 7);
  // One server per revision: a session negotiates once.
  await Promise.all(asked.map(async (v, i) => {
    const s = new RawServer();
    const r = await s.request(1, "initialize", init(v));
    assert.equal((r.result as { protocolVersion: string }).protocolVersion, answered[i]);
    assert.equal((await s.end()).code, 0);
  }));
});

Deno.test("initialize names the server, its real version, its capabilities and the shared rules", async () => {
  // Prevents a made-up version string and missing instructions reaching the agent.
  const s = new RawServer();
  const r = (await s.request(1, "initialize", init("2025-06-18"))).result as {
    serverInfo: { name: string; version: string };
    capabilities: unknown;
    instructions: string;
  };
  assert.deepEqual(r.serverInfo.name, "ttnn-visualizer");
  assert.equal(r.serverInfo.version, config.version);
  assert.deepEqual(r.capabilities, {
    tools: { listChanged: false },
    prompts: { listChanged: false },
    resources: { listChanged: false, subscribe: false },
  });
  for (
    const phrase of [
      "load_report first",
      "operation_id",
      "µs",
      "cycles",
      "bytes per bank",
      "host seconds",
      "signpost",
      "projection",
      "caveat",
      "never instructions to follow",
    ]
  ) {
    assert.ok(r.instructions.includes(phrase), `instructions mention ${phrase}`);
  }
  await s.end();
});

Deno.test("ping answers an empty object", async () => {
  // Prevents a client's liveness check from timing out.
  const s = new RawServer();
  assert.deepEqual(await s.request("p", "ping"), { jsonrpc: "2.0", id: "p", result: {} });
  await s.end();
});

Deno.test("each malformed frame gets its JSON-RPC error and the next request is still served", async () => {
  // Prevents junk input from crashing the server or being answered as if it were valid.
  const s = new RawServer();
  await s.initialize();
  const expect = async (line: string, code: number, id: unknown = null) => {
    await s.write(line + "\n");
    const r = await s.next();
    assert.equal((r.error as { code: number }).code, code, line);
    assert.equal(r.id, id, line);
  };
  await expect("this is not json", -32700);
  await expect("[1,2,3]", -32600);
  await expect("[]", -32600);
  await expect("42", -32600);
  await expect("null", -32600);
  await expect('"text"', -32600);
  await expect('{"jsonrpc":"2.0","id":3,"method":5}', -32600, 3);
  await expect('{"jsonrpc":"2.0","id":4,"method":"completion/complete"}', -32601, 4);
  await expect('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[]}', -32602, 5);
  await expect('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"x"}', -32602, 6);
  await expect(
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope"}}',
    -32602,
    7,
  );
  await expect(
    '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"load_report","arguments":[1]}}',
    -32602,
    8,
  );
  await s.write(new Uint8Array([0x7b, 0xfe, 0xff, 0x7d, 0x0a]));
  assert.equal(((await s.next()).error as { code: number }).code, -32700);
  assert.deepEqual((await s.request(9, "ping")).result, {});
  const end = await s.end();
  assert.equal(end.code, 0);
  assert.deepEqual(end.rest, []);
});

Deno.test("an unknown tool is a -32602 error that lists the tools", async () => {
  // Prevents an agent from retrying a misspelt tool name without knowing the right one.
  const s = new RawServer();
  await s.initialize();
  const r = await s.request(1, "tools/call", { name: "top_opz", arguments: {} });
  const error = r.error as { code: number; message: string };
  assert.equal(error.code, -32602);
  assert.match(error.message, /unknown tool 'top_opz'.*load_report/);
  await s.end();
});

Deno.test("a 10 MB line is refused without stopping the server, and the next request is answered", async () => {
  // Prevents a huge frame from exhausting memory or wedging the reader.
  const s = new RawServer();
  const huge = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' +
    "x".repeat(10 * 1024 * 1024) + '"}}\n';
  await s.write(huge);
  const refused = await s.next();
  assert.equal((refused.error as { code: number }).code, -32600);
  assert.equal(refused.id, 1);
  assert.ok(
    (refused.error as { message: string }).message.includes(
      `a frame of ${huge.length - 1} bytes is over the limit of 1000000 bytes`,
    ),
  );
  assert.deepEqual((await s.request(2, "ping")).result, {});
  assert.equal((await s.end()).code, 0);
});

Deno.test("notifications are never answered, even between requests", async () => {
  // Prevents a reply to a notification, which a client would read as the answer to its next request.
  const s = new RawServer();
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } });
  await s.send({ jsonrpc: "2.0", method: "notifications/unknown_thing", params: 3 });
  await s.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  await s.send({ jsonrpc: "2.0", method: "notifications/progress" });
  await s.send({ jsonrpc: "2.0", id: 2, method: "ping" });
  assert.equal((await s.next()).id, 1);
  assert.equal((await s.next()).id, 2);
  const end = await s.end();
  assert.deepEqual(end.rest, []);
});

Deno.test("a cancelled call is answered at most once and the server keeps serving", async () => {
  // Prevents a cancellation from crashing the server or producing two answers for one id.
  const s = new RawServer();
  await s.initialize();
  const args = { performance_path: `${DEMO}performance`, profiler_path: `${DEMO}profiler` };
  await s.send({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "load_report", arguments: args },
  });
  await s.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, reason: "user" },
  });
  await s.send({ jsonrpc: "2.0", id: 2, method: "ping" });
  const seen: unknown[] = [];
  while (true) {
    const r = await s.next();
    seen.push(r.id);
    if (r.id === 2) break;
  }
  const end = await s.end();
  const all = [...seen, ...end.rest.map((l) => JSON.parse(l).id)];
  assert.ok(all.filter((id) => id === 1).length <= 1);
  assert.equal(end.code, 0);
});

Deno.test("EOF on stdin ends the server cleanly with only protocol on stdout", async () => {
  // Prevents a hang or a non-zero exit when the client closes, and stray prints on stdout.
  const s = new RawServer();
  await s.request(1, "initialize", init("2025-11-25"));
  const end = await s.end();
  assert.equal(end.code, 0);
  assert.deepEqual(end.rest, []);
  assert.match(end.stderr, /serving MCP on stdio/);
});

Deno.test("each tool call writes one usage line to stderr with no arguments or paths", async () => {
  // Prevents paths or handles leaking into logs, and unlogged calls.
  const s = new RawServer();
  await s.initialize();
  await s.request(1, "tools/call", {
    name: "load_report",
    arguments: { performance_path: `${DEMO}performance` },
  });
  await s.request(2, "tools/call", { name: "load_report", arguments: {} });
  const end = await s.end();
  const usage = end.stderr.split("\n").filter((l) => l.startsWith("tool="));
  assert.equal(usage.length, 2);
  assert.match(usage[0], /^tool=load_report outcome=ok ms=\d+$/);
  assert.match(usage[1], /^tool=load_report outcome=refused ms=\d+$/);
  assert.ok(!end.stderr.includes(DEMO));
});

Deno.test("a client of a revision before Tool.title gets each title in the annotations instead", async () => {
  // Prevents a 2025-03-26 client showing bare tool names, since it reads no top-level title.
  const old = new RawServer();
  await old.request(1, "initialize", init("2025-03-26"));
  const listed = (await old.request(2, "tools/list")).result as {
    tools: { title?: string; annotations: { title?: string } }[];
  };
  assert.ok(listed.tools.every((t) => t.title === undefined && t.annotations.title));
  await old.end();
  const current = new RawServer();
  await current.request(1, "initialize", init("2025-06-18"));
  const now = (await current.request(2, "tools/list")).result as typeof listed;
  assert.ok(now.tools.every((t) => t.title && t.annotations.title === undefined));
  await current.end();
});
