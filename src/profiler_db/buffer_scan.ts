/**
 * One pass over the buffers table, handing each operation's rows to a visitor once: its bytes
 * per bank summed per buffer type and device, and its live L1 buffers. The table runs past a
 * million rows on an ordinary capture; its columns come in a range of rowids at a time
 * (`_buffer_columns.ts`: built by SQLite as JSON, later ranges on a worker while this thread
 * visits the earlier ones). Writers insert each operation's snapshot together; when a report
 * does not, the pass notices an operation coming back and starts again with SQLite ordering
 * the rows by operation.
 *
 * @module
 */
import { type ProfilerDb, row } from "./connection.ts";
import { Refusal } from "../kit/refusal.ts";
import { andRank, type RankScope } from "./host_rank.ts";
import { bufferTypeName } from "./buffer_types.ts";
import {
  ALONE_RANGE_ROWS,
  type BufferColumns,
  columnsSql,
  ColumnsWorker,
  parseColumns,
  rowidRanges,
  SCAN_PLAN,
  type ScanPlan,
} from "./_buffer_columns.ts";
import { NO_PROGRESS, type Progress } from "../kit/progress.ts";
import { type Pause, pauseOn } from "./steps.ts";

/** One operation's buffers, as the visitor sees them (reused between calls: copy to keep). */
export interface OperationBuffers {
  operation_id: number;
  /** Bytes per bank per (type, device): `types[i]` on `devices[i]` (-1: none) holds `sums[i]`. */
  types: string[];
  devices: number[];
  sums: number[];
  /** Live L1 and L1_SMALL buffers: device, address, bytes per bank, repeated. */
  l1: number[];
}

/** An operation's rows came back apart: the pass starts again with SQLite ordering them. */
class NotGrouped extends Error {
  constructor() {
    super("an operation's buffers rows are not together in rowid order");
  }
}

/** What consumes a scan: each operation once, then the result. */
export interface BufferVisitor<T> {
  visit(buffers: OperationBuffers): void;
  finish(): T;
}

/**
 * Runs a fresh visitor from `start` over every operation with buffers rows at the rank and
 * resolves to its result (a scan that has to start again starts a fresh visitor). `plan`
 * sizes the ranges and says when a worker helps; `pause` comes before each range (it lets the
 * loop in, and throws once the caller is cancelled).
 */
export async function scanOperations<T>(
  pdb: ProfilerDb,
  scope: RankScope,
  start: () => BufferVisitor<T>,
  plan: ScanPlan = SCAN_PLAN,
  progress: Progress = NO_PROGRESS,
  pause: Pause = pauseOn(),
): Promise<T> {
  let visitor = start();
  try {
    await inRowidOrder(pdb, scope, visitor, plan, progress, pause);
  } catch (e) {
    if (!(e instanceof NotGrouped)) throw e;
    visitor = start();
    const order = new Visit(visitor);
    const rank = andRank(pdb, scope, "buffers");
    order.columns(parseColumns(row(
      pdb,
      columnsSql(rank, " ORDER BY operation_id, rowid"),
      Number.MIN_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
    )));
    order.flush();
  }
  return visitor.finish();
}

