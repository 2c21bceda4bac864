/**
 * Progress of long work — a device log read, an L1 replay, a buffers scan — told to whoever
 * asked for it: an MCP client that sent a `progressToken`, or a person at a terminal. The work
 * says how far it is as often as it likes; a `ThrottledProgress` passes on at most one update
 * every quarter second (the first at once, and the one that reaches the total: the work's end),
 * only when the figure has moved forward, and nothing once it is closed, so a client is neither
 * flooded nor told anything after the answer.
 *
 * @module
 */

/** Where long work says how far it is. */
export interface Progress {
  /**
   * `done` of `total` (null when the total is unknown), in the unit `message` names; a
   * later call's `done` is never smaller for the same work.
   */
  report(done: number, total: number | null, message: string): void;
}

/** Progress nobody asked for. */
export const NO_PROGRESS: Progress = { report() {} };

/** One update as passed on. */
export interface ProgressUpdate {
  progress: number;
  total: number | null;
  message: string;
}

/** The shortest time between two updates passed on, in ms. */
export const PROGRESS_INTERVAL_MS = 250;

/**
 * Passes updates on to `send`, throttled; `now` is the clock (injectable for tests).
 *
 * @example
 * ```ts
 * import { ThrottledProgress } from "./progress.ts";
 * let t = 0;
 * const sent: number[] = [];
 * const p = new ThrottledProgress((u) => sent.push(u.progress), () => t);
 * p.report(1, 10, "rows"); // passed on at once
 * p.report(2, 10, "rows"); // too soon
 * t = 300;
 * p.report(3, 10, "rows"); // passed on
 * p.report(10, 10, "rows"); // too soon, but the end: passed on
 * p.close();
 * t = 900;
 * p.report(11, 12, "rows"); // closed: nothing after the answer
 * if (sent.join() !== "1,3,10") throw new Error(sent.join());
 * ```
 */
export class ThrottledProgress implements Progress {
  #last = -Infinity;
  #sentAt = -Infinity;
  #closed = false;

  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  report(done: number, total: number | null, message: string): void {
    if (this.#closed || !(done > this.#last)) return;
    const t = this.now();
    const end = total !== null && done >= total;
    if (!end && t - this.#sentAt < PROGRESS_INTERVAL_MS) return;
    this.#last = done;
    this.#sentAt = t;
    this.send({ progress: done, total, message });
  }

  /** No update is passed on after this. */
  close(): void {
    this.#closed = true;
  }
}

/**
 * A later stage of work reported on the same scale as the stages before it: `before` units
 * are already done, so its figures rise from there and never fall back.
 *
 * @example
 * ```ts
 * import { after } from "./progress.ts";
 * const seen: [number, number | null][] = [];
 * const stage2 = after({ report: (d, t) => seen.push([d, t]) }, 1000);
 * stage2.report(5, 50, "operations replayed");
 * if (seen[0][0] !== 1005 || seen[0][1] !== 1050) throw new Error();
 * ```
 */
export function after(progress: Progress, before: number): Progress {
  return {
    report: (done, total, message) =>
      progress.report(before + done, total === null ? null : before + total, message),
  };
}
