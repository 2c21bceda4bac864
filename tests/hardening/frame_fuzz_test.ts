/**
 * Frame fuzzing: a seeded corpus of malformed and hostile frames — random bytes, invalid
 * UTF-8, huge numbers, deep nesting, batches, duplicate ids, wrong types for every argument of
 * every tool — each followed by a ping that must still be answered, with every byte on stdout
 * a JSON-RPC 2.0 response line.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { loadTools } from "../../src/tools/registry.ts";

/** Every tool, as the server loads them. */
const CATALOG = await loadTools();
import { describeTool } from "../../src/protocol/server.ts";
import { random } from "../../scripts/_random.ts";

const enc = new TextEncoder();
const SEED = 20261129;
const GENERATED = 240;

/** Wrong values for an argument of JSON Schema type `type`. */
function wrongValues(type: string | undefined): unknown[] {
  const all: unknown[] = ["text", 42, 2.5, -1, true, null, [], {}, "x".repeat(5000), 1e308, -0];
  return all.filter((v) =>
    !(type === "string" && typeof v === "string") &&
    !(type === "integer" && Number.isInteger(v)) &&
    !(type === "number" && typeof v === "number") &&
    !(type === "array" && Array.isArray(v))
  );
}

/** The corpus: frames as bytes (without the newline). */
function corpus(next: () => number): Uint8Array[] {
  const frames: Uint8Array[] = [];
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
  const json = (v: unknown) => enc.encode(JSON.stringify(v));
  // Fixed cases.
  for (
    const text of [
      "",
      "{",
      "}",
      "[",
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
      '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
      '{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"load_report","arguments":{}}}',
      '{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"load_report","arguments":{}}}',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"load_report","arguments":{"profiler_path":"\\u0000"}}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"__proto__","arguments":{}}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"load_report","arguments":{"__proto__":{"x":1}}}}',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":"nonsense"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1,2]}',
      "[".repeat(100_000) + "]".repeat(100_000),
      '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000),
    ]
  ) frames.push(enc.encode(text));
  frames.push(new Uint8Array([0xc3, 0x28, 0x7b, 0x7d]));
  frames.push(
    new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode('{"jsonrpc":"2.0","id":7,"method":"ping"}')]),
  );
  // Every argument of every tool, with every wrong type.
  for (const tool of CATALOG) {
    const schema = describeTool(tool).inputSchema as {
      properties?: Record<string, { type?: string }>;
    };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      for (const value of wrongValues(prop.type)) {
        frames.push(
          json({
            jsonrpc: "2.0",
            id: `w-${tool.name}-${name}`,
            method: "tools/call",
            params: { name: tool.name, arguments: { [name]: value } },
          }),
        );
      }
    }
    frames.push(
      json({
        jsonrpc: "2.0",
        id: `x-${tool.name}`,
        method: "tools/call",
        params: { name: tool.name, arguments: { handle: "report-1", surprise: 1 } },
      }),
    );
  }
  // Generated frames.
  for (let i = 0; i < GENERATED; i++) {
    const kind = pick(["bytes", "utf8", "number", "shape", "method", "params"]);
    if (kind === "bytes") {
      frames.push(Uint8Array.from({ length: 1 + Math.floor(next() * 200) }, () => {
        const b = Math.floor(next() * 256);
        return b === 0x0a ? 0x20 : b;
      }));
    } else if (kind === "utf8") {
      frames.push(new Uint8Array([0x7b, 0x22, 0xff - Math.floor(next() * 8), 0x22, 0x7d]));
    } else if (kind === "number") {
      frames.push(
        enc.encode(
          `{"jsonrpc":"2.0","id":${
            pick(["1e999", "-0", "0.5", "9".repeat(400), "NaN"])
          },"method":"ping"}`,
        ),
      );
    } else if (kind === "shape") {
      frames.push(
        json(
          pick([null, 7, "s", [], [1, [2]], { id: 1 }, { method: null, id: 2, jsonrpc: "2.0" }]),
        ),
      );
    } else if (kind === "method") {
      frames.push(
        json({
          jsonrpc: "2.0",
          id: i,
          method: pick(["", "tools/", "resources/read", "x".repeat(300), "ping/../tools/call"]),
        }),
      );
    } else {
      const tool = pick(CATALOG);
      frames.push(
        json({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: {
            name: tool.name,
            arguments: pick([[], "a", 1, { handle: pick([1, null, "", "report-99"]) }]),
          },
        }),
      );
    }
  }
  return frames;
}

/** Whether a line is one JSON-RPC 2.0 response, or a batch's array of them. */
function isResponse(line: unknown): boolean {
  if (Array.isArray(line)) {
    return line.length > 0 && line.every((l) => isResponse(l) && !Array.isArray(l));
  }
  if (typeof line !== "object" || line === null) return false;
  const m = line as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || !("id" in m)) return false;
  return ("result" in m) !== ("error" in m);
}

for (const revision of ["2025-11-25", "2025-03-26"]) {
  Deno.test(`every malformed frame of a seeded corpus is answered or ignored, and a ping after it is still answered (${revision})`, async () => {
    // Prevents any frame from crashing, wedging or desynchronising the server, or leaking non-protocol bytes.
    const frames = corpus(random(SEED));
    assert.ok(frames.length >= 200 + 19);
    const s = new RawServer();
    await s.initialize(revision);
    // A report to aim tool calls at.
    await s.send({
      jsonrpc: "2.0",
      id: "load",
      method: "tools/call",
      params: { name: "load_report", arguments: { performance_path: `${DEMO}performance` } },
    });
    const seen: Record<string, unknown>[] = [await s.next()];
    // Under 2025-03-26 the corpus's batches are served: their answers are arrays.
    const flat = (line: Record<string, unknown>) => Array.isArray(line) ? line : [line];
    for (const [i, frame] of frames.entries()) {
      await s.write(new Uint8Array([...frame, 0x0a]));
      await s.send({ jsonrpc: "2.0", id: `ping-${i}`, method: "ping" });
      while (true) {
        const line = await s.next();
        seen.push(...flat(line));
        assert.ok(
          isResponse(line),
          `line after frame ${i} is a JSON-RPC response: ${JSON.stringify(line).slice(0, 200)}`,
        );
        if (line.id === `ping-${i}`) {
          assert.deepEqual(line.result, {});
          break;
        }
      }
    }
    const end = await s.end();
    assert.equal(end.code, 0);
    for (const rest of end.rest) assert.ok(isResponse(JSON.parse(rest)));
    const errors = seen.filter((l) => "error" in l).length;
    const refusals = seen.filter((l) =>
      (l.result as { isError?: boolean } | undefined)?.isError
    ).length;
    console.error(
      `frame corpus (${revision}): ${frames.length} frames (seed ${SEED}), ${errors} protocol errors, ${refusals} refusals`,
    );
    assert.ok(errors > 0 && refusals > 0);
  });
}
