/**
 * A first look at a profiler report's `db.sqlite`, opened read-only through Deno's built-in
 * `node:sqlite`: which tables it holds and how many devices it records. The database tools
 * each read their own tables; this is what `load_report` needs to say which can answer.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type FileIdentity, fromInfo } from "../report/file_identity.ts";

/** The database's file name inside a profiler report directory. */
export const PROFILER_DB_NAME = "db.sqlite";

/** What `probeProfilerDb` found. */
export interface ProfilerDbProbe {
  path: string;
  identity: FileIdentity;
  /** Table names, sorted. Empty when the database cannot be read. */
  tables: string[];
  /** Distinct device ids in `devices`, every rank's; null without that table. */
  deviceCount: number | null;
  /** Why the database cannot be read, or null. */
  problem: string | null;
}

/** Probes the database at `path`; a missing file yields `null`. */
export async function probeProfilerDb(path: string): Promise<ProfilerDbProbe | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const probe: ProfilerDbProbe = {
    path,
    identity: fromInfo(path, info),
    tables: [],
    deviceCount: null,
    problem: null,
  };
  if (!info.isFile) {
    probe.problem = `${PROFILER_DB_NAME} is not a regular file`;
    return probe;
  }
  if (info.size === 0) {
    probe.problem = `${PROFILER_DB_NAME} is empty`;
    return probe;
  }
  let db: DatabaseSync | undefined;
  try {
    db = openReadOnly(path);
    const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all() as { name: string }[];
    probe.tables = rows.map((r) => r.name);
    if (probe.tables.includes("devices")) {
      const row = db.prepare("SELECT COUNT(DISTINCT device_id) AS n FROM devices").get() as
        | { n: number }
        | undefined;
      probe.deviceCount = row?.n ?? 0;
    }
  } catch (e) {
    probe.tables = [];
    probe.deviceCount = null;
    probe.problem = `${PROFILER_DB_NAME} cannot be read as SQLite: ${(e as Error).message}`;
  } finally {
    db?.close();
  }
  return probe;
}

/** Opens a SQLite file for reading only; nothing is ever written beside it. */
export function openReadOnly(path: string): DatabaseSync {
  return new DatabaseSync(path, { readOnly: true });
}
