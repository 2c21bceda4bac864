/**
 * Loading a report: the directories a `load_report` names, confined to the roots, and what
 * each source's probe finds in them — the newest performance CSV parsed and its whole-file
 * report generated, the device log probed, the profiler database probed and the cluster
 * descriptor read — as the inventory a handle is registered with.
 *
 * A load first opens every file once and checks what it opened (`kit/report_file.ts`): a
 * regular file, inside the roots by its descriptor. The identities of the opened files make
 * the load's key: a load whose key matches a live report shares that report and reads nothing.
 * Otherwise each probe reads from the descriptor already open, never from the path again.
 *
 * @module
 */
import { Refusal } from "../kit/refusal.ts";
import { resolveArgumentPath } from "../kit/paths.ts";
import type { Roots } from "../kit/roots.ts";
import { identityKey } from "../kit/file_identity.ts";
import { type OpenedFile, type OpenOutcome, openReportFile } from "../kit/report_file.ts";
import {
  chooseOpsCsv,
  type CsvTable,
  generatePerfReport,
  type OpsCsvFile,
  type OpsCsvRead,
  type PerfReport,
  PerfReportInputError,
  readOpenedCsv,
  readOpenedCsvSync,
} from "../perf_report/mod.ts";
import {
  DEVICE_LOG_NAME,
  type DeviceLogProbe,
  probeOpenedDeviceLog,
  unusableDeviceLog,
} from "../device_log/mod.ts";
import {
  type ClusterDescriptor,
  type OpenMode,
  pickDescriptor,
  probeOpenedDb,
  PROFILER_DB_NAME,
  readOpenedDescriptor,
  unusableDb,
} from "../profiler_db/mod.ts";
import type { Inventory, PerformanceSide, ProfilerSide } from "./inventory.ts";
import type { HandleRegistry, LoadedReport } from "./handles.ts";
import type { Progress } from "../kit/progress.ts";

/** The directories a load names; at least one. */
export interface LoadRequest {
  profiler_path?: string;
  performance_path?: string;
}

/** A load's files, opened and checked, not yet read. */
export interface OpenedLoad {
  /** Equal for two loads of the same directories whose files are the same, unchanged. */
  readonly key: string;
  /**
   * Reads the inventory from the opened files, and closes them; `progress` hears the CSV's.
   * With `lazyCsv`, the CSV is read, parsed and reported on only when something first asks
   * for it (its descriptor kept open until then).
   */
  read(progress?: Progress, options?: { lazyCsv?: boolean }): Promise<Inventory>;
  /** Closes the files unread. */
  close(): void;
}

/**
 * Reads what the named directories hold. Refuses when neither is named, when one is empty,
 * outside the roots or not a directory; a file that cannot be read is reported in the
 * inventory, not refused.
 */
export async function loadInventory(request: LoadRequest, roots: Roots): Promise<Inventory> {
  return await (await openLoad(request, roots)).read();
}

/**
 * Loads a report and registers it under a new handle: when a live report was read from the
 * very same files, unchanged, the new handle shares it and nothing is read again. `progress`
 * hears the performance CSV's bytes as they are read.
 */
export async function loadAndRegister(
  registry: HandleRegistry,
  request: LoadRequest,
  roots: Roots,
  progress?: Progress,
  options: { lazyCsv?: boolean } = {},
): Promise<LoadedReport> {
  const opened = await openLoad(request, roots);
  const shared = registry.sharedInventory(opened.key);
  if (shared !== null) {
    opened.close();
    return registry.add(shared, opened.key);
  }
  return registry.add(await opened.read(progress, options), opened.key);
}

/**
 * Resolves the directories and opens every report file in them (refusing as `loadInventory`
 * does), reading nothing yet.
 */
