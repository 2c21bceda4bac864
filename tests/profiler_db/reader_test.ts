import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { DatabaseSync } from "node:sqlite";
import { openReadOnly, probeProfilerDb } from "../../src/profiler_db/probe.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";
import { loaded, PROFILER_FIXTURES } from "./_fixtures.ts";
import { FLAVOURS } from "../../scripts/make_profiler_fixtures.ts";
import { profilerDb } from "../../src/session/profiler_db.ts";

type Row = Record<string, unknown>;
const GENERATOR = new URL("../../scripts/make_profiler_fixtures.ts", import.meta.url).pathname;

Deno.test("the committed fixtures are exactly what the generator writes", async () => {
  // Prevents tests passing against hand-edited fixtures the generator no longer produces.
  await using dir = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", GENERATOR, `${dir.path}/`],
    stderr: "null",
  }).output();
  assert.equal(out.code, 0);
  const names = [...Deno.readDirSync(PROFILER_FIXTURES)].filter((e) => e.isDirectory)
    .map((e) => e.name).sort();
  assert.deepEqual(names, FLAVOURS.map((f) => f.name).sort());
  for (const name of names) {
    for (const e of Deno.readDirSync(`${PROFILER_FIXTURES}${name}`)) {
      if (e.name === "db.sqlite") {
        assert.deepEqual(
          dump(`${dir.path}/${name}/db.sqlite`),
          dump(`${PROFILER_FIXTURES}${name}/db.sqlite`),
          `${name}/db.sqlite`,
        );
      } else {
        assert.equal(
          Deno.readTextFileSync(`${dir.path}/${name}/${e.name}`),
          Deno.readTextFileSync(`${PROFILER_FIXTURES}${name}/${e.name}`),
          `${name}/${e.name}`,
        );
      }
    }
  }
});

/** Every table's schema and rows. */
function dump(path: string): Row {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const out: Row = {};
    for (
      const { name, sql } of db.prepare("SELECT name, sql FROM sqlite_master ORDER BY name")
        .all() as { name: string; sql: string }[]
    ) {
      out[name] = {
        sql,
        rows: sql?.startsWith("CREATE TABLE") ? db.prepare(`SELECT * FROM ${name}`).all() : null,
      };
    }
    return out;
  } finally {
    db.close();
  }
}

Deno.test("the database is opened read-only: a write through the reader's connection fails", async () => {
  // Prevents the reader from ever modifying a report.
  await using dir = await tempDir();
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, `${dir.path}/db.sqlite`);
  const before = Deno.readFileSync(`${dir.path}/db.sqlite`);
  const db = openReadOnly(`${dir.path}/db.sqlite`);
  assert.throws(() => db.exec("INSERT INTO operations VALUES (99, 'x', 0)"), /readonly/);
  db.close();
  assert.deepEqual(Deno.readFileSync(`${dir.path}/db.sqlite`), before);
  assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["db.sqlite"]);
});

Deno.test("every database is an in-memory copy whose sorts stay in memory", async () => {
  // Prevents SQLite opening a report by path after it was checked (a swap in between made it
  // answer from another file) and a large sort spilling into /var/tmp/etilqs_*.
  await using dir = await tempDir();
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, `${dir.path}/db.sqlite`);
  const db = openReadOnly(`${dir.path}/db.sqlite`);
  assert.equal(db.location(), null);
  assert.equal((db.prepare("PRAGMA temp_store").get() as Row).temp_store, 2);
  db.close();
});

Deno.test("a WAL-mode database is read as a snapshot without writing -shm or -wal beside it", async () => {
  // Prevents SQLite creating files next to a report (it does for WAL databases opened in place)
  // and a failure on a read-only mount.
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, path);
  const w = new DatabaseSync(path);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  for (const e of Deno.readDirSync(dir.path)) {
    if (e.name !== "db.sqlite") Deno.removeSync(`${dir.path}/${e.name}`);
  }
  assert.equal(Deno.readFileSync(path)[18], 2, "the file is in WAL mode");
  const db = openReadOnly(path);
  assert.equal((db.prepare("SELECT COUNT(*) AS n FROM operations").get() as Row).n, 12);
  assert.throws(() => db.exec("DELETE FROM operations"));
  db.close();
  assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["db.sqlite"]);
});

