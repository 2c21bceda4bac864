/**
 * Every report file is opened once, checked to be a regular file before anything opens it,
 * and read with a bound: FIFOs and devices under a report file's name are refused by name
 * (never opened, so never waited on), a descriptor symlinked to /dev/zero reads nothing, a
 * cluster descriptor past its cap or with a hostile `arch` entry is refused in bounded time,
 * a performance CSV past the memory budget is refused with its size, under --root a database
 * is read only through the descriptor checked (a capped copy in memory), and a later read of a
 * file is refused unless it is the very file load_report looked at. Generous timeouts only
 * catch hangs; nothing asserts a duration.
 */
import assert from "node:assert/strict";
import { callOk, connect, RawServer } from "../_support/server.ts";
import { copyDemo, DEMO, tempDir } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";
import {
  copyDemoProfiler,
  descriptorOfBytes,
  descriptorWithKeys,
} from "../../scripts/make_adversarial_inputs.ts";
import { openWithin, reopen } from "../../src/kit/report_file.ts";
import { fromInfo } from "../../src/kit/file_identity.ts";
import { probeOpenedDeviceLog } from "../../src/device_log/probe.ts";
import { archEntry, MAX_ARCH_BYTES } from "../../src/profiler_db/cluster_descriptor.ts";
import { probeProfilerDb } from "../../src/profiler_db/probe.ts";
import { Roots } from "../../src/kit/roots.ts";
import { DatabaseSync } from "node:sqlite";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;

/** Makes a FIFO at `path`. */
async function mkfifo(path: string): Promise<void> {
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(out.code, 0, "mkfifo");
}

/** Resolves with `p`, or rejects after `ms` — a bound that only catches a hang. */
function notHung<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

Deno.test("FIFOs named as every report file are refused by name, and the server still exits at end of stdin", async () => {
  // Prevents load_report opening a FIFO (which waits for a writer forever), hanging the call,
  // ignoring its cancellation and keeping the server alive after its client has gone.
  await using dir = await tempDir();
  const perf = `${dir.path}/perf`;
  const prof = `${dir.path}/prof`;
  await Deno.mkdir(perf);
  await Deno.mkdir(prof);
  for (
    const path of [
      `${perf}/ops_perf_results_x.csv`,
      `${perf}/profile_log_device.csv`,
      `${prof}/db.sqlite`,
      `${prof}/cluster_descriptor.yaml`,
    ]
  ) await mkfifo(path);
  const s = new RawServer();
  await s.request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  });
  const r = await notHung(
    s.call(2, "load_report", { performance_path: perf, profiler_path: prof }),
    60_000,
    "load_report on FIFOs",
  );
  assert.ok(r.ok, r.ok ? "" : r.text);
  const a = r.answer;
  const fifo = /is not a regular file \(it is a FIFO \(named pipe\)\); nothing was read from it/;
  assert.match(String(a.performance_csv_problem), fifo);
  assert.match(String((a.device_log as Row).problem), fifo);
  assert.match(String((a.profiler_database as Row).problem), fifo);
  assert.match(String((a.cluster_descriptor as Row).problem), fifo);
  const { code } = await notHung(s.end(), 60_000, "the server's exit at end of stdin");
  assert.equal(code, 0);
});

Deno.test("a cluster descriptor symlinked to /dev/zero is refused by name and nothing is read", async () => {
  // Prevents reading an endless device into memory (6 GB in 21 s before the fix).
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  await Deno.remove(`${dir.path}/cluster_descriptor.yaml`);
  await Deno.symlink("/dev/zero", `${dir.path}/cluster_descriptor.yaml`);
  const a = await notHung(
    session().call("load_report", { profiler_path: dir.path }),
    60_000,
    "load_report",
  );
  assert.match(
    String((a.cluster_descriptor as Row).problem),
    /cluster_descriptor\.yaml is not a regular file \(it is a character device\)/,
  );
  assert.deepEqual(a.arch, {});
});

