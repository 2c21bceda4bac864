import assert from "node:assert/strict";
import { type Frame, readFrames } from "../../src/protocol/line_reader.ts";
import { classifyFrame, ErrorCode } from "../../src/protocol/jsonrpc.ts";

const enc = new TextEncoder();

async function frames(chunks: (string | Uint8Array)[], max?: number): Promise<Frame[]> {
  const stream = ReadableStream.from(
    chunks.map((c) => (typeof c === "string" ? enc.encode(c) : c)),
  );
  const out: Frame[] = [];
  for await (const f of readFrames(stream, max)) out.push(f);
  return out;
}
const text = (f: Frame) => (f.kind === "line" ? new TextDecoder().decode(f.bytes) : `<${f.bytes}>`);

Deno.test("a frame split across chunks is joined", async () => {
  // Prevents answering half a request when the pipe delivers a line in pieces.
  const got = await frames(['{"a":', "1}\n{", '"b":2}\n']);
  assert.deepEqual(got.map(text), ['{"a":1}', '{"b":2}']);
});

Deno.test("CRLF line ends and blank lines are tolerated", async () => {
  // Prevents a Windows client's \r from reaching JSON.parse or blank lines being answered.
  const got = await frames(["x\r\n\r\n\n  \ny\r\n"]);
  assert.deepEqual(got.map(text), ["x", "y"]);
});

Deno.test("a last line without a newline is still read", async () => {
  // Prevents losing the final request of a client that closes without a trailing newline.
  assert.deepEqual((await frames(["a\nb"])).map(text), ["a", "b"]);
});

Deno.test("an over-long line is skipped as one oversize frame and reading goes on", async () => {
  // Prevents an unbounded buffer and a server that stops after one huge line.
  const got = await frames(["ok\n", "x".repeat(7), "x".repeat(7), "\nnext\n"], 10);
  assert.deepEqual(got.map(text), ["ok", "<14>", "next"]);
});

Deno.test("an over-long line split into many chunks is counted, not held", async () => {
  // Prevents accumulating a 10 MB line in memory before refusing it.
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  const chunks: Uint8Array[] = Array.from({ length: 160 }, () => chunk);
  const got = await frames([...chunks, "\n{}\n"], 1_000_000);
  assert.deepEqual(got.map(text), [`<${160 * 64 * 1024}>`, "{}"]);
});

Deno.test("a line of exactly the limit is accepted", async () => {
  // Prevents an off-by-one that refuses the largest legal frame.
  const got = await frames(["y".repeat(10) + "\n"], 10);
  assert.deepEqual(got.map(text), ["y".repeat(10)]);
});

Deno.test("frames are classified by the JSON-RPC rules", () => {
  // Prevents a malformed frame from being answered as a request, or a request dropped.
  const c = (s: string) => classifyFrame(enc.encode(s));
  assert.equal(c('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind, "request");
  assert.equal(c('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind, "notification");
  assert.equal(c('{"jsonrpc":"2.0","id":1,"result":{}}').kind, "response");
  const codeOf = (s: string) => {
    const r = c(s);
    return r.kind === "invalid" ? r.error.code : null;
  };
  assert.equal(codeOf("{nope"), ErrorCode.ParseError);
  assert.equal(c("[1,2]").kind, "batch");
  assert.equal(codeOf("7"), ErrorCode.InvalidRequest);
  assert.equal(codeOf("null"), ErrorCode.InvalidRequest);
  assert.equal(codeOf('"text"'), ErrorCode.InvalidRequest);
  assert.equal(codeOf('{"jsonrpc":"2.0","id":1,"method":7}'), ErrorCode.InvalidRequest);
  assert.equal(codeOf('{"id":1,"method":"ping"}'), ErrorCode.InvalidRequest);
  assert.equal(codeOf('{"jsonrpc":"2.0","id":{},"method":"ping"}'), ErrorCode.InvalidRequest);
  const bad = classifyFrame(new Uint8Array([0x7b, 0xff, 0x7d]));
  assert.equal(bad.kind === "invalid" && bad.error.code, ErrorCode.ParseError);
});

Deno.test("an invalid request echoes its id when the id itself is valid", () => {
  // Prevents a client from waiting forever on a request it cannot match to an error.
  const r = classifyFrame(enc.encode('{"jsonrpc":"2.0","id":"a","method":null}'));
  assert.equal(r.kind, "invalid");
  assert.equal(r.kind === "invalid" && r.id?.raw, '"a"');
});
