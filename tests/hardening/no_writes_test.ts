import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createSchema } from "../../bench/_profiler_db.ts";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";
import { callOk, connect } from "../_support/server.ts";
import { tempDir } from "../_support/dirs.ts";

/** Operations in the large generated database (three buffers rows each). */
const OPS = 200_000;

/** Whether strace can trace a child here. */
async function straceWorks(): Promise<boolean> {
  try {
    const out = await new Deno.Command("strace", { args: ["-f", "-o", "/dev/null", "true"] })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** A W1-shaped database of `ops` operations, three buffers rows each. */
function writeLargeDb(path: string, ops: number): void {
  const db = new DatabaseSync(path);
  createSchema(db);
  const op = db.prepare("INSERT INTO operations VALUES (?, ?, ?)");
  const buf = db.prepare("INSERT INTO buffers VALUES (?, 0, ?, ?, ?)");
  db.exec("BEGIN");
  for (let id = 1; id <= ops; id++) {
    op.run(id, id % 2 ? "ttnn.matmul" : "ttnn.add", 0.0001 * (id % 97));
    buf.run(id, 1920032, 34816, 1);
    buf.run(id, 1954848 + 2048 * (id % 7), 6144, 1);
    buf.run(id, 1474560 - 8192 * (1 + (id % 13)), 8192, 0);
  }
  db.exec("COMMIT");
  db.close();
}

/** Deno's own cache directory, which `deno run` (not the server's code) keeps up to date. */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`;

/**
 * Every open for writing or creating in an strace log, and every path under /var/tmp — but
 * those of `deno run` itself, before the server runs: its caches under DENO_DIR and the lock
 * of the npm packages under node_modules/.deno (a compiled binary has neither).
 */
function writesIn(log: string): string[] {
  return log.split("\n").filter((line) =>
    /\bopen(at|at2)?\(|\bcreat\(/.test(line) &&
    (/O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/.test(line) || /"\/var\/tmp\//.test(line)) &&
    !line.includes(`"${DENO_DIR}/`) && !/"[^"]*\/node_modules\/\.deno\/\.deno\.lock/.test(line)
  );
}

Deno.test("the server opens nothing for writing or creating on a WAL database and a large one", async (t) => {
  // Prevents SQLite creating db.sqlite-shm and -wal beside a WAL report (it opened them
  // O_RDWR|O_CREAT when the database was opened in place) and a sort spilling into
  // /var/tmp/etilqs_* (no temp_store = MEMORY).
  if (!(await straceWorks())) {
    console.log("skipped: strace is not installed or cannot trace here");
    return;
  }
  await using dir = await tempDir();
  const wal = `${dir.path}/wal`;
  const large = `${dir.path}/large`;
  await Deno.mkdir(wal);
  await Deno.mkdir(large);
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, `${wal}/db.sqlite`);
  const w = new DatabaseSync(`${wal}/db.sqlite`);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  writeLargeDb(`${large}/db.sqlite`, OPS);
  const log = `${dir.path}/strace.log`;
  const server = await connect([], [
    "strace",
    "-f",
    "-qq",
    "-e",
    "trace=open,openat,openat2,creat",
    "-o",
    log,
  ]);
  try {
    await t.step("a WAL database is read without -shm or -wal beside it", async () => {
      const a = await callOk(server.client, "load_report", { profiler_path: wal });
      const found = await callOk(server.client, "find_operations", {
        handle: a.handle,
        limit: 3,
      });
      assert.ok((found.operations as unknown[]).length > 0);
      assert.deepEqual([...Deno.readDirSync(wal)].map((e) => e.name), ["db.sqlite"]);
    });
    await t.step(`a sort over ${OPS} operations' buffers spills nowhere`, async () => {
      const a = await callOk(server.client, "load_report", { profiler_path: large });
      await callOk(server.client, "memory_profile", { handle: a.handle, limit: 5 });
      await callOk(server.client, "find_operations", { handle: a.handle, limit: 5 });
    });
  } finally {
    await server.close();
  }
  const traced = await Deno.readTextFile(log);
  assert.ok(traced.includes(`${wal}/db.sqlite`), "strace saw the server open the database");
  assert.deepEqual(writesIn(traced), []);
});
