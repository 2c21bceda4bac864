/**
 * The best `capacity` items of a stream under an ordering, kept sorted — what a ranking capped
 * at 100 needs from hundreds of thousands of candidates without sorting them all.
 *
 * @module
 */

/** A bounded, sorted selection (best first); `better(a, b) < 0` when a ranks before b. */
export class TopK<T> {
  #items: T[] = [];
  constructor(readonly capacity: number, readonly better: (a: T, b: T) => number) {}

  /**
   * Offers a candidate; kept when there is room or it ranks before the last kept.
   *
   * @example
   * ```ts
   * import { TopK } from "./top_k.ts";
   * const t = new TopK<number>(2, (a, b) => b - a);
   * for (const x of [3, 9, 1, 7]) t.offer(x);
   * if (t.items().join() !== "9,7") throw new Error();
   * ```
   */
  offer(item: T): void {
    const items = this.#items;
    if (items.length === this.capacity && this.better(item, items[items.length - 1]) >= 0) {
      return;
    }
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.better(item, items[mid]) < 0) hi = mid;
      else lo = mid + 1;
    }
    items.splice(lo, 0, item);
    if (items.length > this.capacity) items.pop();
  }

  /** Whether `item` would be kept if offered now (so a caller can skip building it). */
  wouldKeep(item: T): boolean {
    const items = this.#items;
    return items.length < this.capacity || this.better(item, items[items.length - 1]) < 0;
  }

  /** The kept items, best first. */
  items(): T[] {
    return [...this.#items];
  }
}
