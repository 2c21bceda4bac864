/**
 * Internal: this thread's side of the graphs' worker (`../_db_worker.ts`): starts it on a job,
 * keeps its answers — the last uses' columns, each range it read — until asked, and refuses
 * any that come from a file changed since load. A worker that fails or stops answers nothing
 * more: whoever waits then reads for itself.
 *
 * @module
 */
import { Refusal } from "../../kit/refusal.ts";
import { changeSince, type FileIdentity } from "../../kit/file_identity.ts";
import type { GraphAnswer, GraphChunk, GraphJob } from "./_graph_chunks.ts";

/** The worker reading the ranges it claims; `take` hands each back, or null. */
export class GraphWorker {
  #worker: Worker;
  #identity: FileIdentity;
  #answers = new Map<number, GraphChunk | null>();
  #waiting = new Map<number, (chunk: GraphChunk | null) => void>();
  #done = false;
  #change: string | null = null;
  #settle!: () => void;
  #setLastUses!: (columns: unknown[][] | null) => void;
  #lastUses = new Promise<unknown[][] | null>((resolve) => this.#setLastUses = resolve);
  /** Resolves once the worker has stopped (done, failed or stopped here). */
  readonly done = new Promise<void>((resolve) => this.#settle = resolve);

  private constructor(
    worker: Worker,
    identity: FileIdentity,
  ) {
    this.#worker = worker;
    this.#identity = identity;
    worker.onmessage = (event: MessageEvent<GraphAnswer>) => {
      const answer = event.data;
      if (answer.kind === "done") {
        this.#finish();
        return;
      }
      if (answer.kind === "lastUses") {
        this.#change ??= changeSince(this.#identity, answer.identity);
        this.#setLastUses(answer.columns);
        return;
      }
      this.#change ??= changeSince(this.#identity, answer.identity);
      const resolve = this.#waiting.get(answer.index);
      this.#waiting.delete(answer.index);
      if (resolve) resolve(answer.chunk);
      else this.#answers.set(answer.index, answer.chunk);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#finish();
    };
  }

  /** A worker for the job, or null when one cannot be started. */
  static start(
    file: { identity: FileIdentity },
    job: GraphJob,
  ): GraphWorker | null {
    try {
      const worker = new Worker(new URL("../_db_worker.ts", import.meta.url).href, {
        type: "module",
      });
      const started = new GraphWorker(worker, file.identity);
      worker.postMessage(job);
      return started;
    } catch {
      return null;
    }
  }

  /** Nothing more will come: whoever still waits reads the range itself. */
  #finish(): void {
    this.#done = true;
    this.#settle();
    this.#setLastUses(null);
    for (const resolve of this.#waiting.values()) resolve(null);
    this.#waiting.clear();
  }

  /** The columns of the worker's first query, or null when this thread has to read them. */
  async lastUses(): Promise<unknown[][] | null> {
    const columns = await this.#lastUses;
    this.#refuseChange();
    return columns;
  }

  #refuseChange(): void {
    if (this.#change !== null) {
      throw new Refusal(
        `${this.#change}; call load_report again for a fresh handle (an answer is never made ` +
          "from a mix of old and new files)",
      );
    }
  }

  /** Whether the worker has answered for range `index` (or will answer nothing more). */
  answered(index: number): boolean {
    return this.#done || this.#answers.has(index);
  }

  /** The range the worker claimed, or null when this thread has to read it. */
  async take(index: number): Promise<GraphChunk | null> {
    let chunk: GraphChunk | null;
    if (this.#answers.has(index)) {
      chunk = this.#answers.get(index)!;
      this.#answers.delete(index);
    } else if (this.#done) chunk = null;
    else chunk = await new Promise((resolve) => this.#waiting.set(index, resolve));
    this.#refuseChange();
    return chunk;
  }

  close(): void {
    this.#worker.terminate();
    this.#finish();
  }
}
