/**
 * A profiler report whose database is large enough to be opened on a thread of its own
 * (`THREAD_FROM_BYTES`; issue 30: SQLite's copy of a large database held the event loop at
 * load_report), through the real server: answered over stdio, and a one-shot call that ends by
 * itself once it has answered.
 */
import assert from "node:assert/strict";
import { callOk, connect, REPO } from "../_support/server.ts";
import { tempDir } from "../_support/dirs.ts";
import { writeDetailDb } from "../../scripts/make_large_profiler_db.ts";
import { THREAD_FROM_BYTES } from "../../src/profiler_db/open.ts";
import { PERMISSION_FLAGS } from "../../src/kit/permissions.ts";

/** A generated 20,000-operation report, past the size a thread is started for. */
async function largeReport() {
  const dir = await tempDir();
  const size = writeDetailDb(`${dir.path}/db.sqlite`, 20_000, true);
  assert.ok(size >= THREAD_FROM_BYTES, `${size} bytes`);
  return dir;
}

Deno.test("over stdio, a database on a thread of its own answers load_report and the tools", async () => {
  // Prevents the thread's answers failing to reach the client through the production server
  // (its flags, its worker module, the probe's copy handed to the tools).
  await using dir = await largeReport();
  const { client, close } = await connect();
  try {
    const report = await callOk(client, "load_report", { profiler_path: dir.path });
    const handle = report.handle as string;
    const detail = await callOk(client, "operation_detail", { handle, operation_id: 12_345 });
    assert.equal(detail.operation_id, 12_345);
    assert.equal(detail.name, "ttnn.matmul");
    const found = await callOk(client, "find_operations", { handle, limit: 2 });
    assert.equal((found.operations as unknown[]).length, 2);
    await callOk(client, "dram_fallbacks", { handle, limit: 3 });
  } finally {
    await close();
  }
});

Deno.test("a one-shot call on a report whose database is on a thread ends once answered", async () => {
  // Prevents the database's thread keeping the process alive after its answer (a `call` that
  // never returns to the shell, a server that outlives its client).
  await using dir = await largeReport();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMISSION_FLAGS,
      `${REPO}mod.ts`,
      "call",
      "operation_detail",
      "--profiler",
      dir.path,
      "--operation-id",
      "7",
      "--json",
    ],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
    // A bound, not a timing: without the fix the process never ends and is killed here.
    signal: AbortSignal.timeout(120_000),
  }).output();
  assert.equal(out.signal, null, "ended by itself");
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(JSON.parse(new TextDecoder().decode(out.stdout)).operation_id, 7);
});
