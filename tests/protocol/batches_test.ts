/**
 * JSON-RPC batches by the revision negotiated, on the wire: 2025-03-26 has them (receiving
 * them is a MUST of its base protocol), 2025-06-18 removed them, 2024-11-05 never had them.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";

type Failure = { code: number; message: string };
type Line = { id: unknown; result?: unknown; error?: Failure };

Deno.test("under 2025-03-26 a batch is answered as one array in order, notifications left out", async () => {
  // Prevents a 2025-03-26 client's batch being refused, which its revision requires servers to accept.
  const s = new RawServer();
  await s.initialize("2025-03-26");
  await s.write(
    "[" + [
      '{"jsonrpc":"2.0","id":"a","method":"ping"}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{}}',
      '{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}',
      "7",
      JSON.stringify({
        jsonrpc: "2.0",
        id: "load",
        method: "tools/call",
        params: { name: "load_report", arguments: { profiler_path: `${DEMO}profiler` } },
      }),
      '{"jsonrpc":"2.0","id":"m","method":"completion/complete"}',
      '{"jsonrpc":"2.0","id":"list","method":"tools/list"}',
    ].join(" , ") + "]\n",
  );
  const raw = await s.nextLine();
  assert.ok(raw.startsWith('[{"jsonrpc":"2.0","id":"a","result":{}},'), raw.slice(0, 80));
  assert.ok(raw.includes('{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}'));
  const answers = JSON.parse(raw) as Line[];
  assert.deepEqual(answers.map((a) => a.id), [
    "a",
    18446744073709551616,
    null,
    "load",
    "m",
    "list",
  ]);
  assert.equal(answers[2].error?.code, -32600);
  const load = answers[3].result as { structuredContent: { handle: string } };
  assert.match(load.structuredContent.handle, /^report-/);
  assert.equal(answers[4].error?.code, -32601);
  assert.ok((answers[5].result as { tools: unknown[] }).tools.length > 0);
  // A batch of notifications alone is answered with nothing: the next line is the ping's.
  await s.write('[{"jsonrpc":"2.0","method":"notifications/initialized"}]\n');
  assert.deepEqual(await s.request("after", "ping"), { jsonrpc: "2.0", id: "after", result: {} });
  assert.equal((await s.end()).code, 0);
});

Deno.test("under 2025-03-26 an empty, nested or over-long batch and an initialize inside one are refused", async () => {
  // Prevents a batch from smuggling a second initialize, or one frame causing unbounded answers.
  const s = new RawServer();
  await s.initialize("2025-03-26");
  const refusal = async (line: string) => {
    await s.write(line + "\n");
    const r = await s.next() as unknown as Line;
    assert.equal(r.id, null, line.slice(0, 40));
    assert.equal(r.error?.code, -32600);
    return r.error!.message;
  };
  assert.match(await refusal("[]"), /an empty batch/);
  const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  assert.match(
    await refusal(`[${Array(65).fill(ping).join(",")}]`),
    /a batch of 65 messages is over the limit of 64; split it/,
  );
  await s.write(
    '[{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}},[' + ping + "]]\n",
  );
  const [initialize, nested] = JSON.parse(await s.nextLine()) as Line[];
  assert.equal(initialize.id, "i");
  assert.match(initialize.error!.message, /initialize must not be part of a batch/);
  assert.equal(nested.id, null);
  assert.match(nested.error!.message, /a batch inside a batch/);
  assert.equal((await s.end()).code, 0);
});

Deno.test("a batch is refused under 2025-11-25, 2025-06-18 and 2024-11-05, and before initialize, naming 2025-03-26", async () => {
  // Prevents a client of a revision without batches being served one, or refused without the reason.
  const batch = '[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n';
  await Promise.all(["2025-11-25", "2025-06-18", "2024-11-05", null].map(async (revision) => {
    const s = new RawServer();
    if (revision !== null) await s.initialize(revision);
    await s.write(batch);
    const r = await s.next() as unknown as Line;
    assert.equal(r.error?.code, -32600);
    assert.equal(r.id, null);
    assert.match(
      r.error!.message,
      revision === null
        ? /a batch before initialize/
        : new RegExp(`under revision ${revision}; JSON-RPC batches exist only in 2025-03-26`),
    );
    assert.match(r.error!.message, /send each message as its own line/);
    assert.equal((await s.end()).code, 0);
  }));
});
