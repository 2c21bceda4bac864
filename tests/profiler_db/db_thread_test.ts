/**
 * A large database on a thread of its own (issue 30: SQLite's copy of a 625 MiB database held
 * the event loop 0.6 s in one call, so a ping waited during load_report): opened there from
 * the checked bytes, and read from here exactly as one in this thread is read — the same
 * rows, the same failures, rows one at a time in bounded batches.
 */
import assert from "node:assert/strict";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { tempDir } from "../_support/dirs.ts";
import { openFixtureDb } from "./_fixtures.ts";
import { openOnThread } from "../../src/profiler_db/_db_thread.ts";
import type { Database, Statement } from "../../src/profiler_db/database.ts";
import { openReadOnlyChecked, THREAD_FROM_BYTES } from "../../src/profiler_db/open.ts";
import { dramFallbacks } from "../../src/analysis/dram_fallbacks.ts";
import { snapshotAt } from "../../src/profiler_db/buffers.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import { writeDetailDb } from "../../scripts/make_large_profiler_db.ts";
import { loaded } from "./_fixtures.ts";

/** A database's bytes with a table of every kind of value, a BigInt past 2^53 among them. */
function image(): Uint8Array {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, r REAL)");
  const ins = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
  for (let i = 0; i < 700; i++) ins.run(i, `row ${i}`, new Uint8Array([i & 255, 7]), i / 3);
  ins.run(2n ** 62n, null, null, -0.5);
  const bytes = db.serialize();
  db.close();
  return bytes;
}

/** Rows as plain objects (`node:sqlite` gives them no prototype; a structured copy does). */
const plain = (v: unknown) => structuredClone(v);

Deno.test("a database on its own thread answers every statement as one in this thread", async () => {
  // Prevents the thread's rows, numbers, BigInts, blobs or failures differing from what the
  // tools read of a database in this thread (their answers would change with its size).
  const here = new DatabaseSync(":memory:");
  here.deserialize(image());
  await using there = disposable(await openOnThread(image(), ["PRAGMA query_only = 1"]));
  const cases: [string, SQLInputValue[], boolean][] = [
    ["SELECT * FROM t WHERE i < ? ORDER BY i", [5], false],
    ["SELECT i FROM t WHERE r < 0", [], true],
    ["SELECT count(*) AS n, sum(r) AS total FROM t", [], false],
    ["SELECT b FROM t WHERE i = ?", [3n], false],
    ["SELECT s FROM t WHERE s = ?", ["row 9"], false],
  ];
  for (const [sql, params, bigInts] of cases) {
    const a = here.prepare(sql);
    const b = there.db.prepare(sql);
    a.setReadBigInts(bigInts);
    b.setReadBigInts(bigInts);
    assert.deepEqual(plain(b.all(...params)), plain(a.all(...params)), sql);
    assert.deepEqual(plain(b.get(...params)), plain(a.get(...params)), sql);
    assert.deepEqual(plain(every(b, params)), plain(every(a, params)), sql);
  }
  const failure = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      const { message, code } = e as Error & { code?: string };
      return { message, code };
    }
    return null;
  };
  for (
    const f of [
      (db: Database) => db.prepare("SELECT nothing FROM t"),
      (db: Database) => db.exec("INSERT INTO t VALUES (1, 1, 1, 1)"),
    ]
  ) {
    here.exec("PRAGMA query_only = 1");
    const expected = failure(() => f(here));
    assert.notEqual(expected, null);
    assert.deepEqual(failure(() => f(there.db)), expected);
  }
  here.close();
});

/** Every row of `statement` read one at a time. */
function every(statement: Statement, params: SQLInputValue[]): unknown[] {
  const out: unknown[] = [];
  const it = statement.iterate(...params);
  for (let next = it.next(); !next.done; next = it.next()) out.push(next.value);
  return out;
}

/** `db` closed on leaving the scope. */
function disposable(db: Database) {
  return { db, [Symbol.asyncDispose]: () => Promise.resolve(db.close()) };
}

Deno.test("rows read one at a time from the thread come whole, in order, however large", async () => {
  // Prevents a batch of large rows (graphs of megabytes each) being held whole, or a row lost
  // or repeated where one batch ends and the next begins.
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE g (id INTEGER PRIMARY KEY, text TEXT)");
  const ins = db.prepare("INSERT INTO g VALUES (?, ?)");
  for (let i = 1; i <= 600; i++) ins.run(i, String.fromCharCode(65 + (i % 26)).repeat(i * 100));
  const bytes = db.serialize();
  db.close();
  await using there = disposable(await openOnThread(bytes, []));
  const read = every(there.db.prepare("SELECT id, length(text) AS n, text FROM g ORDER BY id"), []);
  assert.equal(read.length, 600);
  read.forEach((r, i) => {
    const { id, n, text } = r as { id: number; n: number; text: string };
    assert.equal(id, i + 1);
    assert.equal(n, (i + 1) * 100);
    assert.equal(text.length, n);
  });
  // Left early, an iteration ends there; the statement reads again from its start.
  const statement = there.db.prepare("SELECT id FROM g ORDER BY id");
  const it = statement.iterate();
  assert.deepEqual(plain(it.next().value), { id: 1 });
  it.return?.();
  assert.deepEqual(it.next(), { done: true, value: undefined });
  assert.deepEqual(plain(statement.iterate().next().value), { id: 1 });
});

