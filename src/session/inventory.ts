/**
 * What a loaded report holds, read once by `load_report`: the chosen performance CSV and its
 * parsed table (or why it cannot be reported on), the device log's probe, the profiler
 * database's tables and the cluster descriptor. Tools decide from it whether they can answer.
 *
 * @module
 */
import type { OpsCsvFile, OpsCsvRead, PerfReport } from "../perf_report/mod.ts";
import type { DeviceLogProbe } from "../device_log/mod.ts";
import type { ClusterDescriptor, ProfilerDbProbe } from "../profiler_db/mod.ts";
import type { FileIdentity } from "../kit/file_identity.ts";
import { type Artifact, keptOf, OPS_CSV_FILE, REPORT_FILES } from "./report_files.ts";

/** The performance report directory's contents. */
export interface PerformanceSide {
  dir: string;
  /** The CSV the tools read (the newest), or null when the directory has none. */
  csv: OpsCsvFile | null;
  /** The identity of the CSV's bytes as opened, known without parsing them. */
  csvIdentity: FileIdentity | null;
  /** Bytes of the CSV read and held parsed: 0 while unread, and for a CSV refused. */
  readonly csvBytesHeld: number;
  /** Its parsed table, or why it cannot be reported on; null without a CSV. */
  csvRead: OpsCsvRead | null;
  /**
   * The whole-file report, generated at load so that whether the CSV can be reported on is
   * known exactly (not guessed from its header); null when it cannot be.
   */
  whole: PerfReport | null;
  /** Why the parsed CSV cannot be reported on, or null. */
  wholeProblem: string | null;
  /**
   * False while a one-shot call's CSV is not yet read (whether it can be reported on is then
   * unknown until `csvRead`, `whole` or `wholeProblem` is first asked for); absent once known.
   */
  readonly csvJudged?: boolean;
  deviceLog: DeviceLogProbe | null;
}

/** The profiler report directory's contents. */
export interface ProfilerSide {
  dir: string;
  db: ProfilerDbProbe | null;
  clusterDescriptor: ClusterDescriptor | null;
}

/** Both sides; a handle carries either or both. */
export interface Inventory {
  performance: PerformanceSide | null;
  profiler: ProfilerSide | null;
}

export type { Artifact };

/** Which artifacts are present in a report, whether or not they can be read. */
export function artifactsPresent(inv: Inventory): Artifact[] {
  return REPORT_FILES.filter((k) => k.readBy === "tools" && keptOf(inv, k) !== null)
    .map((k) => k.key as Artifact);
}

/** Every file identity the inventory was read from, for the staleness check. */
export function identitiesOf(inv: Inventory): FileIdentity[] {
  return REPORT_FILES.flatMap((k) => {
    const kept = keptOf(inv, k);
    return kept === null ? [] : [k.identity(kept)];
  });
}

/** Why a performance-CSV tool cannot answer, or null when it can. */
export function performanceCsvUnavailable(inv: Inventory): string | null {
  const perf = inv.performance;
  if (!perf) return "the handle was loaded without a performance_path";
  if (!perf.csv) return `no ${OPS_CSV_FILE.name} in ${perf.dir}`;
  if (perf.csvRead && !perf.csvRead.ok) return perf.csvRead.problem;
  return perf.wholeProblem;
}
