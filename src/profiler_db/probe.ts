/**
 * A first look at a profiler report's `db.sqlite`, opened read-only through Deno's built-in
 * `node:sqlite`: which tables it holds, each table's columns (the schema changed many times
 * across tt-metal versions, so nothing assumes one), and how many devices it records. The
 * database tools each check the tables and columns they read against this.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type FileIdentity, fromInfo } from "../kit/file_identity.ts";

/** The database's file name inside a profiler report directory. */
export const PROFILER_DB_NAME = "db.sqlite";

/** What `probeProfilerDb` found. */
export interface ProfilerDbProbe {
  path: string;
  identity: FileIdentity;
  /** Table names, sorted. Empty when the database cannot be read. */
  tables: string[];
  /** Each table's column names as declared, in declaration order. */
  columns: Record<string, string[]>;
  /** Devices in `devices`, every rank's (distinct `(rank, device_id)`); null without that table. */
  deviceCount: number | null;
  /** The distinct ranks of `operations`, ascending; null when it has no rank column. */
  operationRanks: number[] | null;
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
    columns: {},
    deviceCount: null,
    operationRanks: null,
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
    for (const table of probe.tables) probe.columns[table] = columnsOf(db, table);
    if (probe.columns.devices?.some((c) => c.toLowerCase() === "device_id")) {
      const ranked = probe.columns.devices.some((c) => c.toLowerCase() === "rank");
      const row = db.prepare(
        ranked
          ? "SELECT COUNT(*) AS n FROM (SELECT DISTINCT rank, device_id FROM devices)"
          : "SELECT COUNT(DISTINCT device_id) AS n FROM devices",
      ).get() as { n: number } | undefined;
      probe.deviceCount = row?.n ?? 0;
    }
    if (probe.columns.operations?.some((c) => c.toLowerCase() === "rank")) {
      probe.operationRanks = (db.prepare(
        "SELECT DISTINCT rank FROM operations WHERE rank IS NOT NULL ORDER BY rank",
      ).all() as { rank: number }[]).map((r) => Number(r.rank));
    }
  } catch (e) {
    probe.tables = [];
    probe.columns = {};
    probe.deviceCount = null;
    probe.operationRanks = null;
    probe.problem = e instanceof UnreadableDatabase
      ? e.message
      : `${PROFILER_DB_NAME} cannot be read as SQLite: ${(e as Error).message}`;
  } finally {
    db?.close();
  }
  return probe;
}

/** A table's column names, as `PRAGMA table_info` declares them. */
function columnsOf(db: DatabaseSync, table: string): string[] {
  const quoted = `"${table.replaceAll('"', '""')}"`;
  return (db.prepare(`PRAGMA table_info(${quoted})`).all() as { name: string }[]).map((r) =>
    r.name
  );
}

/** A database this reader declines to open, with the reason in words. */
export class UnreadableDatabase extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreadableDatabase";
  }
}

/** The 16 bytes every SQLite 3 database file starts with. */
const SQLITE_MAGIC = "SQLite format 3\u0000";

/** How long a read waits for a writer's lock before the database is reported locked. */
const BUSY_WAIT_MS = 1000;

/**
 * Opens a SQLite file for reading only; nothing is ever written beside it.
 *
 * A database in rollback-journal mode (what tt-metal writes) is opened read-only in place.
 * A database in WAL mode is different: SQLite reads one only by creating or updating its
 * `-shm` index beside it, which would be a write next to the report (and fails on a read-only
 * mount). Deno's `node:sqlite` cannot pass SQLite's `immutable` flag under this server's
 * permissions, so such a file is read whole into memory and opened there — an immutable
 * snapshot. When its `-wal` file still holds changes not written back into the database, that
 * snapshot would miss them, so it is refused with the reason instead.
 *
 * Throws `UnreadableDatabase` for a file that is not SQLite or cannot be read that way.
 */
export function openReadOnly(path: string): DatabaseSync {
  const header = readHeader(path);
  if (new TextDecoder().decode(header.subarray(0, 16)) !== SQLITE_MAGIC) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a SQLite database (it does not start with the SQLite header)`,
    );
  }
  const walMode = header[18] === 2 || header[19] === 2;
  if (!walMode) {
    const db = new DatabaseSync(path, { readOnly: true });
    // A writer mid-commit holds its lock briefly: wait up to a second, then say it is locked.
    // (Deno's node:sqlite ignores the `timeout` option and waits five seconds otherwise.)
    db.exec(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
    return db;
  }
  const pending = walBytes(`${path}-wal`);
  if (pending > 0) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is in WAL mode and ${PROFILER_DB_NAME}-wal still holds ${pending} ` +
        `bytes of changes not written back into it (its writer may still be running). Reading ` +
        `them would mean writing ${PROFILER_DB_NAME}-shm beside the report, which this server ` +
        `never does; load the report again once the writer has finished or checkpointed it`,
    );
  }
  const image = Deno.readFileSync(path);
  image[18] = 1; // the in-memory copy is read in rollback mode; the file is untouched
  image[19] = 1;
  const db = new DatabaseSync(":memory:");
  db.deserialize(image);
  db.exec("PRAGMA query_only = 1");
  return db;
}

function readHeader(path: string): Uint8Array {
  const file = Deno.openSync(path, { read: true });
  try {
    const buf = new Uint8Array(100);
    let got = 0;
    while (got < buf.length) {
      const n = file.readSync(buf.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    if (got < buf.length) {
      throw new UnreadableDatabase(
        `${PROFILER_DB_NAME} is not a SQLite database (${got} bytes, shorter than its header)`,
      );
    }
    return buf;
  } finally {
    file.close();
  }
}

function walBytes(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}