Deno.test("a cluster descriptor past its cap is refused with its size and the cap named", async () => {
  // Prevents a 23–131 MB descriptor being read whole into memory (fatal out-of-memory).
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  await Deno.writeTextFile(`${dir.path}/cluster_descriptor.yaml`, descriptorOfBytes(6e6));
  const a = await session().call("load_report", { profiler_path: dir.path });
  assert.match(
    String((a.cluster_descriptor as Row).problem),
    /cluster_descriptor\.yaml is \d\.\d MiB \(\d+ bytes\), more than the 4 MiB this server reads of it/,
  );
  assert.ok((a.answerable as string[]).includes("find_operations"), "the database still answers");
});

Deno.test("a cluster descriptor of 150,000 keys loads in bounded time, its arch still read", async () => {
  // Prevents the YAML parser's quadratic duplicate-key check blocking the server for minutes
  // (10k keys: 1.6 s, 40k: 12 s, 150k: past 120 s before the fix).
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  await Deno.writeTextFile(`${dir.path}/cluster_descriptor.yaml`, descriptorWithKeys(150_000));
  const a = await notHung(
    session().call("load_report", { profiler_path: dir.path }),
    30_000,
    "load_report of a 2.4 MB descriptor",
  );
  assert.deepEqual(a.arch, { cluster_descriptor: "Wormhole" });
  assert.equal((a.cluster_descriptor as Row).problem, undefined);
});

Deno.test("an arch entry too long or nested too deep is refused without being parsed", () => {
  // Prevents a hostile arch entry itself costing the parser unbounded time or stack.
  const long = archEntry(`arch: {${"0: Wormhole, ".repeat(MAX_ARCH_BYTES / 10)}}\n`);
  assert.deepEqual(long, {
    problem: `has an arch entry longer than ${MAX_ARCH_BYTES} bytes; it was not read`,
  });
  const deep = archEntry(`arch: ${"[".repeat(100)}${"]".repeat(100)}\n`);
  assert.deepEqual(deep, { problem: "nests its arch entry deeper than 16; it was not read" });
  // Block style, quoted key, comments and the entry's end at the next top-level key.
  assert.equal(
    archEntry('chips: {}\n"arch":  # per chip\n  0: wormhole_b0\n\n  1: blackhole\nboards: []\n'),
    '"arch":  # per chip\n  0: wormhole_b0\n\n  1: blackhole',
  );
});

Deno.test("a descriptor whose arch entry is not YAML says so, and one without arch says that", async () => {
  // Prevents either being reported as a descriptor that named no architecture for no reason.
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  const s = session();
  await Deno.writeTextFile(`${dir.path}/cluster_descriptor.yaml`, "arch: {0: [\nchips: {}\n");
  const bad = await s.call("load_report", { profiler_path: dir.path });
  assert.match(String((bad.cluster_descriptor as Row).problem), /cannot be read as YAML/);
  await Deno.writeTextFile(`${dir.path}/cluster_descriptor.yaml`, "chips: {0: [0, 0, 0, 0]}\n");
  const none = await s.call("load_report", { profiler_path: dir.path });
  assert.equal(
    (none.cluster_descriptor as Row).problem,
    "cluster_descriptor.yaml has no arch mapping",
  );
});

Deno.test("a performance CSV past the memory budget is refused with its size, never a V8 error", async () => {
  // Prevents a multi-GB CSV failing as "buffer exceeds maximum length" (or exhausting memory)
  // instead of a refusal that names the size and what to do.
  await using dir = await tempDir();
  const csv = `${dir.path}/ops_perf_results_big.csv`;
  await Deno.copyFile(`${DEMO}performance/ops_perf_results_demo.csv`, csv);
  await Deno.truncate(csv, 300 << 20); // sparse: no disk, no time
  const a = await session().call("load_report", { performance_path: dir.path });
  assert.match(
    String(a.performance_csv_problem),
    /ops_perf_results_big\.csv is 300 MiB \(314572800 bytes\), more than the 256 MiB this server reads of it.*split the capture/,
  );
  assert.ok(!(a.answerable as string[]).includes("top_ops"));
});

