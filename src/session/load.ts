/**
 * Loading a report: the directories a `load_report` names, confined to the roots, and what
 * each source's probe finds in them — the newest performance CSV parsed and its whole-file
 * report generated, the device log probed, the profiler database probed and the cluster
 * descriptor read — as the inventory a handle is registered with.
 *
 * @module
 */
import { Refusal } from "../kit/refusal.ts";
import { resolveArgumentPath } from "../kit/paths.ts";
import type { Roots } from "../kit/roots.ts";
import { chooseOpsCsv, readOpsCsv } from "../perf_report/probe.ts";
import type { CsvTable } from "../perf_report/csv_table.ts";
import { generatePerfReport } from "../perf_report/report.ts";
import { PerfReportInputError } from "../perf_report/errors.ts";
import type { PerfReport } from "../perf_report/types.ts";
import { DEVICE_LOG_NAME, probeDeviceLog } from "../device_log/probe.ts";
import { probeProfilerDb, PROFILER_DB_NAME } from "../profiler_db/probe.ts";
import { readClusterDescriptor } from "../profiler_db/cluster_descriptor.ts";
import type { Inventory, PerformanceSide, ProfilerSide } from "./inventory.ts";

/** The directories a load names; at least one. */
export interface LoadRequest {
  profiler_path?: string;
  performance_path?: string;
}

/**
 * Reads what the named directories hold. Refuses when neither is named, when one is empty,
 * outside the roots or not a directory; a file that cannot be read is reported in the
 * inventory, not refused.
 */
export async function loadInventory(request: LoadRequest, roots: Roots): Promise<Inventory> {
  if (request.profiler_path === undefined && request.performance_path === undefined) {
    throw new Refusal("one of profiler_path or performance_path is required");
  }
  const profilerDir = request.profiler_path === undefined
    ? null
    : await directory(request.profiler_path, "profiler_path", roots);
  const performanceDir = request.performance_path === undefined
    ? null
    : await directory(request.performance_path, "performance_path", roots);
  return {
    performance: performanceDir === null ? null : await readPerformance(performanceDir, roots),
    profiler: profilerDir === null ? null : await readProfiler(profilerDir, roots),
  };
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

async function readPerformance(dir: string, roots: Roots): Promise<PerformanceSide> {
  const csv = await chooseOpsCsv(dir);
  if (csv) await roots.confine(csv.path, `performance_path's ${csv.name}`);
  const logPath = `${dir}/${DEVICE_LOG_NAME}`;
  await roots.confine(logPath, `performance_path's ${DEVICE_LOG_NAME}`);
  const csvRead = csv ? await readOpsCsv(csv) : null;
  const { whole, problem } = csvRead?.ok
    ? generateWhole(csvRead.table, csv!.name)
    : { whole: null, problem: null };
  return {
    dir,
    csv,
    csvRead,
    whole,
    wholeProblem: problem,
    deviceLog: await probeDeviceLog(logPath),
  };
}

async function readProfiler(dir: string, roots: Roots): Promise<ProfilerSide> {
  const dbPath = `${dir}/${PROFILER_DB_NAME}`;
  await roots.confine(dbPath, `profiler_path's ${PROFILER_DB_NAME}`);
  const clusterDescriptor = await readClusterDescriptor(dir);
  if (clusterDescriptor) {
    await roots.confine(clusterDescriptor.path, "profiler_path's cluster descriptor");
  }
  return { dir, db: await probeProfilerDb(dbPath), clusterDescriptor };
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