export async function openLoad(request: LoadRequest, roots: Roots): Promise<OpenedLoad> {
  if (request.profiler_path === undefined && request.performance_path === undefined) {
    throw new Refusal("one of profiler_path or performance_path is required");
  }
  const profilerDir = request.profiler_path === undefined
    ? null
    : await directory(request.profiler_path, "profiler_path", roots);
  const performanceDir = request.performance_path === undefined
    ? null
    : await directory(request.performance_path, "performance_path", roots);
  const files: Files = {};
  try {
    if (performanceDir !== null) {
      const csv = await chooseOpsCsv(performanceDir);
      if (csv) {
        files.csv = {
          file: csv,
          outcome: await openReportFile(
            csv.path,
            csv.name,
            roots,
            `performance_path's ${csv.name}`,
          ),
        };
      }
      files.log = await openReportFile(
        `${performanceDir}/${DEVICE_LOG_NAME}`,
        DEVICE_LOG_NAME,
        roots,
        `performance_path's ${DEVICE_LOG_NAME}`,
      );
    }
    if (profilerDir !== null) {
      files.db = await openReportFile(
        `${profilerDir}/${PROFILER_DB_NAME}`,
        PROFILER_DB_NAME,
        roots,
        `profiler_path's ${PROFILER_DB_NAME}`,
      );
      const name = await pickDescriptor(profilerDir);
      if (name !== null) {
        files.descriptor = {
          name,
          outcome: await openReportFile(
            `${profilerDir}/${name}`,
            name,
            roots,
            "profiler_path's cluster descriptor",
          ),
        };
      }
    }
  } catch (e) {
    closeAll(files);
    throw e;
  }
  const key = JSON.stringify([
    performanceDir,
    profilerDir,
    files.csv?.file.name ?? null,
    keyOf(files.csv?.outcome),
    keyOf(files.log),
    keyOf(files.db),
    files.descriptor?.name ?? null,
    keyOf(files.descriptor?.outcome),
  ]);
  return {
    key,
    close: () => closeAll(files),
    read: async (progress?: Progress, options: { lazyCsv?: boolean } = {}) => {
      // A CSV read on first need keeps its descriptor open until then.
      const kept = options.lazyCsv && files.csv?.outcome.kind === "opened" ? files.csv : undefined;
      try {
        return {
          performance: performanceDir === null
            ? null
            : await readPerformance(performanceDir, files, progress, kept !== undefined),
          // Under roots SQLite is never handed a path: it reads what the checked descriptor read.
          profiler: profilerDir === null
            ? null
            : await readProfiler(profilerDir, files, roots.confined ? "snapshot" : "in_place"),
        };
      } finally {
        closeAll({ ...files, csv: kept === undefined ? files.csv : undefined });
      }
    },
  };
}

/** The files a load opened. */
interface Files {
  csv?: { file: OpsCsvFile; outcome: OpenOutcome };
  log?: OpenOutcome;
  db?: OpenOutcome;
  descriptor?: { name: string; outcome: OpenOutcome };
}

function keyOf(outcome: OpenOutcome | undefined): string | null {
  if (outcome === undefined) return null;
  switch (outcome.kind) {
    case "missing":
      return "missing";
    case "unusable":
      return `unusable\u0000${outcome.identity ? identityKey(outcome.identity) : ""}`;
    case "opened":
      return identityKey(outcome.opened.identity);
  }
}

function closeAll(files: Files): void {
  for (const outcome of [files.csv?.outcome, files.log, files.db, files.descriptor?.outcome]) {
    if (outcome?.kind !== "opened") continue;
    try {
      outcome.opened.file.close();
    } catch {
      // closed already
    }
  }
}

/** Resolves a directory argument, refusing one outside the roots or not a directory. */
async function directory(raw: string, label: string, roots: Roots): Promise<string> {
  if (raw.trim() === "") throw new Refusal(`${label} is empty; give a report directory`);
  let path: string;
  try {
    path = resolveArgumentPath(raw);
  } catch (e) {
    throw new Refusal(`${label}: ${(e as Error).message}`);
  }
  const real = await roots.confine(path, label);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch {
    throw new Refusal(`${label} is not a directory: ${path} (nothing exists there)`);
  }
  if (!info.isDirectory) throw new Refusal(`${label} is not a directory: ${path} (it is a file)`);
  return real;
}

/** An identity for a file whose stat failed. */
function unknownIdentity(path: string) {
  return { path, size: 0, mtimeMs: null, ctimeMs: null, ino: null, dev: null };
}

