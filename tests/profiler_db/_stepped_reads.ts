/**
 * The check both stepped-read tests make of each read: it pauses more than twice, and a pause
 * that throws (the second) stops it there with that error.
 */
import assert from "node:assert/strict";

/** A stepped read, given the pause it awaits between two steps. */
export type SteppedRead = (pause: () => Promise<void>) => Promise<unknown>;

/** Runs `of` counting its pauses, then again throwing at the second; returns the first answer. */
export async function assertPausesAndStops(read: string, of: SteppedRead): Promise<unknown> {
  let pauses = 0;
  const answer = await of(() => (pauses++, Promise.resolve()));
  assert.ok(pauses > 2, `${read}: ${pauses} pauses`);
  const whole = pauses;
  pauses = 0;
  const stop = new Error("stopped");
  await assert.rejects(
    of(() => {
      if (++pauses === 2) throw stop;
      return Promise.resolve();
    }),
    stop,
    read,
  );
  assert.ok(pauses === 2 && whole > 2, `${read}: stopped at pause ${pauses} of ${whole}`);
  return answer;
}
