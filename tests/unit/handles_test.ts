import assert from "node:assert/strict";
import { estimatedBytes, HandleRegistry } from "../../src/session/handles.ts";
import { loadAndRegister } from "../../src/session/load.ts";
import { Roots } from "../../src/kit/roots.ts";
import { Refusal } from "../../src/kit/refusal.ts";
import { chooseOpsCsv, readOpsCsv } from "../../src/perf_report/probe.ts";
import { probeDeviceLog } from "../../src/device_log/probe.ts";
import type { Inventory } from "../../src/session/inventory.ts";
import { copyDemo, pastChangeSecond, tempDir } from "../_support/dirs.ts";

async function load(dir: string): Promise<Inventory> {
  const csv = await chooseOpsCsv(dir);
  const csvRead = csv ? await readOpsCsv(csv) : null;
  return {
    performance: {
      dir,
      csv,
      csvIdentity: csvRead?.identity ?? null,
      csvBytesHeld: csvRead?.ok ? csvRead.identity.size : 0,
      csvRead,
      whole: null,
      wholeProblem: null,
      deviceLog: await probeDeviceLog(`${dir}/profile_log_device.csv`),
    },
    profiler: null,
  };
}

Deno.test("an unknown handle is refused with the handles that exist", async () => {
  // Prevents an agent guessing handles after a typo.
  const registry = new HandleRegistry();
  await assert.rejects(
    registry.get("report-1"),
    (e: Error) => e instanceof Refusal && /loaded handles: none/.test(e.message),
  );
  registry.add({ performance: null, profiler: null });
  registry.add({ performance: null, profiler: null });
  await assert.rejects(
    registry.get("report-9"),
    /unknown handle 'report-9'; loaded handles: report-1, report-2/,
  );
});

Deno.test("a rewritten CSV is refused, not mixed", async () => {
  // Prevents answering from a handle whose CSV changed after it was loaded.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const registry = new HandleRegistry();
  const { handle } = registry.add(await load(performance));
  assert.equal((await registry.get(handle)).handle, handle);
  const csv = `${performance}/ops_perf_results_demo.csv`;
  await Deno.writeTextFile(csv, (await Deno.readTextFile(csv)) + "\n");
  await assert.rejects(
    registry.get(handle),
    /report-1 is stale: .*ops_perf_results_demo\.csv was rewritten.*load_report again/,
  );
});

Deno.test("a newer ops_perf_results CSV beside the loaded one makes the handle stale", async () => {
  // Prevents answering from an older capture once a newer one has been written beside it.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  await Deno.utime(
    `${performance}/ops_perf_results_demo.csv`,
    new Date(2020, 0, 1),
    new Date(2020, 0, 1),
  );
  const registry = new HandleRegistry();
  const { handle } = registry.add(await load(performance));
  await Deno.copyFile(
    `${performance}/ops_perf_results_demo.csv`,
    `${performance}/ops_perf_results_later.csv`,
  );
  await assert.rejects(
    registry.get(handle),
    /a newer ops_perf_results_later\.csv appeared beside ops_perf_results_demo\.csv/,
  );
});

Deno.test("a removed device log makes the handle stale", async () => {
  // Prevents a handle from answering with a file that is gone.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const registry = new HandleRegistry();
  const { handle } = registry.add(await load(performance));
  await Deno.remove(`${performance}/profile_log_device.csv`);
  await assert.rejects(registry.get(handle), /profile_log_device\.csv no longer exists/);
});

Deno.test("an in-place rewrite of the same size with its modification time put back is stale", async () => {
  // Prevents serving a rewritten file because size, modification time and inode all match:
  // the change time moves with any write, and no call can put it back.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const csv = `${performance}/ops_perf_results_demo.csv`;
  const registry = new HandleRegistry();
  const { handle } = registry.add(await load(performance));
  await pastChangeSecond(csv);
  const { mtime, atime, ino, size } = await Deno.stat(csv);
  const text = await Deno.readTextFile(csv);
  await Deno.writeTextFile(csv, text.replace("Embeddings", "Embeddingz"));
  await Deno.utime(csv, atime!, mtime!);
  const now = await Deno.stat(csv);
  assert.deepEqual(
    [now.size, now.mtime, now.ino],
    [size, mtime, ino],
    "only the change time moved",
  );
  await assert.rejects(registry.get(handle), /report-1 is stale: .*was rewritten/);
});

