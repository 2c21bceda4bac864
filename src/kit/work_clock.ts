/**
 * Letting the event loop in during long synchronous work, so that a ping or a
 * cancellation that arrives meanwhile is handled within a few tens of milliseconds — however
 * many calls work at once.
 *
 * Works that pause take turns: one resumes per timer turn of the event loop, first paused
 * first, and the loop reads its input between two turns. With a timer each, every paused
 * work would be due at once and all would run their next stretch in the same turn, one after
 * another, before any input was read (issue 30: during 50 operation_detail calls at once a
 * ping waited more than 10 s).
 *
 * @module
 */

/** The longest stretch of work between two yields, in ms. */
export const SLICE_MS = 25;

/** Works waiting for their turn, first paused first. */
const waiting: (() => void)[] = [];

/** Whether a turn is due (a timer is set for the next waiting work). */
let turnDue = false;

/** Resumes the first waiting work; the next one waits for a turn of its own. */
function turn(): void {
  const resume = waiting.shift();
  if (waiting.length > 0) setTimeout(turn, 0);
  else turnDue = false;
  resume?.();
}

/** Yields to the event loop (timers and I/O run) once, resuming in its turn. */
export function pause(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (turnDue) return;
    turnDue = true;
    setTimeout(turn, 0);
  });
}

/** A clock that says when SLICE_MS has passed since it last yielded. */
export class WorkClock {
  #since = performance.now();

  /** Yields when the current stretch of work has run SLICE_MS or more. */
  async tick(): Promise<void> {
    if (performance.now() - this.#since < SLICE_MS) return;
    await pause();
    this.#since = performance.now();
  }
}