Deno.test("a database is read through its checked descriptor with or without --root, and one past the cap is refused", async () => {
  // Prevents SQLite opening the path itself (it cannot be given the checked descriptor, so a
  // swapped file could make it read another one, and a WAL database makes it create -shm
  // beside the report), and a copy into memory without bound.
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, path);
  const roots = await Roots.of([dir.path]);
  assert.ok((await probeProfilerDb(path, roots))!.tables.includes("operations"));
  assert.ok((await probeProfilerDb(path))!.tables.includes("operations"));
  await Deno.truncate(path, (1 << 30) + (1 << 20)); // sparse: no disk, no time
  for (const within of [roots, undefined]) {
    assert.match(
      String((await probeProfilerDb(path, within))!.problem),
      /db\.sqlite is 1025 MiB: this server reads a database only through the descriptor it checked, copied into memory, and at most 1024 MiB/,
    );
  }
});

Deno.test("an open that waits, as on a FIFO swapped in after the look, is given up", async () => {
  // Prevents a FIFO swapped in between the regular-file check and the open blocking a load
  // forever: the open is abandoned after a bound and closed if it ever completes.
  await using dir = await tempDir();
  const fifo = `${dir.path}/profile_log_device.csv`;
  await mkfifo(fifo);
  const r = await openWithin(fifo, 200);
  assert.ok("problem" in r);
  assert.match(r.problem, /did not open within 0\.2 s: it is not a regular file/);
  // A writer lets the abandoned open complete; it is closed, not leaked.
  using _writer = await Deno.open(fifo, { write: true });
  await new Promise((resolve) => setTimeout(resolve, 50));
});

Deno.test("the device log's probe reads no further than the size its descriptor had when opened", async () => {
  // Prevents a log that keeps growing (or is appended to mid-probe) being read without end.
  await using dir = await tempDir();
  const path = `${dir.path}/profile_log_device.csv`;
  const head = "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000\nPCIe slot, core_x\n";
  await Deno.writeTextFile(path, head + "0, 1\n");
  using file = await Deno.open(path, { read: true });
  const identity = { ...fromInfo(path, await file.stat()), size: head.length };
  const probe = await probeOpenedDeviceLog({ file, identity });
  assert.equal(probe.hasDataRow, false, "the data row past the size was not read");
  assert.deepEqual(probe.columns, ["PCIe slot", "core_x"]);
});

Deno.test("a later read is refused when the path now holds another file, even of the same size and times", async () => {
  // Prevents a follow-up read (the device log's full read, a counter scan, a database
  // reopened by the pool) reading a file swapped in under the path load_report checked.
  await using dir = await tempDir();
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, "abc\n");
  const was = fromInfo(path, await Deno.stat(path));
  const again = await reopen(was);
  assert.ok("file" in again);
  again.file.close();
  await Deno.writeTextFile(`${dir.path}/other`, "xyz\n");
  await Deno.utime(`${dir.path}/other`, new Date(was.mtimeMs!), new Date(was.mtimeMs!));
  await Deno.rename(`${dir.path}/other`, path);
  const swapped = await reopen(was);
  assert.deepEqual(swapped, {
    changed: `${path} was replaced by another file after the report was loaded`,
  });
  await Deno.remove(path);
  await mkfifo(path);
  assert.deepEqual(await reopen(was), {
    changed: `${path} is no longer a regular file (it is a FIFO (named pipe))`,
  });
});

Deno.test("a directory named with a backslash is one directory, not two", async () => {
  // Prevents `back\slash` being read as `back/slash` on POSIX, so the report is not found.
  await using dir = await tempDir();
  const odd = `${dir.path}/back\\slash`;
  await Deno.mkdir(odd);
  await Deno.copyFile(
    `${DEMO}performance/ops_perf_results_demo.csv`,
    `${odd}/ops_perf_results_demo.csv`,
  );
  const a = await session().call("load_report", { performance_path: odd });
  assert.equal(a.performance_path, odd);
  assert.equal(a.performance_csv, "ops_perf_results_demo.csv");
});

