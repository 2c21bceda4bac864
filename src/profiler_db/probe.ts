/**
 * A first look at a profiler report's `db.sqlite`, opened read-only through Deno's built-in
 * `node:sqlite` (`open.ts`): which tables it holds, each table's columns (the schema changed
 * many times across tt-metal versions, so nothing assumes one), and how many devices it
 * records. The database tools each check the tables and columns they read against this.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { FileIdentity } from "../kit/file_identity.ts";
import { type OpenedFile, openReportFile } from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";
import { type OpenMode, openReadOnlyFrom, PROFILER_DB_NAME, UnreadableDatabase } from "./open.ts";

export {
  MAX_SNAPSHOT_BYTES,
  type OpenMode,
  openReadOnly,
  openReadOnlyChecked,
  PROFILER_DB_NAME,
  UnreadableDatabase,
} from "./open.ts";

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
  /** How a later open must open it: in place, or (under `--root`) through its descriptor. */
  mode: OpenMode;
}

/**
 * Probes the database at `path`; a missing file yields `null`. Outside `roots`, refused; a
 * FIFO or device under its name is described as such, never opened. Under roots, the database
 * is read through the descriptor checked against them (`snapshot`), now and later.
 */
export async function probeProfilerDb(
  path: string,
  roots = Roots.any(),
): Promise<ProfilerDbProbe | null> {
  const outcome = await openReportFile(
    path,
    PROFILER_DB_NAME,
    roots,
    `profiler_path's ${PROFILER_DB_NAME}`,
  );
  const mode: OpenMode = roots.confined ? "snapshot" : "in_place";
  if (outcome.kind === "missing") return null;
  if (outcome.kind === "unusable") {
    return unusableDb(
      outcome.identity ?? { path, size: 0, mtimeMs: null, ctimeMs: null, ino: null, dev: null },
      outcome.problem,
      mode,
    );
  }
  try {
    return probeOpenedDb(outcome.opened, mode);
  } finally {
    outcome.opened.file.close();
  }
}

/** The probe of a database that cannot be read, saying why. */
export function unusableDb(
  identity: FileIdentity,
  problem: string,
  mode: OpenMode,
): ProfilerDbProbe {
  return {
    mode,
    path: identity.path,
    identity,
    tables: [],
    columns: {},
    deviceCount: null,
    operationRanks: null,
    problem,
  };
}

/** Probes the database open in `opened` (it stays open), opened as `mode` says. */
export function probeOpenedDb(opened: OpenedFile, mode: OpenMode): ProfilerDbProbe {
  const { identity } = opened;
  const probe = unusableDb(identity, "", mode);
  probe.problem = null;
  if (identity.size === 0) {
    probe.problem = `${PROFILER_DB_NAME} is empty`;
    return probe;
  }
  let db: DatabaseSync | undefined;
  try {
    db = openReadOnlyFrom(opened.file, identity, mode);
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