Deno.test("no database gives the buffers scan a file for a worker to read again", async () => {
  // Prevents a large scan's worker reading the database whole into memory a second time (every
  // database is now read into memory through its checked descriptor, WAL mode or not).
  await using wal = await tempDir();
  await using plain = await tempDir();
  for (const dir of [wal.path, plain.path]) {
    await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, `${dir}/db.sqlite`);
  }
  const w = new DatabaseSync(`${wal.path}/db.sqlite`);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  for (const e of Deno.readDirSync(wal.path)) {
    if (e.name !== "db.sqlite") Deno.removeSync(`${wal.path}/${e.name}`);
  }
  const s = session();
  const fileOf = async (dir: string) => {
    const { handle } = await s.call("load_report", { profiler_path: dir });
    return profilerDb({ tool: "test", report: await s.registry.get(String(handle)) }, {
      operations: [],
    }).file;
  };
  assert.equal(await fileOf(wal.path), undefined);
  assert.equal(await fileOf(plain.path), undefined);
});

Deno.test("a WAL database whose -wal still holds changes is refused saying how to checkpoint it", async () => {
  // Prevents answering from the main file alone, which silently misses committed rows.
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, path);
  const w = new DatabaseSync(path);
  w.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;");
  w.exec("INSERT INTO operations VALUES (13, 'ttnn.late', 0.1)");
  // Copy the files while the writer holds them open, as a capture still running leaves them.
  await Deno.mkdir(`${dir.path}/copy`);
  for (const s of ["", "-wal"]) {
    await Deno.copyFile(`${path}${s}`, `${dir.path}/copy/db.sqlite${s}`);
  }
  w.close();
  const copy = `${dir.path}/copy/db.sqlite`;
  assert.throws(
    () => openReadOnly(copy),
    new RegExp(
      "WAL mode and db\\.sqlite-wal holds \\d+ bytes of changes that may not be in db\\.sqlite yet.*" +
        `fold them in with sqlite3 '${copy}' 'PRAGMA wal_checkpoint\\(TRUNCATE\\)'`,
    ),
  );
  const s = session();
  const a = await s.call("load_report", { profiler_path: `${dir.path}/copy` });
  assert.match(String((a.profiler_database as Row).problem), /db\.sqlite-wal holds/);
  assert.deepEqual(a.answerable, []);
  assert.match(String(reasonsByTool(a).find_operations), /WAL mode/);
  // The command named folds the row in; the database then answers with it.
  const c = new DatabaseSync(copy);
  c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  c.close();
  const db = openReadOnly(copy);
  assert.equal(
    (db.prepare("SELECT name FROM operations WHERE operation_id = 13").get() as Row).name,
    "ttnn.late",
  );
  db.close();
});

Deno.test("a WAL database whose -wal is a symlink is refused without following it", async () => {
  // Prevents the refusal stating the size of a file outside the report (the link's target).
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, path);
  const w = new DatabaseSync(path);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  await Deno.writeTextFile(`${dir.path}/outside`, "x".repeat(12345));
  await Deno.symlink(`${dir.path}/outside`, `${path}-wal`);
  assert.throws(
    () => openReadOnly(path),
    (e: Error) =>
      /db\.sqlite-wal is a symbolic link \(not followed\) and may hold changes/.test(e.message) &&
      !e.message.includes("12345"),
  );
});