/** The pass in rowid order; throws NotGrouped when an operation's rows are not together. */
async function inRowidOrder<T>(
  pdb: ProfilerDb,
  scope: RankScope,
  visitor: BufferVisitor<T>,
  plan: ScanPlan,
  progress: Progress,
  pause: Pause,
): Promise<void> {
  // Two queries, not one MIN/MAX query: SQLite answers each from the table's b-tree at once,
  // but scans the whole table for the pair.
  const first = row<{ id: number }>(pdb, "SELECT rowid AS id FROM buffers ORDER BY rowid LIMIT 1");
  const last = row<{ id: number }>(
    pdb,
    "SELECT rowid AS id FROM buffers ORDER BY rowid DESC LIMIT 1",
  );
  if (first === undefined || last === undefined) return;
  const sql = columnsSql(andRank(pdb, scope, "buffers"));
  const total = Number(last.id) - Number(first.id) + 1;
  const split = pdb.file !== undefined && total >= plan.workerFrom;
  // Read alone, in ranges short enough that the loop gets in between two.
  const ranges = rowidRanges(
    Number(first.id),
    Number(last.id),
    split ? plan : { rangeRows: Math.min(plan.rangeRows, ALONE_RANGE_ROWS), workerFrom: Infinity },
  );
  const helper = ranges.length > 1 && split
    ? ColumnsWorker.start(pdb.file!, sql, ranges.slice(1))
    : null;
  const visit = new Visit(visitor);
  try {
    for (let i = 0; i < ranges.length; i++) {
      await pause();
      const built = i > 0 && helper !== null ? await helper.take() : null;
      visit.columns(parseColumns(
        built ?? row<Record<string, string | null>>(pdb, sql, ranges[i].from, ranges[i].to),
      ));
      progress.report(ranges[i].to - Number(first.id) + 1, total, "buffers rows scanned");
    }
  } finally {
    helper?.close();
  }
  visit.flush();
}

/** Hands a visitor each operation of the columns given to it, in order. */
class Visit<T> {
  readonly #visitor: BufferVisitor<T>;
  readonly #seen = new Set<number>();
  readonly #names = new Map<unknown, string>();
  readonly #byEnum: string[];
  readonly #current: OperationBuffers = {
    operation_id: NaN,
    types: [],
    devices: [],
    sums: [],
    l1: [],
  };

  constructor(visitor: BufferVisitor<T>) {
    this.#visitor = visitor;
    this.#byEnum = [0, 1, 2, 3, 4].map((n) => this.#nameOf(n));
  }

  #nameOf(stored: unknown): string {
    let name = this.#names.get(stored);
    if (name === undefined) this.#names.set(stored, name = bufferTypeName(stored) ?? "unknown");
    return name;
  }

  /** Hands over the operation gathered so far. */
  flush(): void {
    const current = this.#current;
    if (Number.isNaN(current.operation_id)) return;
    this.#visitor.visit(current);
    current.types.length = current.devices.length = current.sums.length = 0;
    current.l1.length = 0;
  }

  /** Gathers one range's rows. */
  columns({ op, type, device, address, size }: BufferColumns): void {
    const current = this.#current;
    const byEnum = this.#byEnum;
    for (let i = 0; i < op.length; i++) {
      const id = typeof op[i] === "number" ? op[i] as number : Number(op[i]);
      if (!Number.isFinite(id)) throw notAnId(op[i]);
      if (id !== current.operation_id) {
        if (this.#seen.has(id)) throw new NotGrouped();
        this.flush();
        this.#seen.add(id);
        current.operation_id = id;
      }
      const stored = type[i];
      const name = typeof stored === "number" && stored >= 0 && stored <= 4 && stored % 1 === 0
        ? byEnum[stored]
        : this.#nameOf(stored);
      const d = typeof device[i] === "number" ? device[i] as number : -1;
      const bytes = typeof size[i] === "number" ? size[i] as number : 0;
      const t = current.types;
      let k = 0;
      while (k < t.length && (t[k] !== name || current.devices[k] !== d)) k++;
      if (k === t.length) {
        t.push(name);
        current.devices.push(d);
        current.sums.push(bytes);
      } else current.sums[k] += bytes;
      if (
        (name === "L1" || name === "L1_SMALL") && d >= 0 && address[i] !== null && size[i] !== null
      ) {
        current.l1.push(d, Number(address[i]), bytes);
      }
    }
  }
}

/** The refusal for a buffers row whose operation_id is text that is not a number. */
function notAnId(stored: unknown): Refusal {
  return new Refusal(
    `the profiler database's buffers table holds an operation_id that is not a number ` +
      `(${JSON.stringify(stored)}), so its buffers cannot be attributed to operations: the ` +
      "database was not written by tt-metal's profiler, or was damaged since",
  );
}
