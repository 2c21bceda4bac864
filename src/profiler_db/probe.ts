/**
 * A first look at a profiler report's `db.sqlite`, opened read-only through Deno's built-in
 * `node:sqlite` (`open.ts`): which tables it holds, each table's columns (the schema changed
 * many times across tt-metal versions, so nothing assumes one), and how many devices it
 * records. The database tools each check the tables and columns they read against this.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";
import type { Database } from "./database.ts";
import { type OpenedFile, openReportFile } from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";
import type { ReportFileKind } from "../kit/report_kind.ts";
import {
  type ClusterDescriptor,
  pickDescriptor,
  readOpenedDescriptor,
} from "./cluster_descriptor.ts";
import {
  keepForOpen,
  openReadOnlyFromAsync,
  PROFILER_DB_NAME,
  UnreadableDatabase,
} from "./open.ts";

export {
  dropKept,
  MAX_SNAPSHOT_BYTES,
  openReadOnly,
  openReadOnlyChecked,
  PROFILER_DB_NAME,
  UnreadableDatabase,
} from "./open.ts";

/** The profiler database as a kind of report file: its tables and columns probed at load. */
export const PROFILER_DB_FILE = {
  key: "profiler_db",
  readBy: "tools",
  source: "profiler_db",
  side: "profiler",
  name: PROFILER_DB_NAME,
  cliName: PROFILER_DB_NAME,
  title: "the profiler database",
  called: null,
  what: "The TT-NN profiler's SQLite database: the run's operations, tensors, buffers, " +
    "devices, stack traces and, with the graph report on, each operation's captured graph.",
  capture: "run the model with the TT-NN profiler on (TTNN_CONFIG_OVERRIDES with " +
    '"enable_fast_runtime_mode": false and "enable_logging": true), which writes it to ' +
    "generated/ttnn/reports/<name>/",
  beside: ["config.json"],
  field: "db",
  newestWins: false,
  choose: (dir) => Promise.resolve({ name: PROFILER_DB_NAME, path: `${dir}/${PROFILER_DB_NAME}` }),
  probe: (opened, how) => probeOpenedDb(opened, how.signal),
  unusable: (identity, problem) => unusableDb(identity, problem),
  identity: (probe) => probe.identity,
} as const satisfies ReportFileKind<ProfilerDbProbe>;

/**
 * Rank 0's cluster descriptor as a kind of report file: read at load for the architecture it
 * names, by no tool (`cluster_descriptor.ts`).
 */
export const CLUSTER_DESCRIPTOR_FILE = {
  key: "cluster_descriptor",
  readBy: "load_report",
  source: "profiler_db",
  side: "profiler",
  name: "cluster_descriptor.yaml",
  cliName: "cluster_descriptor.yaml",
  title: "the cluster descriptor",
  called: "cluster descriptor",
  what: "The cluster's chips as tt-metal describes them (rank 0's, in a multi-host report), " +
    "read for the architecture its arch mapping names.",
  capture: "the TT-NN profiler writes it beside the database",
  beside: [],
  field: "clusterDescriptor",
  newestWins: false,
  choose: async (dir) => {
    const name = await pickDescriptor(dir);
    return name === null ? null : { name, path: `${dir}/${name}` };
  },
  probe: (opened, how) => readOpenedDescriptor(opened, how.name),
  unusable: (identity, problem) => ({ path: identity.path, identity, arch: null, problem }),
  identity: (descriptor) => descriptor.identity,
} as const satisfies ReportFileKind<ClusterDescriptor>;

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

/**
 * Probes the database at `path`; a missing file yields `null`. Outside `roots`, refused; a
 * FIFO or device under its name is described as such, never opened. The database is read
 * through the descriptor checked (against `roots` too), into memory (`open.ts`).
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
  if (outcome.kind === "missing") return null;
  if (outcome.kind === "unusable") {
    return unusableDb(
      outcome.identity ?? { path, size: 0, mtimeMs: null, ctimeMs: null, ino: null, dev: null },
      outcome.problem,
    );
  }
  try {
    return await probeOpenedDb(outcome.opened);
  } finally {
    outcome.opened.file.close();
  }
}

/** The probe of a database that cannot be read, saying why. */
export function unusableDb(
  identity: FileIdentity,
  problem: string,
): ProfilerDbProbe {
  return {
    path: identity.path,
    identity,
    tables: [],
    columns: {},
    deviceCount: null,
    operationRanks: null,
    problem,
  };
}

/**
 * Probes the database open in `opened` (it stays open), read through its descriptor; the copy
 * read is kept for the first open of the same file (`keepForOpen`). Once `signal` aborts, the
 * read stops at its next slice and the probe rejects with its reason (a load cancelled, not a
 * database found unreadable).
 */
export async function probeOpenedDb(
  opened: OpenedFile,
  signal?: AbortSignal,
): Promise<ProfilerDbProbe> {
  const { identity } = opened;
  const probe = unusableDb(identity, "");
  probe.problem = null;
  if (identity.size === 0) {
    probe.problem = `${PROFILER_DB_NAME} is empty`;
    return probe;
  }
  let db: Database | undefined;
  try {
    db = await openReadOnlyFromAsync(opened.file, identity, signal);
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
    // The copy is the load's to read from next (`keepForOpen`), not made a second time.
    keepForOpen(identity, db);
    db = undefined;
  } catch (e) {
    if (signal?.aborted) throw e;
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
function columnsOf(db: Database, table: string): string[] {
  const quoted = `"${table.replaceAll('"', '""')}"`;
  return (db.prepare(`PRAGMA table_info(${quoted})`).all() as { name: string }[]).map((r) =>
    r.name
  );
}
