/**
 * Letting the event loop in during long synchronous work, so that a ping or a
 * cancellation that arrives meanwhile is handled within a few tens of milliseconds.
 *
 * @module
 */

/** The longest stretch of work between two yields, in ms. */
export const SLICE_MS = 25;

/** Yields to the event loop (timers and I/O run) once. */
export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
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
