/**
 * Internal: the messages between the buffers scan (`_buffer_columns.ts`) and its worker
 * (`_db_worker.ts`), in a module of their own so that neither imports the other.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";

/** A worker's request: run `sql` with the range's bounds as its two parameters. */
export interface ColumnsRequest {
  path: string;
  sql: string;
  from: number;
  to: number;
}

/** A worker's answer. */
export type ColumnsResponse =
  | { ok: true; columns: Record<string, string | null>; identity: FileIdentity }
  | { ok: false; message: string };
