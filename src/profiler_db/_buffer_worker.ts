/**
 * Internal: a worker that runs the buffers scan's column queries (`_buffer_columns.ts`) on its
 * own read-only connection to the same file, so SQLite builds one range's columns on this
 * thread while the caller builds and visits another's. It answers each request with the
 * columns as SQLite wrote them and the file's identity as it found it on opening, so the
 * caller can refuse rather than mix two versions of a rewritten database.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { DatabaseSync } from "node:sqlite";
import { openReadOnlyChecked } from "./probe.ts";
import type { FileIdentity } from "../kit/file_identity.ts";
import type { ColumnsRequest, ColumnsResponse } from "./_buffer_messages.ts";

/** The connection, opened on the first request (later ones wait for the same open). */
let opening: Promise<{ db: DatabaseSync; identity: FileIdentity }> | null = null;

self.onmessage = async (event: MessageEvent<ColumnsRequest>) => {
  const { path, sql, from, to } = event.data;
  let answer: ColumnsResponse;
  try {
    // The identity answered is the one of the file SQLite opened (through its descriptor).
    opening ??= openReadOnlyChecked(path);
    const open = await opening;
    const columns = open.db.prepare(sql).get(from, to) as Record<string, string | null>;
    answer = { ok: true, columns, identity: open.identity };
  } catch (e) {
    answer = { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  self.postMessage(answer);
};
