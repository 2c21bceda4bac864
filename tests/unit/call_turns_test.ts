/**
 * Tool calls sent at once each start their work in a turn of their own: the event loop reads
 * input between two calls' first stretches, rather than after all of them. Turns are counted,
 * never timed.
 */
import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { tempDir } from "../_support/dirs.ts";
import { copyDemoProfiler } from "../../scripts/make_adversarial_inputs.ts";

Deno.test("twenty calls sent at once let an input in before they have all answered", async () => {
  // Prevents calls that resume together (one lease, one open awaited) running their first
  // stretches back to back before any input is read (issue 30: during 50 operation_detail
  // calls at once no ping was read for seconds).
  await using dir = await tempDir();
  await copyDemoProfiler(dir.path);
  const s = session();
  const { handle } = await s.call("load_report", { profiler_path: dir.path });
  // The database is not open yet: every call waits for the one open, and resumes with it.
  let answered = 0;
  const calls = Array.from(
    { length: 20 },
    () => s.call("find_operations", { handle }).then((a) => (answered++, a)),
  );
  // Stats one after another until every call has answered: how many answered during one.
  const all = Promise.all(calls);
  let done = false;
  all.then(() => (done = true));
  let most = 0;
  while (!done) {
    const before = answered;
    await Deno.stat(Deno.execPath());
    most = Math.max(most, answered - before);
  }
  const answers = await all;
  for (const a of answers) assert.deepEqual(a, answers[0]);
  assert.ok(most < 10, `${most} of 20 calls answered while one stat was under way`);
});