Deno.test("past the handle limit the least recently used handle is released, and says so", async () => {
  // Prevents handles accumulating without bound, and a released handle being refused as if it
  // had never existed (the agent must know to load again, not that it mistyped).
  const registry = new HandleRegistry({ maxHandles: 2, maxReports: 10, budgetBytes: 1 << 30 });
  const empty = (): Inventory => ({ performance: null, profiler: null });
  registry.add(empty());
  registry.add(empty());
  await registry.get("report-1"); // report-2 is now the least recently used
  registry.add(empty());
  assert.deepEqual(registry.handles().sort(), ["report-1", "report-3"]);
  await assert.rejects(
    registry.get("report-2"),
    (e: Error) =>
      e instanceof Refusal &&
      /^report-2 was released: this server keeps at most 2 handles .* Call load_report again/.test(
        e.message,
      ),
  );
  await assert.rejects(registry.get("report-9"), /unknown handle 'report-9'/);
});

Deno.test("past the memory budget the least recently used report goes, unless a call holds it", async () => {
  // Prevents distinct reports accumulating past the memory they may hold (a 2.7 MB CSV died
  // of out-of-memory at load 947), and a report being released under a running call.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const inv = await load(performance);
  const per = estimatedBytes(inv);
  const registry = new HandleRegistry({ maxHandles: 10, maxReports: 10, budgetBytes: 2 * per });
  const a = registry.add(inv, "a");
  const lease = await registry.lease(a.handle);
  registry.add(inv, "b");
  registry.add(inv, "c"); // three reports past a budget of two: the oldest not held goes
  assert.deepEqual(registry.handles(), ["report-1", "report-3"]);
  lease.release();
  assert.equal(a.activity.calls, 0);
  registry.add(inv, "d");
  assert.deepEqual(registry.handles(), ["report-3", "report-4"]);
  assert.equal(a.activity.released, true);
});

Deno.test("a refused CSV is charged nothing: the other handles and the new one stay", async () => {
  // Prevents a refused 400 MiB sparse CSV being charged three times its size, releasing every
  // other handle and then its own after its first call.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const registry = new HandleRegistry();
  const kept = await loadAndRegister(registry, { performance_path: performance }, Roots.any());
  await using big = await tempDir();
  const csv = `${big.path}/ops_perf_results_big.csv`;
  await Deno.copyFile(`${performance}/ops_perf_results_demo.csv`, csv);
  await Deno.truncate(csv, 400 << 20); // sparse: no disk, no time
  const refused = await loadAndRegister(registry, { performance_path: big.path }, Roots.any());
  assert.equal(refused.inventory.performance?.csvRead?.ok, false);
  assert.equal(estimatedBytes(refused.inventory), 64 << 10);
  (await registry.lease(refused.handle)).release();
  assert.deepEqual(registry.handles(), [kept.handle, refused.handle]);
});

Deno.test("loads of the same unchanged files share one report; a changed file makes a new one", async () => {
  // Prevents each identical load keeping its own copy of the parsed report, and a load after
  // a change sharing the old one.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const registry = new HandleRegistry();
  const one = await loadAndRegister(registry, { performance_path: performance }, Roots.any());
  const two = await loadAndRegister(registry, { performance_path: performance }, Roots.any());
  assert.notEqual(one.handle, two.handle);
  assert.equal(two.inventory, one.inventory);
  assert.equal(two.cache, one.cache);
  const csv = `${performance}/ops_perf_results_demo.csv`;
  await Deno.writeTextFile(csv, (await Deno.readTextFile(csv)) + "\n");
  const three = await loadAndRegister(registry, { performance_path: performance }, Roots.any());
  assert.notEqual(three.inventory, one.inventory);
  await assert.rejects(registry.get(one.handle), /stale/);
  assert.equal((await registry.get(three.handle)).handle, three.handle);
});
