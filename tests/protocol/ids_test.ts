/**
 * Ids on the wire, against the real server: echoed exactly as the client wrote them (a
 * parsed 2^64 would come back as 18446744073709552000, which is another id), told apart by
 * their exact value, and read from a frame too long to be read whole.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { writeCapture } from "../../scripts/make_device_log.ts";

const TWO_TO_64 = "18446744073709551616";
const TWO_TO_64_PLUS_1 = "18446744073709551617";

Deno.test("an id is echoed as the text sent: 2^64, a decimal, an escaped string", async () => {
  // Prevents a client matching no answer to its request because the id came back rounded or re-spelt.
  const s = new RawServer();
  await s.initialize();
  for (const id of [TWO_TO_64, "-12.50", "1e400", '"\\u0041b"']) {
    await s.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    assert.equal(await s.nextLine(), `{"jsonrpc":"2.0","id":${id},"result":{}}`);
    await s.write(`{"jsonrpc":"2.0","id":${id},"method":"completion/complete"}\n`);
    assert.ok(
      (await s.nextLine()).startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601`),
    );
  }
  assert.equal((await s.end()).code, 0);
});

Deno.test("calls with ids 2^64 and 2^64 + 1 are two calls, each answered with its own id", async () => {
  // Prevents two ids that round to the same double being taken for one call already in flight.
  const s = new RawServer();
  await s.initialize();
  const call = (id: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":` +
    JSON.stringify({ name: "load_report", arguments: { profiler_path: `${DEMO}profiler` } }) +
    "}\n";
  await s.write(call(TWO_TO_64) + call(TWO_TO_64_PLUS_1));
  const lines = [await s.nextLine(), await s.nextLine()];
  for (const id of [TWO_TO_64, TWO_TO_64_PLUS_1]) {
    const line = lines.find((l) => l.startsWith(`{"jsonrpc":"2.0","id":${id},`));
    assert.ok(line, `an answer for ${id}: ${lines.map((l) => l.slice(0, 60)).join(" | ")}`);
    assert.ok(line.includes('"result":') && !line.includes('"isError":true'), line.slice(0, 200));
  }
  assert.equal((await s.end()).code, 0);
});

Deno.test("a frame over 1 MB is answered with its own id, first or last in the frame, naming the limit", async () => {
  // Prevents a client waiting forever on an oversized request answered with id null.
  const s = new RawServer();
  await s.initialize();
  const pad = "x".repeat(2_000_000);
  const frames = [
    [
      `{"jsonrpc":"2.0","id":${TWO_TO_64},"method":"tools/call","params":{"pad":"${pad}"}}`,
      TWO_TO_64,
    ],
    // Where the MCP SDK writes the id: after the params.
    [`{"method":"tools/call","params":{"pad":"${pad}"},"jsonrpc":"2.0","id":"late"}\r`, '"late"'],
    // An "id" inside the params is not the frame's.
    [`{"method":"tools/call","params":{"pad":"${pad}","id":5},"jsonrpc":"2.0"}`, "null"],
  ] as const;
  for (const [frame, id] of frames) {
    await s.write(frame + "\n");
    const line = await s.nextLine();
    assert.ok(line.startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,`), line);
    assert.match(
      line,
      new RegExp(`a frame of ${frame.length} bytes is over the limit of 1000000 bytes`),
    );
  }
  assert.equal((await s.end()).code, 0);
});

Deno.test("a progress token of 2^64 comes back on each notification as the text sent", async () => {
  // Prevents a client dropping every progress notification of its call as one for another token.
  await using dir = await tempDir();
  const demoCsv = await Deno.readTextFile(`${DEMO}performance/ops_perf_results_demo.csv`);
  await writeCapture(dir.path, demoCsv, { targetBytes: 40e6 });
  const s = new RawServer();
  await s.initialize();
  const load = await s.call(1, "load_report", { performance_path: dir.path });
  assert.ok(load.ok, load.ok ? "" : load.text);
  await s.write(
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zone_timings",` +
      `"arguments":{"handle":"${load.answer.handle}"},"_meta":{"progressToken":${TWO_TO_64}}}}\n`,
  );
  const notes: string[] = [];
  while (true) {
    const line = await s.nextLine();
    if (line.startsWith('{"jsonrpc":"2.0","id":2,')) break;
    notes.push(line);
  }
  assert.ok(notes.length >= 1);
  for (const note of notes) {
    assert.ok(
      note.startsWith(
        `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${TWO_TO_64},`,
      ),
      note,
    );
    assert.equal(typeof JSON.parse(note).params.progress, "number");
  }
  assert.equal((await s.end()).code, 0);
});
