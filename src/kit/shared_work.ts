/**
 * Long work that several calls may wait for at once — reading a device log, replaying every
 * captured graph — kept on a handle and shared: each call joins it with its own cancellation
 * signal; a call that is cancelled stops waiting at once; when no call waits any more, the work
 * itself is stopped (its signal aborted) and forgotten, so its memory goes and the next call
 * starts afresh. Work that fails is handed to `forget` with its reason, to drop or to keep (a
 * refusal that would only be reached again may be kept).
 *
 * @module
 */

/** One piece of shared work. */
export class SharedWork<T> {
  readonly #controller = new AbortController();
  readonly #forget: (reason: unknown) => void;
  readonly #promise: Promise<T>;
  #waiters = 0;
  #settled = false;

  /**
   * Starts `work` with the signal that stops it; `forget` removes it from wherever it is kept
   * (called with the reason when it fails or is stopped).
   *
   * @example
   * ```ts
   * import { SharedWork } from "./shared_work.ts";
   * const work = new SharedWork(async () => 42, () => {});
   * if ((await work.join()) !== 42) throw new Error();
   * ```
   */
  constructor(work: (signal: AbortSignal) => Promise<T>, forget: (reason: unknown) => void) {
    this.#forget = forget;
    this.#promise = work(this.#controller.signal);
    this.#promise.then(() => (this.#settled = true), (reason) => {
      this.#settled = true;
      forget(reason);
    });
  }

  /** The work's result, or the rejection of `signal` as soon as it aborts. */
  join(signal?: AbortSignal): Promise<T> {
    if (signal === undefined || this.#settled) return this.#promise;
    signal.throwIfAborted();
    this.#waiters++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters--;
        if (this.#waiters === 0 && !this.#settled) {
          this.#forget(signal.reason);
          this.#controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        signal.removeEventListener("abort", onAbort);
        this.#waiters--;
      };
      this.#promise.then((v) => {
        done();
        resolve(v);
      }, (e) => {
        done();
        reject(e);
      });
    });
  }
}
