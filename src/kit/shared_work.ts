/**
 * Long work that several calls may wait for at once — reading a device log, replaying every
 * captured graph — kept on a handle and shared: each call joins it with its own cancellation
 * signal; a call that is cancelled stops waiting at once; when no call waits any more, the work
 * itself is stopped (its signal aborted) and forgotten, so its memory goes and the next call
 * starts afresh. Work that fails is handed to `forget` with its reason, to drop or to keep (a
 * refusal that would only be reached again may be kept). The work says how far it is to a
 * progress reporter that passes each update on to every call waiting at that moment.
 *
 * @module
 */
import type { Progress } from "./progress.ts";
import { pause } from "./work_clock.ts";

/** One piece of shared work. */
export class SharedWork<T> {
  readonly #controller = new AbortController();
  readonly #forget: (reason: unknown) => void;
  readonly #promise: Promise<T>;
  readonly #listeners = new Set<Progress>();
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
  constructor(
    work: (signal: AbortSignal, progress: Progress) => Promise<T>,
    forget: (reason: unknown) => void,
  ) {
    this.#forget = forget;
    const fanOut: Progress = {
      report: (done, total, message) => {
        for (const l of this.#listeners) l.report(done, total, message);
      },
    };
    // Started a microtask later, so the call that starts it has joined, and hears its progress,
    // before the work's first report (work that reports before its first await would else tell
    // nobody).
    this.#promise = Promise.resolve().then(() => work(this.#controller.signal, fanOut));
    this.#promise.then(() => (this.#settled = true), (reason) => {
      this.#settled = true;
      forget(reason);
    });
  }

  /**
   * The work's result, or the rejection of `signal` as soon as it aborts; `progress` hears
   * how far the work is while this call waits.
   */
  join(signal?: AbortSignal, progress?: Progress): Promise<T> {
    if (this.#settled) return this.#promise;
    if (progress !== undefined) {
      this.#listeners.add(progress);
      const off = () => this.#listeners.delete(progress);
      this.#promise.then(off, off);
      signal?.addEventListener("abort", off, { once: true });
    }
    if (signal === undefined) return inTurn(this.#promise);
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
        pause().then(() => resolve(v));
      }, (e) => {
        done();
        pause().then(() => reject(e));
      });
    });
  }
}

/**
 * `work`'s outcome, handed on in a turn of its own (`work_clock.ts`): the calls that waited
 * for one piece of work resume one per turn, with input read between two, rather than all
 * in one stretch (issue 30: 50 operation_detail calls released by one link ran 12 s on end).
 */
function inTurn<T>(work: Promise<T>): Promise<T> {
  return work.then(
    (v) => pause().then(() => v),
    (e) => pause().then(() => Promise.reject(e)),
  );
}
