/**
 * A call the server declines: a well-formed request it will not answer (unknown handle, bad
 * argument value, path outside the roots, stale report). Answered as a result with
 * `isError: true` and recorded as outcome `refused`; the message says what to do next.
 *
 * @module
 */

/**
 * A refusal with the message the client reads.
 *
 * @example
 * ```ts
 * import { Refusal } from "./refusal.ts";
 * const r = new Refusal("unknown handle 'report-9'; loaded handles: none");
 * if (!(r instanceof Error) || r.name !== "Refusal") throw new Error();
 * ```
 */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Refusal";
  }
}
