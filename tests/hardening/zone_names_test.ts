/**
 * A device log of a million distinct zone names (each one start and one end): its read is
 * linear in the names — the interner hashes every byte of a name, and the merge numbers each
 * name once — so zone_timings answers in seconds, a ping sent meanwhile is answered first, and
 * a cancelled read gets no answer. Before the fix, names were hashed from their length and
 * three bytes, and the read took 302 s. The bound below only catches that; nothing is timed.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { tempDir } from "../_support/dirs.ts";
import { writeZoneNamesLog } from "../../scripts/make_adversarial_inputs.ts";
import { ByteInterner } from "../../src/device_log/_intern.ts";

/** Rejects after `ms` — a bound that only catches a read gone quadratic. */
function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

Deno.test("names that share their length and first, middle and last bytes are told apart", () => {
  // Prevents the interner confusing (or crawling through) names its cheap hash cannot tell
  // apart: zone-100 … zone-199 agree on length and those three bytes.
  const interner = new ByteInterner();
  const bytes = (s: string) => new TextEncoder().encode(s);
  const ids = new Map<string, number>();
  for (let round = 0; round < 2; round++) {
    for (let i = 1000; i < 3000; i++) {
      const name = `zone-${String(i).slice(0, 2)}x${String(i).slice(2)}`;
      const b = bytes(name);
      const id = interner.intern(b, 0, b.length);
      if (round === 0) ids.set(name, id);
      else assert.equal(id, ids.get(name), name);
    }
  }
  assert.equal(interner.names.length, 2000);
  assert.equal(interner.names[ids.get("zone-25x07")!], "zone-25x07");
});

Deno.test("a million distinct zone names: zone_timings answers, a ping first, a cancelled read never", async () => {
  // Prevents a read quadratic in distinct zone names (302 s for a million), blocking pings and
  // ignoring cancellation while it runs.
  await using dir = await tempDir();
  await writeZoneNamesLog(dir.path, 1_000_000);
  const s = new RawServer();
  await s.request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  });
  const load = await s.call(2, "load_report", { performance_path: dir.path });
  assert.ok(load.ok, load.ok ? "" : load.text);
  const handle = load.answer.handle;
  // A read cancelled at once: nothing is written for it.
  await s.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "zone_timings", arguments: { handle } },
  });
  await s.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
  // A read that runs to the end, with a ping sent while it runs.
  await s.send({
    jsonrpc: "2.0",
    id: 4,
    method: "tools/call",
    params: { name: "zone_timings", arguments: { handle, limit: 3 } },
  });
  await s.send({ jsonrpc: "2.0", id: 5, method: "ping" });
  const first = await bounded(s.next(), 120_000, "the ping");
  const second = await bounded(s.next(), 120_000, "zone_timings of a million names");
  assert.deepEqual([first.id, second.id], [5, 4], "the ping overtakes the read");
  const answer = (second.result as { structuredContent: Record<string, unknown> })
    .structuredContent;
  assert.equal(answer.returned, 3);
  assert.equal(answer.zone_count, 1_000_000);
  const { rest } = await s.end();
  assert.deepEqual(rest, [], "no answer for the cancelled read");
});
