/**
 * The MCP lifecycle on the wire, against the real server: initialize comes first (only a ping
 * may precede it) and comes once, so a session keeps the revision it negotiated.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";

const init = (version: string) => ({
  protocolVersion: version,
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
});

type Failure = { code: number; message: string };

Deno.test("a request before initialize is refused with -32600 naming initialize; a ping is answered", async () => {
  // Prevents a client skipping initialize from being served under a revision it never negotiated.
  const s = new RawServer();
  for (
    const [id, method, params] of [
      [1, "tools/list", undefined],
      [2, "tools/call", { name: "load_report", arguments: { profiler_path: `${DEMO}profiler` } }],
      [3, "prompts/list", undefined],
      [4, "resources/list", undefined],
    ] as const
  ) {
    const r = await s.request(id, method, params);
    assert.equal(r.id, id);
    assert.equal((r.error as Failure).code, -32600, method);
    assert.match(
      (r.error as Failure).message,
      new RegExp(`'${method}' before initialize; send initialize first`),
    );
  }
  assert.deepEqual(await s.request(5, "ping"), { jsonrpc: "2.0", id: 5, result: {} });
  assert.equal(
    ((await s.request(6, "initialize", init("2025-06-18"))).result as {
      protocolVersion: string;
    }).protocolVersion,
    "2025-06-18",
  );
  assert.ok(((await s.request(7, "tools/list")).result as { tools: unknown[] }).tools.length > 0);
  const end = await s.end();
  assert.equal(end.code, 0);
  // The refused call never ran: no usage line for it.
  assert.ok(!end.stderr.includes("tool=load_report"));
});

Deno.test("a second initialize is refused and the session keeps the revision it negotiated", async () => {
  // Prevents a client switching the revision mid-session (tool titles, batches) under calls in flight.
  const s = new RawServer();
  await s.initialize("2025-03-26", 1);
  const again = await s.request(2, "initialize", init("2025-06-18"));
  assert.equal(again.id, 2);
  assert.equal((again.error as Failure).code, -32600);
  assert.match(
    (again.error as Failure).message,
    /initialize was already answered \(revision 2025-03-26\).*start a new server process/,
  );
  // Still 2025-03-26: titles in the annotations, where that revision's clients read them.
  const listed = (await s.request(3, "tools/list")).result as {
    tools: { title?: string; annotations: { title?: string } }[];
  };
  assert.ok(listed.tools.every((t) => t.title === undefined && t.annotations.title));
  assert.equal((await s.end()).code, 0);
});