Deno.test("a rollback database whose -journal holds an unfinished transaction is refused", async () => {
  // Prevents answering from a main file a crashed or running writer left half-written.
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, path);
  await Deno.writeFile(`${path}-journal`, new Uint8Array(512).fill(7));
  assert.throws(
    () => openReadOnly(path),
    /db\.sqlite-journal holds 512 bytes: a transaction its writer had not finished.*PRAGMA integrity_check/,
  );
  await Deno.writeFile(`${path}-journal`, new Uint8Array(0));
  openReadOnly(path).close();
});

Deno.test("a file that is not SQLite, a short one and an empty one are named, not fatal", async () => {
  // Prevents a corrupt capture from crashing load_report or being advertised as answerable.
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "text/db.sqlite": "this is not a database, just text that is long enough to be read in full " +
      "by the header check, which wants one hundred bytes of it............................",
    "short/db.sqlite": "SQLite format 3\u0000",
    "empty/db.sqlite": "",
  });
  const expected: Record<string, RegExp> = {
    text: /not a SQLite database \(it does not start with the SQLite header\)/,
    short: /not a SQLite database \(16 bytes, shorter than its header\)/,
    empty: /db\.sqlite is empty/,
  };
  const s = session();
  for (const [name, problem] of Object.entries(expected)) {
    const a = await s.call("load_report", { profiler_path: `${dir.path}/${name}` });
    assert.match(String((a.profiler_database as Row).problem), problem, name);
    assert.deepEqual(a.answerable, [], name);
    assert.match(String(reasonsByTool(a).find_operations), problem, name);
    assert.match(
      await s.refusal("find_operations", { handle: a.handle }),
      new RegExp(`find_operations cannot answer: .*${problem.source}`),
    );
  }
});

Deno.test("a corrupt table is refused when read, naming the problem; a corrupt schema at load", async () => {
  // Prevents a crash or a '<tool> failed' when a report's pages are damaged.
  const source = `${PROFILER_FIXTURES}w1_python_writer/db.sqlite`;
  const db = new DatabaseSync(source, { readOnly: true });
  const page = (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
  const root = (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'buffers'").get() as {
    rootpage: number;
  }).rootpage;
  db.close();
  await using dir = await tempDir();
  const table = Deno.readFileSync(source);
  table.fill(0xa5, (root - 1) * page, root * page); // the buffers table's root page only
  const schema = Deno.readFileSync(source);
  schema.fill(0xa5, page); // everything after the first page, the schema's continuation included
  await writeFiles(dir.path, { "table/db.sqlite": table, "schema/db.sqlite": schema });
  const s = session();
  const a = await s.call("load_report", { profiler_path: `${dir.path}/table` });
  assert.ok((a.answerable as string[]).includes("memory_profile"));
  assert.match(
    await s.refusal("memory_profile", { handle: a.handle }),
    /^the profiler database could not be read: database disk image is malformed/,
  );
  assert.equal((await s.call("find_operations", { handle: a.handle })).match_count, 12);
  const b = await s.call("load_report", { profiler_path: `${dir.path}/schema` });
  assert.match(
    String((b.profiler_database as Row).problem),
    /cannot be read as SQLite: .*malformed/,
  );
  assert.deepEqual(b.answerable, []);
});

