import assert from "node:assert/strict";
import { SharedWork } from "../../src/kit/shared_work.ts";

Deno.test("a call that starts shared work hears what the work reports before its first await", async () => {
  // Prevents the first figures of a link or read being told to nobody, because the work ran
  // up to its first await before the starting call had joined it.
  const work = new SharedWork(async (_signal, progress) => {
    progress.report(1, 3, "steps");
    await Promise.resolve();
    progress.report(3, 3, "steps");
    return "done";
  }, () => {});
  const heard: number[] = [];
  assert.equal(await work.join(undefined, { report: (d) => heard.push(d) }), "done");
  assert.deepEqual(heard, [1, 3]);
});

Deno.test("calls waiting for one piece of shared work resume one per turn", async () => {
  // Prevents every call that waited for a shared work (a link, a read) running on in one
  // stretch once it settles, before any input is read (issue 30: 50 operation_detail calls
  // released by one link held the loop for seconds).
  let release!: () => void;
  const work = new SharedWork(
    () => new Promise<string>((r) => (release = () => r("done"))),
    () => {},
  );
  let resumed = 0;
  const calls = Array.from({ length: 20 }, async () => {
    const v = await work.join(new AbortController().signal);
    const until = performance.now() + 2;
    while (performance.now() < until) { /* the call's own stretch of work */ }
    resumed++;
    return v;
  });
  await Promise.resolve();
  release();
  await Deno.stat(Deno.execPath());
  const whileStatting = resumed;
  assert.deepEqual(await Promise.all(calls), Array(20).fill("done"));
  assert.ok(whileStatting < 10, `${whileStatting} of 20 calls resumed while a stat was under way`);
});
