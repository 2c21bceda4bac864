/**
 * Handles have a lifetime: loading the same unchanged report again shares its one read, so a
 * thousand loads of a 2.7 MB CSV stay in bounded memory; profiler databases are open in a
 * small pool, not one descriptor per handle, so hundreds of handles work under a low limit of
 * open files; and a pooled connection closed while idle opens again, as the same file, on
 * next use. Servers run with the production flags; memory is read from /proc.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { tempDir } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";
import { bigPerfCsv, copyDemoProfiler } from "../../scripts/make_adversarial_inputs.ts";
import { MAX_OPEN, openCount } from "../../src/session/open_databases.ts";
import { HandleRegistry, LIMITS } from "../../src/session/handles.ts";
import { DatabaseSync } from "node:sqlite";
import { callTool } from "../../src/protocol/tool_call.ts";
import { loadTools } from "../../src/tools/registry.ts";
import { Roots } from "../../src/kit/roots.ts";
import { writeDetailDb } from "../../scripts/make_large_profiler_db.ts";

const init = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
};

Deno.test("1,000 load_reports of the same 2.7 MB CSV stay under 600 MiB", async () => {
  // Prevents every load keeping its own parse of the same file (57 → 1,158 MB over 10,000
  // loads of a 12 KB CSV; a 2.7 MB one ran out of memory at load 947) — identical loads share.
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/ops_perf_results_big.csv`, await bigPerfCsv(2.7e6));
  const s = new RawServer();
  await s.request(1, "initialize", init);
  let last = "";
  for (let i = 0; i < 1000; i++) {
    const r = await s.call(2 + i, "load_report", { performance_path: dir.path });
    assert.ok(r.ok, r.ok ? "" : r.text);
    last = String(r.answer.handle);
  }
  const peak = await s.peakMiB();
  const top = await s.call(5000, "top_ops", { handle: last });
  assert.ok(top.ok, "the last handle answers");
  const first = await s.call(5001, "top_ops", { handle: "report-1" });
  assert.ok(!first.ok);
  assert.match(first.text, /report-1 was released: .*least recently used.*load_report again/);
  await s.end();
  assert.ok(peak < 600, `peak ${Math.round(peak)} MiB after 1,000 loads`);
});

Deno.test("300 profiler handles, each queried, all answer under ulimit -n 256", async () => {
  // Prevents each handle keeping its database's file descriptor open for its life: load 234
  // and every later one failed with "Too many open files".
  await using dir = await tempDir();
  const dirs: string[] = [];
  for (let i = 0; i < 300; i++) {
    dirs.push(`${dir.path}/p${i}`);
    await copyDemoProfiler(dirs[i]);
  }
  const s = new RawServer([], { shell: "ulimit -n 256" });
  await s.request(1, "initialize", init);
  const failures: string[] = [];
  let id = 2;
  const handles: string[] = [];
  for (const d of dirs) {
    const load = await s.call(id++, "load_report", { profiler_path: d });
    if (!load.ok) {
      failures.push(load.text);
      continue;
    }
    handles.push(String(load.answer.handle));
    const ops = await s.call(id++, "find_operations", { handle: load.answer.handle });
    if (!ops.ok) failures.push(ops.text);
  }
  // The oldest live reports' connections were closed long ago; they open again on use.
  for (const handle of handles.slice(-LIMITS.maxReports, 3 - LIMITS.maxReports)) {
    const again = await s.call(id++, "find_operations", { handle });
    if (!again.ok) failures.push(again.text);
  }
  await s.end();
  assert.deepEqual(failures.slice(0, 3), [], `${failures.length} calls failed`);
});

Deno.test("the pool keeps few connections open, and one it closed opens again on use", async () => {
  // Prevents an open descriptor per idle handle, and a closed connection failing its handle.
  await using dir = await tempDir();
  const s = session();
  const handles: string[] = [];
  for (let i = 0; i < MAX_OPEN + 4; i++) {
    await copyDemoProfiler(`${dir.path}/p${i}`);
    const a = await s.call("load_report", { profiler_path: `${dir.path}/p${i}` });
    handles.push(String(a.handle));
    await s.call("find_operations", { handle: a.handle });
  }
  assert.ok(openCount() <= MAX_OPEN, `${openCount()} open`);
  const first = await s.call("find_operations", { handle: handles[0] });
  const last = await s.call("find_operations", { handle: handles.at(-1) });
  assert.deepEqual(first.operations, last.operations);
  assert.ok(openCount() <= MAX_OPEN, `${openCount()} open`);
});

Deno.test("calls sent at once open their handle's database at most once, loaded or closed by the pool", async () => {
  // Prevents every concurrent call reading its own copy of the whole database (issue 30: 50
  // operation_detail calls at once on a 482 MB database grew the server past 24 GB, and it
  // was killed before answering any).
  await using dir = await tempDir();
  const s = session();
  const db = `${dir.path}/p0/db.sqlite`;
  await copyDemoProfiler(`${dir.path}/p0`);
  const { handle } = await s.call("load_report", { profiler_path: `${dir.path}/p0` });
  const open = Deno.open;
  let opens = 0;
  Deno.open = ((path: string | URL, options?: Deno.OpenOptions) => {
    if (String(path) === db) opens++;
    return open(path, options);
  }) as typeof Deno.open;
  try {
    const burst = () =>
      Promise.all(Array.from({ length: 20 }, () => s.call("find_operations", { handle })));
    const answers = await burst();
    assert.equal(opens, 0, `${opens} opens for 20 calls on a handle whose load read it in`);
    // Past the pool's bound its connection is closed; the next burst opens it once again.
    for (let i = 1; i <= MAX_OPEN + 1; i++) {
      await copyDemoProfiler(`${dir.path}/p${i}`);
      const other = await s.call("load_report", { profiler_path: `${dir.path}/p${i}` });
      await s.call("find_operations", { handle: other.handle });
    }
    opens = 0;
    const again = await burst();
    assert.equal(opens, 1, `${opens} opens for 20 calls after the pool closed it`);
    assert.deepEqual(again, answers);
  } finally {
    Deno.open = open;
  }
});

Deno.test("a call cancelled while its database is read in stops the read", async () => {
  // Prevents a cancelled call's open reading the rest of a large database into memory
  // (issue 30: a second of work after l1_peak's cancel on a 655 MB database).
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  const grown = new DatabaseSync(`${dir.path}/db.sqlite`);
  grown.exec("CREATE TABLE padding (b); INSERT INTO padding VALUES (zeroblob(96 * 1024 * 1024))");
  grown.close();
  const tools = await loadTools();
  const registry = new HandleRegistry();
  const env = (signal: AbortSignal) => ({ registry, roots: Roots.any(), signal });
  const load = await callTool(
    tools.find((t) => t.name === "load_report")!,
    { profiler_path: dir.path },
    env(new AbortController().signal),
  );
  const handle = (load.result.structuredContent as { handle: string }).handle;
  // The load read it in; past the pool's bound its connection is closed, for the call to
  // read it in again.
  for (let i = 1; i <= MAX_OPEN + 1; i++) {
    await copyDemoProfiler(`${dir.path}/p${i}`);
    await callTool(
      tools.find((t) => t.name === "load_report")!,
      { profiler_path: `${dir.path}/p${i}` },
      env(new AbortController().signal),
    );
  }
  // Reads of 8 MiB or more are the database's copy into memory; the call is cancelled at the
  // first, and the reads after it counted.
  const read = Deno.FsFile.prototype.read;
  const ac = new AbortController();
  let reads = 0;
  let afterCancel = 0;
  Deno.FsFile.prototype.read = function (p: Uint8Array) {
    if (p.length >= 8 << 20) {
      reads++;
      if (ac.signal.aborted) afterCancel++;
      else ac.abort(new Error("cancelled"));
    }
    return read.call(this, p);
  };
  try {
    const find = tools.find((t) => t.name === "find_operations")!;
    const call = await callTool(find, { handle }, env(ac.signal));
    assert.notEqual(call.outcome, "ok", "a cancelled call gives no answer");
    assert.ok(reads >= 1, "the database was being read in");
    assert.ok(afterCancel <= 1, `${afterCancel} reads of 12 after the cancel`);
  } finally {
    Deno.FsFile.prototype.read = read;
  }
  const again = await callTool(
    tools.find((t) => t.name === "find_operations")!,
    { handle },
    env(new AbortController().signal),
  );
  assert.equal(again.outcome, "ok", "the next call opens it afresh");
});

Deno.test("load_report reads a database with an errors table in slices, never in one piece", async () => {
  // Prevents load_report counting the run's errors over a connection opened by one
  // synchronous read of the whole file (a gigabyte read while no request is answered).
  await using dir = await tempDir();
  writeDetailDb(`${dir.path}/db.sqlite`, 1_000, false);
  const grown = new DatabaseSync(`${dir.path}/db.sqlite`);
  grown.exec("CREATE TABLE padding (b); INSERT INTO padding VALUES (zeroblob(32 * 1024 * 1024))");
  grown.close();
  const readSync = Deno.FsFile.prototype.readSync;
  let whole = 0;
  Deno.FsFile.prototype.readSync = function (p: Uint8Array) {
    if (p.length >= 8 << 20) whole++;
    return readSync.call(this, p);
  };
  try {
    const s = session();
    const a = await s.call("load_report", { profiler_path: dir.path });
    // The run's error is counted: the database was read to answer.
    assert.ok(JSON.stringify(a.next).includes('"errors"'), JSON.stringify(a.next));
  } finally {
    Deno.FsFile.prototype.readSync = readSync;
  }
  assert.equal(whole, 0, `${whole} synchronous reads of 8 MiB or more`);
});

Deno.test("a database is copied into memory once by its load and its first call together", async () => {
  // Prevents load_report's probe copying the database into memory and the handle's first open
  // copying it again (issue 30: each copy of a 625 MiB database held the event loop 0.6 s, the
  // second during the first l1_peak call).
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  const deserialize = DatabaseSync.prototype.deserialize;
  let copies = 0;
  DatabaseSync.prototype.deserialize = function (...a: Parameters<typeof deserialize>) {
    copies++;
    return deserialize.apply(this, a);
  };
  try {
    const s = session();
    const { handle } = await s.call("load_report", { profiler_path: dir.path });
    const found = await s.call("find_operations", { handle });
    assert.ok(Array.isArray(found.operations), "the call answers from the database");
  } finally {
    DatabaseSync.prototype.deserialize = deserialize;
  }
  assert.equal(copies, 1, `${copies} copies into memory`);
});

Deno.test("a load_report cancelled while its database is read in stops the read", async () => {
  // Prevents a cancelled load reading the rest of a database of up to 1 GiB into memory, and
  // copying it, after nobody waits for it — or recording it as unreadable for the next load.
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  const grown = new DatabaseSync(`${dir.path}/db.sqlite`);
  grown.exec("CREATE TABLE padding (b); INSERT INTO padding VALUES (zeroblob(96 * 1024 * 1024))");
  grown.close();
  const tools = await loadTools();
  const registry = new HandleRegistry();
  const env = (signal: AbortSignal) => ({ registry, roots: Roots.any(), signal });
  const loadTool = tools.find((t) => t.name === "load_report")!;
  // Reads of 8 MiB or more are the database's copy into memory; the load is cancelled at the
  // first, and the reads after it counted.
  const read = Deno.FsFile.prototype.read;
  const ac = new AbortController();
  let reads = 0;
  let afterCancel = 0;
  Deno.FsFile.prototype.read = function (p: Uint8Array) {
    if (p.length >= 8 << 20) {
      reads++;
      if (ac.signal.aborted) afterCancel++;
      else ac.abort(new Error("cancelled"));
    }
    return read.call(this, p);
  };
  try {
    const load = await callTool(loadTool, { profiler_path: dir.path }, env(ac.signal));
    assert.notEqual(load.outcome, "ok", "a cancelled load gives no handle");
    assert.ok(reads >= 1, "the database was being read in");
    assert.ok(afterCancel <= 1, `${afterCancel} reads of 12 after the cancel`);
  } finally {
    Deno.FsFile.prototype.read = read;
  }
  const again = await callTool(
    loadTool,
    { profiler_path: dir.path },
    env(new AbortController().signal),
  );
  assert.equal(again.outcome, "ok");
  const handle = (again.result.structuredContent as { handle: string }).handle;
  const found = await callTool(
    tools.find((t) => t.name === "find_operations")!,
    { handle },
    env(new AbortController().signal),
  );
  assert.equal(found.outcome, "ok", "the next load reads the database afresh");
});
