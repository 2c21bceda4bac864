/**
 * Handles side by side: two on one directory share one read and agree; a rewrite makes
 * exactly the handles loaded before it stale; diff_reports across a stale and a fresh handle
 * is refused naming the stale one, never computed from a mix of captures.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { copyDemo, tempDir } from "../_support/dirs.ts";

type Row = Record<string, unknown>;

Deno.test("two handles on one unchanged directory answer alike from one shared read", async () => {
  // Prevents two loads of the same files disagreeing, or one handle's refusal reaching the
  // other (they share one read of the files, and each is still its own handle).
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: performance });
    const b = await callOk(client, "load_report", { performance_path: performance });
    assert.notEqual(a.handle, b.handle);
    const [topA, topB] = await Promise.all([
      callOk(client, "top_ops", { handle: a.handle }),
      callOk(client, "top_ops", { handle: b.handle }),
    ]);
    // Each answer's own handle (in it and in its next steps' arguments) is all that differs.
    const unhandled = (x: Record<string, unknown>, handle: unknown) =>
      JSON.parse(JSON.stringify(x).replaceAll(JSON.stringify(handle), '"H"'));
    assert.deepEqual(unhandled(topA, a.handle), unhandled(topB, b.handle));
    const [zonesA, zonesB] = await Promise.all([
      callOk(client, "zone_timings", { handle: a.handle }),
      callOk(client, "zone_timings", { handle: b.handle }),
    ]);
    assert.deepEqual(zonesA.zones, zonesB.zones);
  } finally {
    await close();
  }
});

Deno.test("a device log rewritten after loading makes every earlier handle stale, and only those", async () => {
  // Prevents a handle answering from a log it never read, or a fresh handle being refused.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const { client, close } = await connect();
  try {
    const early = await callOk(client, "load_report", { performance_path: performance });
    const read = await callOk(client, "load_report", { performance_path: performance });
    await callOk(client, "zone_timings", { handle: read.handle });
    const log = `${performance}/profile_log_device.csv`;
    const text = await Deno.readTextFile(log);
    await Deno.writeTextFile(log, text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1));
    for (const handle of [early.handle, read.handle]) {
      assert.match(
        await callRefused(client, "device_timeline", { handle }),
        new RegExp(`${handle} is stale: .*load_report again`),
      );
    }
    const fresh = await callOk(client, "load_report", { performance_path: performance });
    const timeline = await callOk(client, "device_timeline", { handle: fresh.handle });
    assert.ok((timeline.busy_cycles as number) > 0);
  } finally {
    await close();
  }
});

Deno.test("diff_reports across a stale and a fresh handle is refused, naming the stale one", async () => {
  // Prevents a before/after comparison drawn half from a capture that no longer exists.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const { client, close } = await connect();
  try {
    const old = await callOk(client, "load_report", { performance_path: performance });
    const csv = `${performance}/ops_perf_results_demo.csv`;
    await Deno.writeTextFile(csv, await Deno.readTextFile(csv) + "\n");
    const fresh = await callOk(client, "load_report", { performance_path: performance });
    for (
      const args of [
        { handle_a: old.handle, handle_b: fresh.handle },
        { handle_a: fresh.handle, handle_b: old.handle },
      ]
    ) {
      const why = await callRefused(client, "diff_reports", args);
      assert.match(why, new RegExp(`${old.handle} is stale`));
      assert.doesNotMatch(why, new RegExp(`${fresh.handle} is stale`));
    }
    const same = await callOk(client, "diff_reports", {
      handle_a: fresh.handle,
      handle_b: fresh.handle,
    });
    assert.equal(same.delta_total, 0, "a capture compared with itself moves nothing");
  } finally {
    await close();
  }
});
