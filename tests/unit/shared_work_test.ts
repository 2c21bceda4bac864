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
