/**
 * The link's read of every captured graph as long work: it says how far it is, lets the event
 * loop in, and stops when its caller is cancelled; through the SDK client, a call carrying a
 * progress token hears it before the answer. Counts and order are asserted, never times.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { LINK_PROGRESS_MESSAGE, operationLink } from "../../src/analysis/operation_link.ts";
import { callOk, connect, RawServer } from "../_support/server.ts";
import { pair } from "./_pairs.ts";

/** Every graph of the demo pair padded with `pad` spaces (still the same JSON). */
const padded = (pad: number) =>
  `UPDATE captured_graph SET captured_graph = captured_graph || printf('%.${pad}c', ' ');`;

/** The demo pair with padded graphs, its loaded report, and the characters of graph it holds. */
async function loadedPair(pad: number) {
  const p = await pair({ sql: padded(pad) });
  const db = new DatabaseSync(`${p.paths.profiler}/db.sqlite`, { readOnly: true });
  const chars = (db.prepare("SELECT SUM(LENGTH(captured_graph)) AS n FROM captured_graph")
    .get() as { n: number }).n;
  db.close();
  return { p, chars, report: await p.report() };
}

Deno.test("the link says how much captured graph it has read, rising to the total", async () => {
  // Prevents a link over a large capture running for seconds with nothing said.
  const { p, chars, report } = await loadedPair(1000);
  await using _ = p;
  const heard: { done: number; total: number | null; message: string }[] = [];
  const progress = {
    report: (done: number, total: number | null, message: string) =>
      heard.push({ done, total, message }),
  };
  const link = await operationLink({ tool: "test", report, progress });
  assert.equal(link.status, "linked");
  assert.ok(heard.length >= 2, JSON.stringify(heard));
  assert.ok(heard.every((h) => h.total === chars && h.message === LINK_PROGRESS_MESSAGE));
  assert.ok(heard.every((h, i) => i === 0 || h.done >= heard[i - 1].done), "rising");
  assert.ok(heard.slice(0, -1).every((h) => h.done < chars), "the total only at the end");
  assert.equal(heard.at(-1)!.done, chars);
});

Deno.test("a long link lets the event loop in, and a cancelled one is rejected and not kept", async () => {
  // Prevents a link blocking pings and cancellations, and a cancelled link being answered from.
  const { p, report } = await loadedPair(4_000_000);
  await using _ = p;
  let linked = false;
  let timerRanFirst = false;
  setTimeout(() => (timerRanFirst = !linked), 0);
  const first = await operationLink({ tool: "test", report });
  linked = true;
  assert.equal(first.status, "linked");
  assert.ok(timerRanFirst, "a timer due at once waited for the whole link");

  const again = await loadedPair(4_000_000);
  await using __ = again.p;
  const cancel = new AbortController();
  const reason = new Error("cancelled by the client");
  const cancelled = operationLink({
    tool: "test",
    report: again.report,
    signal: cancel.signal,
    progress: { report: () => cancel.abort(reason) },
  });
  await assert.rejects(cancelled, (e) => e === reason);
  assert.equal((await operationLink({ tool: "test", report: again.report })).status, "linked");
});

Deno.test("a link whose every caller is cancelled stops reading", async () => {
  // Prevents a cancelled link reading every captured graph to the end for nobody.
  const { p, chars, report } = await loadedPair(4_000_000);
  await using _ = p;
  const cancel = new AbortController();
  const reason = new Error("cancelled by the client");
  const cancelled = operationLink({
    tool: "test",
    report,
    signal: cancel.signal,
    progress: { report: () => cancel.abort(reason) },
  });
  // A watcher without a signal of its own hears the same work, and so whether it went on.
  const heard: number[] = [];
  const watched = operationLink({
    tool: "test",
    report,
    progress: { report: (done) => heard.push(done) },
  });
  await assert.rejects(cancelled, (e) => e === reason);
  await assert.rejects(watched, (e) => e === reason);
  assert.ok(heard.length > 0 && heard.every((d) => d < chars), JSON.stringify(heard));
});

Deno.test("through the SDK client, top_ops with a progress token hears the link's read before its answer", async () => {
  // Prevents the link's progress being lost between the work and a client that asked for it.
  await using p = await pair({ sql: padded(1000) });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: p.paths.performance,
      profiler_path: p.paths.profiler,
    });
    const notes: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "top_ops", arguments: { handle } },
      undefined,
      { onprogress: (n) => notes.push(n) },
    );
    assert.equal(result.isError, undefined);
    assert.equal(
      (result.structuredContent as { operation_link: { status: string } }).operation_link.status,
      "linked",
    );
    // The SDK hands a notification to its handler a turn later, so one that arrives with the
    // answer may be dropped by it: the exact sequence on the wire is checked below.
    assert.ok(notes.length >= 1, JSON.stringify(notes));
    assert.ok(notes.every((n) => n.message === LINK_PROGRESS_MESSAGE));
    assert.ok(notes.every((n) => n.total !== undefined && n.progress <= n.total));
  } finally {
    await close();
  }
});

Deno.test("on the wire, the link's progress rises to its total before top_ops answers", async () => {
  // Prevents the end of the link's read being told after the answer, or never.
  await using p = await pair({ sql: padded(1000) });
  const s = new RawServer();
  await s.request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  });
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const load = await s.call(2, "load_report", {
    performance_path: p.paths.performance,
    profiler_path: p.paths.profiler,
  });
  assert.ok(load.ok);
  await s.send({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: {
      name: "top_ops",
      arguments: { handle: load.answer.handle },
      _meta: { progressToken: "link" },
    },
  });
  const notes: { progress: number; total: number; message: string }[] = [];
  while (true) {
    const m = await s.next();
    if (m.id === 3) break;
    assert.equal(m.method, "notifications/progress");
    notes.push(m.params as { progress: number; total: number; message: string });
  }
  await s.end();
  assert.ok(notes.length >= 2, JSON.stringify(notes));
  assert.ok(notes.every((n, i) => i === 0 || n.progress > notes[i - 1].progress), "rising");
  assert.ok(notes.every((n) => n.message === LINK_PROGRESS_MESSAGE));
  assert.equal(notes.at(-1)!.progress, notes.at(-1)!.total);
});
