/**
 * Backpressure on the real server: a client that sends requests and never reads stdout must
 * find the server stopping reading (its own writes block) with the server's memory bounded,
 * and every request answered once it reads again.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";

/** The most the server may hold, resident, while a client never reads (issue 30). */
const CEILING_MIB = 600;
/** The most requests a flood sends: without backpressure, memory passes the ceiling first. */
const MAX_REQUESTS = 100_000;
/** Requests per write. */
const PER_WRITE = 250;
/** A write not taken in this long means the server stopped reading (ends the flood only). */
const STALL_MS = 3_000;

interface Flood {
  sent: number;
  stalled: boolean;
  peakMiB: number;
  /** The write the server has not taken yet, if it stalled. */
  pending: Promise<void> | null;
}

/**
 * Sends `line(id)` for ids 1000, 1001, … without reading stdout, until the server stops
 * taking writes, `MAX_REQUESTS` went out, or its resident memory passes the ceiling.
 */
async function flood(s: RawServer, line: (id: number) => string): Promise<Flood> {
  let sent = 0;
  let pending: Promise<void> | null = null;
  let stalled = false;
  while (sent < MAX_REQUESTS) {
    let chunk = "";
    for (let i = 0; i < PER_WRITE; i++) chunk += line(1000 + sent++) + "\n";
    const write = s.write(chunk);
    write.catch(() => {}); // a server killed while blocked rejects it
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      write.then(() => "taken"),
      new Promise((done) => timer = setTimeout(() => done("stalled"), STALL_MS)),
    ]);
    clearTimeout(timer);
    if (outcome === "stalled") {
      stalled = true;
      pending = write;
      break;
    }
    if (sent % (PER_WRITE * 20) === 0 && await s.rssMiB() > CEILING_MIB) break;
  }
  return { sent, stalled, peakMiB: await s.peakMiB(), pending };
}

/** Reads `count` lines (every answer of the flood), then checks the server still answers. */
async function drainAndPing(s: RawServer, f: Flood): Promise<void> {
  let read = 0;
  const reading = (async () => {
    while (read < f.sent) {
      await s.nextLine();
      read++;
    }
  })();
  await f.pending;
  await reading;
  assert.deepEqual(await s.request("after", "ping"), { jsonrpc: "2.0", id: "after", result: {} });
  assert.equal((await s.end()).code, 0);
}

Deno.test("a client that floods tools/list and never reads stdout finds the server stopped reading, under 600 MiB", async () => {
  // Prevents a client that never reads from growing the server without bound (4.9 GB for 400k requests).
  const s = new RawServer();
  await s.initialize();
  const f = await flood(s, (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`);
  console.error(
    `tools/list flood: ${f.sent} requests sent, stalled ${f.stalled}, peak ${
      f.peakMiB.toFixed(0)
    } MiB`,
  );
  if (f.peakMiB >= CEILING_MIB || !f.stalled) await s.kill();
  assert.ok(f.peakMiB < CEILING_MIB, `peak ${f.peakMiB.toFixed(0)} MiB`);
  assert.ok(f.stalled, "the server went on reading every request");
  await drainAndPing(s, f);
});

Deno.test("a client that floods tool calls and never reads stdout finds the server stopped reading, under 600 MiB", async () => {
  // Prevents calls piling up in flight without bound when their answers cannot be written.
  const s = new RawServer();
  await s.initialize();
  const load = await s.call(1, "load_report", { profiler_path: `${DEMO}profiler` });
  assert.ok(load.ok, load.ok ? "" : load.text);
  const params = JSON.stringify({
    name: "find_operations",
    arguments: { handle: load.answer.handle },
  });
  const f = await flood(
    s,
    (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`,
  );
  console.error(
    `tools/call flood: ${f.sent} requests sent, stalled ${f.stalled}, peak ${
      f.peakMiB.toFixed(0)
    } MiB`,
  );
  if (f.peakMiB >= CEILING_MIB || !f.stalled) await s.kill();
  assert.ok(f.peakMiB < CEILING_MIB, `peak ${f.peakMiB.toFixed(0)} MiB`);
  assert.ok(f.stalled, "the server went on reading every request");
  await drainAndPing(s, f);
});
