/**
 * Internal: the buffers table's columns, a range of rowids at a time, as the buffers scan
 * (`buffer_scan.ts`) reads them. `node:sqlite` hands rows to JavaScript at about a microsecond
 * each, so SQLite builds each column of a range as one JSON array (parsed natively). On a
 * table large enough to be worth it, a worker with its own read-only connection builds the
 * later ranges while this thread visits the earlier ones: SQLite's share of the scan is about
 * half of it, and the two cores then do it side by side. A worker that cannot start or fails
 * leaves its ranges to this thread; a worker that finds the file changed is a refusal.
 *
 * @module
 */
import { changeSince, type FileIdentity } from "../kit/file_identity.ts";
import { Refusal } from "../kit/refusal.ts";
import type { ColumnsRequest, ColumnsResponse } from "./_buffer_messages.ts";

export type { ColumnsRequest, ColumnsResponse } from "./_buffer_messages.ts";

/** Rowids `[from, to)`. */
export interface RowidRange {
  from: number;
  to: number;
}

/** One range's columns, parsed: element `i` of each is the range's `i`-th row. */
export interface BufferColumns {
  op: unknown[];
  type: unknown[];
  device: unknown[];
  address: unknown[];
  size: unknown[];
}

/** How a scan splits the table (tests make the ranges small to exercise the worker). */
export interface ScanPlan {
  /** Rowids per range: bounds the JSON text held at once (about 35 bytes a row). */
  rangeRows: number;
  /** Below this many rowids, no worker: starting one costs more than it saves. */
  workerFrom: number;
}

/** The default plan. */
export const SCAN_PLAN: ScanPlan = { rangeRows: 1 << 18, workerFrom: 1 << 16 };

/**
 * Rowids per range at most when this thread reads every range itself (a few milliseconds
 * each, with the event loop let in between two): a range of `SCAN_PLAN.rangeRows` held it for
 * about 250 ms.
 */
export const ALONE_RANGE_ROWS = 1 << 14;

/** The query building one range's columns (`?` and `?`: the range; `order` for a sort). */
export function columnsSql(rankClause: string, order = ""): string {
  const column = (name: string, as: string) => `json_group_array(${name}${order}) AS ${as}`;
  return `SELECT ${column("operation_id", "op")}, ${column("buffer_type", "type")}, ` +
    `${column("device_id", "device")}, ${column("address", "address")}, ` +
    `${column("max_size_per_bank", "size")} FROM buffers ` +
    `WHERE rowid >= ? AND rowid < ? AND operation_id IS NOT NULL${rankClause}`;
}

/** Parses a columns row as SQLite built it. */
export function parseColumns(row: Record<string, string | null> | undefined): BufferColumns {
  const parse = (text: string | null | undefined) => JSON.parse(text ?? "[]") as unknown[];
  return {
    op: parse(row?.op),
    type: parse(row?.type),
    device: parse(row?.device),
    address: parse(row?.address),
    size: parse(row?.size),
  };
}

/**
 * Rowids `lo..hi` (inclusive) in ranges of at most `plan.rangeRows`, and in at least four once
 * a worker is worth starting: this thread builds the first and visits them all while the
 * worker builds the other three, shares that come out about even (SQLite takes about twice as
 * long to build a range as this thread to visit it).
 *
 * @example
 * ```ts
 * import { rowidRanges } from "./_buffer_columns.ts";
 * const big = rowidRanges(1, 10, { rangeRows: 4, workerFrom: 100 });
 * if (big.map((r) => `${r.from}-${r.to}`).join(" ") !== "1-5 5-9 9-11") throw new Error();
 * const split = rowidRanges(1, 10, { rangeRows: 4, workerFrom: 0 });
 * if (split.map((r) => `${r.from}-${r.to}`).join(" ") !== "1-4 4-7 7-10 10-11") throw new Error();
 * ```
 */
export function rowidRanges(lo: number, hi: number, plan: ScanPlan): RowidRange[] {
  const rows = hi - lo + 1;
  const size = rows >= plan.workerFrom
    ? Math.max(1, Math.min(plan.rangeRows, Math.ceil(rows / 4)))
    : plan.rangeRows;
  const ranges: RowidRange[] = [];
  for (let from = lo; from <= hi; from += size) {
    ranges.push({ from, to: Math.min(from + size, hi + 1) });
  }
  return ranges;
}

/** How many ranges a worker builds ahead of the reader at most (bounds the text held). */
const AHEAD = 2;

/**
 * A worker building ranges in order, ahead of the reader. `take` hands back each range's
 * columns in the order asked, or `null` when the worker could not build it (the caller then
 * does, and the worker is no longer used).
 */
export class ColumnsWorker {
  readonly #worker: Worker;
  readonly #path: string;
  readonly #identity: FileIdentity;
  readonly #sql: string;
  readonly #waiting: ((answer: ColumnsResponse) => void)[] = [];
  readonly #answers: Promise<ColumnsResponse>[] = [];
  readonly #queue: RowidRange[];
  #failed = false;

  private constructor(
    worker: Worker,
    file: { path: string; identity: FileIdentity },
    sql: string,
    ranges: RowidRange[],
  ) {
    this.#worker = worker;
    this.#path = file.path;
    this.#identity = file.identity;
    this.#sql = sql;
    this.#queue = [...ranges];
    worker.onmessage = (event: MessageEvent<ColumnsResponse>) =>
      this.#waiting.shift()?.(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      const message = event.message ?? "the worker stopped";
      for (const resolve of this.#waiting.splice(0)) resolve({ ok: false, message });
    };
    for (let i = 0; i < AHEAD; i++) this.#ask();
  }

  /** A worker for `ranges` of the file, or null when one cannot be started. */
  static start(
    file: { path: string; identity: FileIdentity },
    sql: string,
    ranges: RowidRange[],
  ): ColumnsWorker | null {
    try {
      const worker = new Worker(new URL("./_db_worker.ts", import.meta.url).href, {
        type: "module",
      });
      return new ColumnsWorker(worker, file, sql, ranges);
    } catch {
      return null;
    }
  }

  #ask(): void {
    const range = this.#queue.shift();
    if (range === undefined) return;
    this.#answers.push(new Promise((resolve) => this.#waiting.push(resolve)));
    const request: ColumnsRequest = { path: this.#path, sql: this.#sql, ...range };
    this.#worker.postMessage(request);
  }

  /** The next range's columns, or null when this thread has to build them. */
  async take(): Promise<Record<string, string | null> | null> {
    if (this.#failed) return null;
    const answer = await this.#answers.shift()!;
    if (!answer.ok) {
      this.#failed = true;
      this.close();
      return null;
    }
    const change = changeSince(this.#identity, answer.identity);
    if (change !== null) {
      throw new Refusal(
        `${change}; call load_report again for a fresh handle (an answer is never made from a ` +
          `mix of old and new files)`,
      );
    }
    this.#ask();
    return answer.columns;
  }

  /** Stops the worker. */
  close(): void {
    this.#worker.terminate();
  }
}