Deno.test("tables and columns are discovered per writer generation, not assumed", async () => {
  // Prevents a reader that assumes one schema version and misreads the others.
  const w1 = await probeProfilerDb(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`);
  assert.deepEqual(w1!.columns.buffers, [
    "operation_id",
    "device_id",
    "address",
    "max_size_per_bank",
    "buffer_type",
  ]);
  assert.ok(!w1!.tables.includes("errors"));
  assert.equal(w1!.operationRanks, null);
  const v21 = await probeProfilerDb(`${PROFILER_FIXTURES}v2_1_tensor_size/db.sqlite`);
  assert.ok(v21!.columns.buffers.includes("buffer_layout"));
  assert.ok(v21!.columns.stack_traces.includes("source_file_id"));
  assert.ok(v21!.columns.tensors.includes("size"));
  assert.ok(v21!.tables.includes("source_files") && v21!.tables.includes("errors"));
  const ranked = await probeProfilerDb(`${PROFILER_FIXTURES}ranked_two_hosts/db.sqlite`);
  assert.deepEqual(ranked!.operationRanks, [0, 1]);
  assert.ok(ranked!.columns.buffers.includes("rank"));
});

Deno.test("load_report counts the profiler's devices by distinct id, every rank's", async () => {
  // Prevents a device recorded twice counting twice, and a multi-host report counting one rank.
  const mesh = await loaded("v2_mesh_two_devices");
  assert.equal((mesh.inventory.device_count as Row).profiler, 2);
  const ranked = await loaded("ranked_two_hosts");
  assert.equal((ranked.inventory.device_count as Row).profiler, 2);
  const single = await loaded("w1_python_writer");
  assert.equal((single.inventory.device_count as Row).profiler, 1);
});

Deno.test("the cluster descriptor's arch is returned as written, in both spellings", async () => {
  // Prevents normalising away the spelling that tells an older descriptor from a newer one.
  assert.deepEqual((await loaded("w1_python_writer")).inventory.arch, {
    cluster_descriptor: "Wormhole",
  });
  assert.deepEqual((await loaded("v2_1_tensor_size")).inventory.arch, {
    cluster_descriptor: "wormhole_b0",
  });
  assert.deepEqual((await loaded("ranked_two_hosts")).inventory.arch, {
    cluster_descriptor: "wormhole_b0",
  });
});

Deno.test("a capture holding operations but no buffers answers find_operations and nothing else", async () => {
  // Prevents advertising every database tool for a truncated capture and failing most of them.
  const t = await loaded("w1_truncated_operations_only");
  const dbTools = [
    "find_operations",
    "operation_detail",
    "memory_profile",
    "tensor_flow",
    "operation_provenance",
  ];
  assert.deepEqual((t.inventory.answerable as string[]).filter((n) => dbTools.includes(n)), [
    "find_operations",
  ]);
  const reasons = reasonsByTool(t.inventory);
  assert.equal(reasons.memory_profile, "db.sqlite has no `buffers` table");
  assert.equal(reasons.operation_provenance, "db.sqlite has no `operation_arguments` table");
  assert.match(String(reasons.operation_detail), /no `buffers`, `tensors`, `input_tensors`/);
  assert.match(
    await t.refusal("memory_profile"),
    /memory_profile cannot answer for this capture: db\.sqlite has no `buffers` table/,
  );
  assert.equal((await t.call("find_operations", { name_contains: "conv" })).match_count, 1);
});

Deno.test("a missing column is named as precisely as a missing table", async () => {
  // Prevents a schema that lost a column from being reported answerable and failing in SQL.
  await using dir = await tempDir();
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, `${dir.path}/db.sqlite`);
  const db = new DatabaseSync(`${dir.path}/db.sqlite`);
  db.exec("ALTER TABLE buffers DROP COLUMN max_size_per_bank");
  db.close();
  const s = session();
  const a = await s.call("load_report", { profiler_path: dir.path });
  assert.equal(
    reasonsByTool(a).memory_profile,
    "`buffers` in db.sqlite has no `max_size_per_bank` column",
  );
  assert.ok((a.answerable as string[]).includes("tensor_flow"));
});

Deno.test("a handle without a profiler path is refused readably by every database tool", async () => {
  // Prevents a performance-only handle from producing an empty answer or a crash.
  const s = session();
  const a = await s.call("load_report", {
    performance_path: new URL("../../fixtures/demo/performance", import.meta.url).pathname,
  });
  for (const tool of ["find_operations", "memory_profile"]) {
    assert.match(
      await s.refusal(tool, { handle: a.handle }),
      /loaded without a profiler_path; memory and operation questions need the profiler report/,
    );
  }
});
