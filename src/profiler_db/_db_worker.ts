/**
 * Internal: the profiler database's worker, reading on its own read-only connection to the
 * same file while the caller's thread reads the rest. It does one of two jobs:
 *
 * - the buffers scan's column queries (`_buffer_columns.ts`): each request answered with the
 *   columns as SQLite wrote them;
 * - l1_peak's captured-graph ranges (`l1/_graph_chunks.ts`), after its last uses' query if asked
 *   (`l1/inputs.ts`): it claims each range in order that the caller's thread has not (the
 *   caller replays them in order and reads a range itself whenever it has caught up), and
 *   answers each with its rows.
 *
 * Every answer carries the file's identity as the worker found it on opening, so the caller
 * can refuse rather than mix two versions of a rewritten database.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { openReadOnlyChecked } from "./probe.ts";
import type { FileIdentity } from "../kit/file_identity.ts";
import type { Database, Statement } from "./database.ts";
import type { ColumnsRequest, ColumnsResponse } from "./_buffer_messages.ts";
import { columnsOf } from "./connection.ts";
import {
  CLAIMED_BY_WORKER,
  type GraphAnswer,
  type GraphJob,
  readChunk,
  UNCLAIMED,
} from "./l1/_graph_chunks.ts";

/** The connection, opened on the first request (later ones wait for the same open). */
let opening: Promise<{ db: Database; identity: FileIdentity }> | null = null;

self.onmessage = (event: MessageEvent<ColumnsRequest | GraphJob>) => {
  const data = event.data;
  if ("kind" in data && data.kind === "graphs") readGraphs(data);
  else buildColumns(data as ColumnsRequest);
};

async function buildColumns({ path, sql, from, to }: ColumnsRequest): Promise<void> {
  let answer: ColumnsResponse;
  try {
    // The identity answered is the one of the file SQLite opened (through its descriptor).
    // In this thread, whatever its size: this loop answers no client.
    opening ??= openReadOnlyChecked(path, undefined, undefined, Infinity);
    const open = await opening;
    const columns = open.db.prepare(sql).get(from, to) as Record<string, string | null>;
    answer = { ok: true, columns, identity: open.identity };
  } catch (e) {
    answer = { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  self.postMessage(answer);
}

async function readGraphs(job: GraphJob): Promise<void> {
  const { path, sql, ranges, bankCount, maxChars, maxQueryBytes } = job;
  const claims = new Int32Array(job.claims);
  const post = (answer: GraphAnswer, transfer: Transferable[] = []) =>
    self.postMessage(answer, transfer);
  let open;
  try {
    open = await openReadOnlyChecked(path, undefined, undefined, Infinity);
  } catch {
    post({ kind: "done" });
    return;
  }
  const { db, identity } = open;
  if (job.lastUses !== null) {
    let columns: unknown[][] | null = null;
    try {
      columns = columnsOf(db, job.lastUses.sql, job.lastUses.columns);
    } catch {
      // Read again on the caller's thread, which reports any failure as it always has.
    }
    post({ kind: "lastUses", columns, identity });
  }
  const statements = new Map<string, Statement>();
  const get = (query: string, from: number, to: number) => {
    let statement = statements.get(query);
    if (statement === undefined) statements.set(query, statement = db.prepare(query));
    return statement.get(from, to) as Record<string, unknown> | undefined;
  };
  try {
    let chars = 0;
    for (let index = 0; index < ranges.length && chars <= maxChars; index++) {
      if (Atomics.compareExchange(claims, index, UNCLAIMED, CLAIMED_BY_WORKER) !== UNCLAIMED) {
        continue;
      }
      const read = readChunk(get, sql, ranges[index], bankCount, maxQueryBytes);
      if (read === "rows") {
        post({ kind: "chunk", index, chunk: null, identity });
        break;
      }
      for (const c of read.chars) chars += c;
      post({ kind: "chunk", index, chunk: read, identity }, [
        read.ids.buffer,
        read.chars.buffer,
        read.verdicts.buffer,
        read.ends.buffer,
        read.events.buffer,
      ]);
    }
  } finally {
    db.close();
    post({ kind: "done" });
  }
}