Deno.test("under --root, a cluster descriptor symlinked outside is refused before it is opened", async () => {
  // Prevents an out-of-root file being opened and read before the refusal: here it is a FIFO
  // outside the root, which an open would wait on for ever.
  await using dir = await tempDir();
  const { profiler } = await copyDemo(`${dir.path}/root`);
  await Deno.mkdir(`${dir.path}/outside`);
  await mkfifo(`${dir.path}/outside/pipe`);
  await Deno.remove(`${profiler}/cluster_descriptor.yaml`);
  await Deno.symlink(`${dir.path}/outside/pipe`, `${profiler}/cluster_descriptor.yaml`);
  const { client, close } = await connect(["--root", `${dir.path}/root`]);
  try {
    const r = await notHung(
      client.callTool({ name: "load_report", arguments: { profiler_path: profiler } }),
      60_000,
      "load_report",
    );
    assert.equal(r.isError, true);
    assert.match(
      (r.content as { text: string }[])[0].text,
      /cluster descriptor is outside the directories this server may read/,
    );
    // The rest of the session is unaffected.
    await callOk(client, "load_report", { performance_path: `${dir.path}/root/performance` });
  } finally {
    await close();
  }
});

Deno.test("under --root, a WAL database whose -wal is a symlink outside says nothing of that file", async () => {
  // Prevents the -wal's size being stated through the link: the refusal told the size of a
  // file outside the root (here 123457 bytes).
  await using dir = await tempDir();
  const profiler = `${dir.path}/root/profiler`;
  await copyDemoProfiler(profiler);
  const w = new DatabaseSync(`${profiler}/db.sqlite`);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  await Deno.mkdir(`${dir.path}/outside`);
  await Deno.writeFile(`${dir.path}/outside/secret`, new Uint8Array(123457));
  await Deno.symlink(`${dir.path}/outside/secret`, `${profiler}/db.sqlite-wal`);
  const { client, close } = await connect(["--root", `${dir.path}/root`]);
  try {
    const r = await client.callTool({
      name: "load_report",
      arguments: { profiler_path: profiler },
    });
    const text = (r.content as { text: string }[])[0].text + JSON.stringify(r.structuredContent);
    assert.match(text, /db\.sqlite-wal is a symbolic link \(not followed\)/);
    assert.doesNotMatch(text, /123457|120\.6 KiB|0\.1 MiB/);
  } finally {
    await close();
  }
});

Deno.test("under --root, a report reached through a directory or file other users can write or own is refused by name", async () => {
  // Prevents a race the component walk cannot close: whoever can rename inside a directory
  // (or owns it) can exchange it with a symlink outside and back between the walks.
  await using dir = await tempDir();
  const root = `${dir.path}/root`;
  const { performance } = await copyDemo(root);
  const { client, close } = await connect(["--root", root]);
  const refusal = async () => {
    const r = await client.callTool({
      name: "load_report",
      arguments: { performance_path: performance },
    });
    return r.isError ? (r.content as { text: string }[])[0].text : null;
  };
  try {
    assert.equal(await refusal(), null, "a report only its owner can write loads");
    await Deno.chmod(performance, 0o777);
    assert.match(
      String(await refusal()),
      new RegExp(
        `performance_path is reached through the directory ${performance}, which is writable by its group and other users \\(mode 0777\\).*chmod go-w ${performance}`,
      ),
    );
    // A sticky directory lets others rename only their own entries: it is not refused.
    await Deno.chmod(performance, 0o1777);
    assert.equal(await refusal(), null, "a sticky directory (as /tmp) is no way in");
    await Deno.chmod(performance, 0o755);
    await Deno.chmod(`${performance}/profile_log_device.csv`, 0o646);
    assert.match(
      String(await refusal()),
      /profile_log_device\.csv is reached through the file .*profile_log_device\.csv, which is writable by other users \(mode 0646\)/,
    );
    await Deno.chmod(`${performance}/profile_log_device.csv`, 0o644);
    if ((await Deno.stat(root)).uid === 0) {
      // Run as root, the test can give the root away to another user.
      await Deno.chown(root, 4242, null);
      assert.match(
        String(await refusal()),
        new RegExp(
          `through the directory ${root}, which is owned by user 4242, not by this server's user`,
        ),
      );
    }
  } finally {
    await close();
  }
});
