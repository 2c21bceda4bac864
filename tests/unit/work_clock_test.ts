/**
 * Works that pause take turns with the event loop's input: however many run at once, an
 * input that arrives is read after a stretch or two of work, never after one of each. Turns
 * are counted, never timed.
 */
import assert from "node:assert/strict";
import { pause } from "../../src/kit/work_clock.ts";

/** A stretch of synchronous work, a couple of milliseconds long. */
function stretch(): void {
  const until = performance.now() + 2;
  while (performance.now() < until) { /* work */ }
}

/** How many stretches ran while one asynchronous file operation was under way. */
async function stretchesDuringIo(count: () => number): Promise<number> {
  const before = count();
  await Deno.stat(Deno.execPath());
  return count() - before;
}

Deno.test("twenty works that pause let an input in after a few stretches, not twenty", async () => {
  // Prevents each paused work waiting on a timer of its own: all are due at once and run
  // their stretches in one turn before any input is read (issue 30: a ping waited over 10 s
  // during 50 operation_detail calls at once).
  let stretches = 0;
  let stop = false;
  const work = async () => {
    while (!stop) {
      stretch();
      stretches++;
      await pause();
    }
  };
  const works = Array.from({ length: 20 }, work);
  await pause();
  const seen: number[] = [];
  for (let i = 0; i < 5; i++) seen.push(await stretchesDuringIo(() => stretches));
  stop = true;
  await Promise.all(works);
  assert.ok(Math.max(...seen) < 10, `stretches while a stat was under way: ${seen.join(", ")}`);
});
