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
import {
  confineDirectory,
  type OpenedFile,
  type OpenOutcome,
  openReportFile,
} from "../kit/report_file.ts";
import type { ChosenFile, ProbeHow, ReportFileKind } from "../kit/report_kind.ts";
import {
  type CsvTable,
  generatePerfReport,
  type OpsCsvFile,
  type OpsCsvRead,
  type PerfReport,
  PerfReportInputError,
  readOpenedCsvSync,
} from "../perf_report/mod.ts";
import { OPS_CSV_FILE, REPORT_FILES } from "./report_files.ts";
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
   * for it (its descriptor kept open until then). Once `signal` aborts, a probe reading a
   * whole file (the database) stops at its next slice and the read rejects with its reason.
   */
  read(progress?: Progress, options?: LoadOptions): Promise<Inventory>;
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

/** How a load reads: the CSV on first need (`lazyCsv`); stopped once `signal` aborts. */
export interface LoadOptions {
  lazyCsv?: boolean;
  signal?: AbortSignal;
}

/**
 * Loads a report and registers it under a new handle: when a live report was read from the
 * very same files, unchanged, the new handle shares it and nothing is read again. `progress`
 * hears the performance CSV's bytes as they are read. A load stopped by `signal` registers
 * nothing.
 */
export async function loadAndRegister(
  registry: HandleRegistry,
  request: LoadRequest,
  roots: Roots,
  progress?: Progress,
  options: LoadOptions = {},
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
  const checked: Record<Side, { real: string; recheck: () => void } | null> = {
    profiler: request.profiler_path === undefined
      ? null
      : await directory(request.profiler_path, "profiler_path", roots),
    performance: request.performance_path === undefined
      ? null
      : await directory(request.performance_path, "performance_path", roots),
  };
  const dirs: Record<Side, string | null> = {
    profiler: checked.profiler?.real ?? null,
    performance: checked.performance?.real ?? null,
  };
  const files: Files = new Map();
  try {
    for (const kind of REPORT_FILES) {
      const dir = dirs[kind.side];
      if (dir === null) continue;
      const chosen = await kind.choose(dir);
      // The names listed are the checked directory's only if it is still that directory.
      checked[kind.side]!.recheck();
      if (chosen === null) continue;
      const label = `${kind.side}_path's ${kind.called ?? chosen.name}`;
      files.set(kind, {
        chosen,
        outcome: await openReportFile(chosen.path, chosen.name, roots, label),
      });
    }
  } catch (e) {
    closeAll(files);
    throw e;
  }
  const key = JSON.stringify([
    dirs.performance,
    dirs.profiler,
    ...REPORT_FILES.flatMap((k) => [files.get(k)?.chosen.name ?? null, keyOf(files.get(k))]),
  ]);
  return {
    key,
    close: () => closeAll(files),
    read: async (progress?: Progress, options: LoadOptions = {}) => {
      // A CSV read on first need keeps its descriptor open until then.
      const csv = files.get(OPS_CSV_FILE);
      const kept = options.lazyCsv && csv?.outcome.kind === "opened" ? csv : undefined;
      // Under roots SQLite is never handed a path: it reads what the checked descriptor read.
      const how = { confined: roots.confined, progress, signal: options.signal };
      try {
        return {
          performance: dirs.performance === null
            ? null
            : await readPerformance(dirs.performance, files, how, kept !== undefined),
          profiler: dirs.profiler === null
            ? null
            : { dir: dirs.profiler, ...await readKinds("profiler", files, how) } as ProfilerSide,
        };
      } finally {
        closeAll(files, kept);
      }
    },
  };
}

type Side = ReportFileKind["side"];

/** A file a load chose and opened (or found it could not). */
interface LoadFile {
  chosen: ChosenFile;
  outcome: OpenOutcome;
}

/** The files a load opened, by kind. */
type Files = Map<ReportFileKind, LoadFile>;

function keyOf(file: LoadFile | undefined): string | null {
  if (file === undefined) return null;
  const outcome = file.outcome;
  switch (outcome.kind) {
    case "missing":
      return "missing";
    case "unusable":
      return `unusable\u0000${outcome.identity ? identityKey(outcome.identity) : ""}`;
    case "opened":
      return identityKey(outcome.opened.identity);
  }
}

