/**
 * Every kind of report file the server reads, listed once, each as its source's `probe.ts`
 * declares it (`kit/report_kind.ts`). Loading, staleness, the inventory, load_report, the help,
 * the command line's report flags, the instructions and the layer test take names and rules
 * from this list; a report file's name is spelled nowhere else in src/ outside its own source
 * (`tests/unit/report_files_test.ts`).
 *
 * @module
 */
import type { ReportFileKind } from "../kit/report_kind.ts";
import { OPS_CSV_FILE } from "../perf_report/mod.ts";
import { DEVICE_LOG_FILE } from "../device_log/mod.ts";
import { CLUSTER_DESCRIPTOR_FILE, PROFILER_DB_FILE } from "../profiler_db/mod.ts";

export { CLUSTER_DESCRIPTOR_FILE, DEVICE_LOG_FILE, OPS_CSV_FILE, PROFILER_DB_FILE };

/** The kinds, performance directory's first, each side's defining file first. */
const KINDS = [OPS_CSV_FILE, DEVICE_LOG_FILE, PROFILER_DB_FILE, CLUSTER_DESCRIPTOR_FILE] as const;

/** The kinds, as the code past the list reads them. */
export const REPORT_FILES: readonly ReportFileKind[] = KINDS;

/** The artifacts a tool can read (its `reads`): the keys of the kinds tools read. */
export type Artifact = Extract<(typeof KINDS)[number], { readBy: "tools" }>["key"];

/** The kinds whose files `side`'s directory holds, its defining file first. */
export function filesOf(side: ReportFileKind["side"]): ReportFileKind[] {
  return REPORT_FILES.filter((k) => k.side === side);
}

/** The source folders under src/, one per reader, in the list's order. */
export function sourceFolders(): string[] {
  return [...new Set(REPORT_FILES.map((k) => k.source))];
}

/** The kind a tool's `reads` names. */
export function kindOf(artifact: string): ReportFileKind | undefined {
  return REPORT_FILES.find((k) => k.key === artifact);
}

/**
 * What the inventory keeps of `kind` on its side of `inv`, or null when the load found none
 * (or did not read that directory).
 */
export function keptOf<Kept>(
  inv: Partial<Record<ReportFileKind["side"], object | null>>,
  kind: ReportFileKind<unknown, Kept>,
): Kept | null {
  const side = inv[kind.side] as Record<string, unknown> | null | undefined;
  return (side?.[kind.field] as Kept | undefined) ?? null;
}