async function readPerformance(
  dir: string,
  files: Files,
  progress?: Progress,
  lazyCsv = false,
): Promise<PerformanceSide> {
  const chosen = files.csv;
  const log = files.log!;
  const logPath = `${dir}/${DEVICE_LOG_NAME}`;
  const deviceLog = log.kind === "missing"
    ? null
    : log.kind === "unusable"
    ? unusableDeviceLog(log.identity ?? unknownIdentity(logPath), log.problem)
    : await probeOpenedDeviceLog(log.opened);
  if (lazyCsv && chosen?.outcome.kind === "opened") {
    return lazyPerformance(dir, chosen.file, chosen.outcome.opened, deviceLog);
  }
  let csvRead: OpsCsvRead | null = null;
  if (chosen) {
    const { file, outcome: o } = chosen;
    csvRead = o.kind === "opened" ? await readOpenedCsv(o.opened, file.name, progress) : {
      ok: false,
      identity: o.kind === "unusable" && o.identity ? o.identity : file.identity,
      problem: o.kind === "unusable" ? o.problem : `${file.name} no longer exists`,
    };
  }
  const { whole, problem } = csvRead?.ok
    ? generateWhole(csvRead.table, chosen!.file.name)
    : { whole: null, problem: null };
  return {
    dir,
    csv: chosen?.file ?? null,
    csvIdentity: csvRead?.identity ?? null,
    csvRead,
    whole,
    wholeProblem: problem,
    deviceLog,
  };
}

/**
 * The performance side with its CSV read, parsed and reported on when something first asks
 * for `csvRead`, `whole` or `wholeProblem` — never, for a one-shot call of a tool that reads
 * the device log only. The descriptor opened and checked at load is the one read, then closed.
 */
function lazyPerformance(
  dir: string,
  csv: OpsCsvFile,
  opened: OpenedFile,
  deviceLog: DeviceLogProbe | null,
): PerformanceSide {
  let done: { read: OpsCsvRead; whole: PerfReport | null; problem: string | null } | null = null;
  const force = () => {
    if (done !== null) return done;
    let read: OpsCsvRead;
    try {
      read = readOpenedCsvSync(opened, csv.name);
    } catch (e) {
      // Kept as the answer, so a second access never reads the closed descriptor.
      read = {
        ok: false,
        identity: opened.identity,
        problem: `${csv.name}: ${(e as Error).message}`,
      };
    } finally {
      opened.file.close();
    }
    const { whole, problem } = read.ok
      ? generateWhole(read.table, csv.name)
      : { whole: null, problem: null };
    return done = { read, whole, problem };
  };
  return {
    dir,
    csv,
    csvIdentity: opened.identity,
    get csvRead() {
      return force().read;
    },
    get whole() {
      return force().whole;
    },
    get wholeProblem() {
      return force().problem;
    },
    deviceLog,
  };
}

async function readProfiler(
  dir: string,
  files: Files,
  mode: OpenMode,
): Promise<ProfilerSide> {
  const db = files.db!;
  const dbPath = `${dir}/${PROFILER_DB_NAME}`;
  let clusterDescriptor: ClusterDescriptor | null = null;
  const d = files.descriptor;
  if (d && d.outcome.kind !== "missing") {
    const path = `${dir}/${d.name}`;
    clusterDescriptor = d.outcome.kind === "opened"
      ? await readOpenedDescriptor(d.outcome.opened, d.name)
      : {
        path,
        identity: d.outcome.identity ?? unknownIdentity(path),
        arch: null,
        problem: d.outcome.problem,
      };
  }
  return {
    dir,
    db: db.kind === "missing"
      ? null
      : db.kind === "unusable"
      ? unusableDb(db.identity ?? unknownIdentity(dbPath), db.problem, mode)
      : probeOpenedDb(db.opened, mode),
    clusterDescriptor,
  };
}

/**
 * The whole-file report, or why the CSV cannot be reported on: where tt-perf-report itself
 * would abort (a blank math fidelity on a matmul, say), the problem names the row.
 */
function generateWhole(
  table: CsvTable,
  name: string,
): { whole: PerfReport | null; problem: string | null } {
  try {
    return { whole: generatePerfReport(table), problem: null };
  } catch (e) {
    const why = e instanceof PerfReportInputError
      ? e.message
      : `the report could not be generated (${(e as Error).message})`;
    return { whole: null, problem: `${name} cannot be reported on: ${why}` };
  }
}