/** Closes every opened file but `except`. */
function closeAll(files: Files, except?: LoadFile): void {
  for (const file of files.values()) {
    if (file === except || file.outcome.kind !== "opened") continue;
    try {
      file.outcome.opened.file.close();
    } catch {
      // closed already
    }
  }
}

/**
 * What `kind`'s probe finds in its file, or null when the load found none: a file that could
 * not be opened is described as such, and one chosen by a stat that has since gone is too.
 */
async function probeKind(
  kind: ReportFileKind,
  file: LoadFile | undefined,
  how: Omit<ProbeHow, "name">,
): Promise<unknown> {
  if (file === undefined) return null;
  const { chosen, outcome } = file;
  const named = { ...how, name: chosen.name };
  if (outcome.kind === "opened") return await kind.probe(outcome.opened, named);
  if (outcome.kind === "unusable") {
    const identity = outcome.identity ?? chosen.identity ?? unknownIdentity(chosen.path);
    return kind.unusable(identity, outcome.problem, named);
  }
  return chosen.identity === undefined
    ? null
    : kind.unusable(chosen.identity, `${chosen.name} no longer exists`, named);
}

/**
 * What the inventory keeps of every kind of `side` but the performance CSV (read apart: its
 * parse may wait for a tool, and its whole-file report follows it), by the kind's field.
 */
async function readKinds(
  side: Side,
  files: Files,
  how: Omit<ProbeHow, "name">,
): Promise<Record<string, unknown>> {
  const kept: Record<string, unknown> = {};
  for (const kind of REPORT_FILES) {
    if (kind.side !== side || kind === OPS_CSV_FILE) continue;
    kept[kind.field] = await probeKind(kind, files.get(kind), how);
  }
  return kept;
}

/**
 * Resolves a directory argument, refusing one outside the roots or not a directory; under
 * roots, walked as `confineDirectory` does, with its `recheck` for after its listing.
 */
async function directory(
  raw: string,
  label: string,
  roots: Roots,
): Promise<{ real: string; recheck: () => void }> {
  if (raw.trim() === "") throw new Refusal(`${label} is empty; give a report directory`);
  let path: string;
  try {
    path = resolveArgumentPath(raw);
  } catch (e) {
    throw new Refusal(`${label}: ${(e as Error).message}`);
  }
  const confined = await confineDirectory(path, roots, label);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(confined.real);
  } catch {
    throw new Refusal(`${label} is not a directory: ${path} (nothing exists there)`);
  }
  if (!info.isDirectory) throw new Refusal(`${label} is not a directory: ${path} (it is a file)`);
  return confined;
}

/** An identity for a file whose stat failed. */
function unknownIdentity(path: string) {
  return { path, size: 0, mtimeMs: null, ctimeMs: null, ino: null, dev: null };
}

async function readPerformance(
  dir: string,
  files: Files,
  how: Omit<ProbeHow, "name">,
  lazyCsv = false,
): Promise<PerformanceSide> {
  const others = await readKinds("performance", files, how);
  const chosen = files.get(OPS_CSV_FILE);
  const csv = (chosen?.chosen ?? null) as OpsCsvFile | null;
  if (lazyCsv && csv !== null && chosen?.outcome.kind === "opened") {
    return lazyPerformance(dir, csv, chosen.outcome.opened, others);
  }
  const csvRead = await probeKind(OPS_CSV_FILE, chosen, how) as OpsCsvRead | null;
  const { whole, problem } = csvRead?.ok
    ? generateWhole(csvRead.table, csv!.name)
    : { whole: null, problem: null };
  return {
    ...others,
    dir,
    csv,
    csvIdentity: csvRead?.identity ?? null,
    csvBytesHeld: csvRead?.ok ? csvRead.identity.size : 0,
    csvRead,
    whole,
    wholeProblem: problem,
  } as PerformanceSide;
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
  others: Record<string, unknown>,
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
    ...others,
    dir,
    csv,
    csvIdentity: opened.identity,
    get csvBytesHeld() {
      return done?.read.ok ? done.read.identity.size : 0;
    },
    get csvJudged() {
      return done !== null;
    },
    get csvRead() {
      return force().read;
    },
    get whole() {
      return force().whole;
    },
    get wholeProblem() {
      return force().problem;
    },
  } as PerformanceSide;
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