Deno.test("a database closed on its thread refuses every statement after, and closes once", async () => {
  // Prevents a statement reaching a terminated thread (a wait with no answer: a hang).
  const db = await openOnThread(image(), []);
  const statement = db.prepare("SELECT 1 AS one");
  const it = db.prepare("SELECT i FROM t").iterate();
  it.next();
  db.close();
  db.close();
  assert.throws(() => db.prepare("SELECT 1"), /database is not open/);
  assert.throws(() => statement.get(), /database is not open/);
  assert.deepEqual(it.return?.(), { done: true, value: undefined });
});

Deno.test("a database too damaged to open on its thread is refused with SQLite's reason", async () => {
  // Prevents a copy SQLite rejects leaving a thread behind or a wait that never ends.
  const bytes = image();
  bytes.fill(0, 100, 4096);
  const db = await openOnThread(bytes, ["PRAGMA query_only = 1"]).catch((e) => e as Error);
  if (db instanceof Error) {
    assert.match(db.message, /malformed|not a database|corrupt/i);
    return;
  }
  // SQLite may open it and meet the damage at the first read instead.
  assert.throws(() => db.prepare("SELECT * FROM t").all(), /malformed|not a database|corrupt/i);
  db.close();
});

Deno.test("a database from THREAD_FROM_BYTES up is opened on a thread of its own", async () => {
  // Prevents SQLite's copy of a large database running on the thread that answers the client
  // (issue 30: a ping waited 0.6 s for a 625 MiB database at load_report).
  await using dir = await tempDir();
  const size = writeDetailDb(`${dir.path}/db.sqlite`, 20_000, false);
  assert.ok(size >= THREAD_FROM_BYTES, `${size} bytes`);
  const large = await openReadOnlyChecked(`${dir.path}/db.sqlite`);
  assert.ok(!(large.db instanceof DatabaseSync), "on a thread of its own");
  large.db.close();
  const small = await openReadOnlyChecked(`${dir.path}/db.sqlite`, undefined, undefined, Infinity);
  assert.ok(small.db instanceof DatabaseSync, "in this thread when asked");
  small.db.close();
});

Deno.test("every statement the database tools run reads the same on the thread as here", async () => {
  // Prevents a statement the tools use (stepped reads, BigInt rowids, JSON columns, rows one
  // at a time) answering differently once the report is large enough to go to a thread.
  await using dir = await tempDir();
  writeDetailDb(`${dir.path}/db.sqlite`, 20_000, true);
  const { db: there } = await openReadOnlyChecked(`${dir.path}/db.sqlite`);
  let compared = 0;
  const twin = (here: Database): Database => ({
    prepare(sql) {
      const a = here.prepare(sql);
      const b = there.prepare(sql);
      const both = <T>(f: (s: Statement) => T): T => {
        const expected = f(a);
        assert.deepEqual(plain(f(b)), plain(expected), sql);
        compared++;
        return expected;
      };
      return {
        all: (...p) => both((s) => s.all(...p)),
        get: (...p) => both((s) => s.get(...p)),
        iterate: (...p) => both((s) => every(s, p))[Symbol.iterator](),
        setReadBigInts: (on) => (a.setReadBigInts(on), b.setReadBigInts(on)),
      };
    },
    exec: (sql) => (here.exec(sql), there.exec(sql)),
    close: () => here.close(),
  });
  using pdb = await openFixtureDb(dir.path, twin);
  const scope = rankScope(pdb, undefined);
  await dramFallbacks(pdb, scope);
  snapshotAt(pdb, scope, 10_000);
  there.close();
  assert.ok(compared > 20, `${compared} statements compared`);
});

Deno.test("the profiler tools answer on a report whose database is on a thread", async () => {
  // Prevents a tool failing, or waiting forever, once load_report has put the database on a
  // thread (the copy the probe made is the one the tools read).
  await using dir = await tempDir();
  writeDetailDb(`${dir.path}/db.sqlite`, 20_000, true);
  const report = await loaded(dir.path);
  const detail = await report.call("operation_detail", { operation_id: 10_000 });
  assert.equal(detail.operation_id, 10_000);
  const found = await report.call("find_operations", { name_contains: "matmul", limit: 3 });
  assert.ok(Array.isArray(found.operations));
  await report.call("dram_fallbacks", { limit: 5 });
  await report.call("memory_profile", {});
});
