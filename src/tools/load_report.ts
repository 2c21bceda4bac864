/**
 * `load_report`: opens a profiler and/or performance report directory, says what it holds
 * and which tools can answer for it (and why the others cannot), and returns the handle the
 * other tools take.
 *
 * @module
 */
import { z } from "zod";
import { type Answer, defineTool, type Tool, type ToolContext } from "./tool.ts";
import { loadInventory } from "../session/load.ts";
import {
  artifactsPresent,
  type Inventory,
  performanceCsvUnavailable,
} from "../session/inventory.ts";
import { DEVICE_LOG_NAME } from "../device_log/probe.ts";
import { PROFILER_DB_NAME } from "../profiler_db/probe.ts";
import type { CsvTable } from "../perf_report/csv_table.ts";
import {
  countDevices,
  listSignposts,
  MAX_SIGNPOST_NAME_LENGTH,
  signpostNameLength,
} from "../perf_report/signposts.ts";
import { TT_PERF_REPORT_VERSION } from "../perf_report/report.ts";

/** load_report lists at most this many signpost names. */
export const MAX_LISTED_SIGNPOSTS = 20;

const input = z.strictObject({
  profiler_path: z.string().optional().describe(
    "Directory of a profiler report: db.sqlite, config.json, cluster_descriptor.yaml.",
  ),
  performance_path: z.string().optional().describe(
    "Directory of a performance report: ops_perf_results*.csv and profile_log_device.csv.",
  ),
});

/** Builds `load_report`; it needs the other tools to say which of them can answer. */
export function loadReportTool(tools: () => readonly Tool[]): Tool {
  return defineTool({
    name: "load_report",
    title: "Load a report",
    description:
      "Open a profiler report directory, a performance report directory, or both (at least one), " +
      "and get a handle for the other tools. The answer says what the capture holds and which tools " +
      "can answer for it (answerable) and which cannot, with why (unanswerable_reasons). Loading the " +
      "same directory again gives a new handle; call it again whenever a tool says a handle is stale.",
    input,
    async handler(args, ctx) {
      const inventory = await loadInventory(args, ctx.roots);
      const report = ctx.registry.add(inventory);
      return describe(report.handle, inventory, tools(), ctx);
    },
  });
}

function describe(
  handle: string,
  inv: Inventory,
  tools: readonly Tool[],
  ctx: ToolContext,
): Answer {
  const answerable: string[] = [];
  const unanswerable: string[] = [];
  const reasons: Record<string, string> = {};
  const readByATool = new Set<string>();
  for (const tool of tools) {
    if (!tool.cannotAnswer) continue;
    for (const a of tool.reads ?? []) readByATool.add(a);
    const why = tool.cannotAnswer(inv);
    if (why === null) answerable.push(tool.name);
    else {
      unanswerable.push(tool.name);
      reasons[tool.name] = why;
    }
  }
  const perf = inv.performance;
  const prof = inv.profiler;
  const log = perf?.deviceLog ?? null;
  const answer: Answer = {
    handle,
    profiler_path: prof?.dir ?? null,
    performance_path: perf?.dir ?? null,
    capture: log?.capture ?? {},
    answerable,
    unanswerable,
    unanswerable_reasons: reasons,
    performance_csv: perf?.csv?.name ?? null,
  };
  const csvProblem = perf ? performanceCsvUnavailable(inv) : null;
  if (csvProblem) answer.performance_csv_problem = csvProblem;
  const deviceCount: Record<string, number> = {};
  if (perf?.csvRead?.ok && perf.whole) {
    try {
      Object.assign(answer, signpostsOf(perf.csvRead.table));
      deviceCount.performance_csv = countDevices(perf.csvRead.table);
    } catch (e) {
      answer.signposts_problem = `the signposts of ${perf.csv?.name} cannot be read: ${
        (e as Error).message
      }`;
    }
  }
  if (perf) answer.tt_perf_report_version = TT_PERF_REPORT_VERSION;
  if (perf) {
    answer.device_log = log === null ? null : {
      file: DEVICE_LOG_NAME,
      decodes: log.problem === null,
      has_data_rows: log.hasDataRow,
      missing_columns: log.missingColumns,
      zone_boundary_column: log.boundaryColumn,
      ...(log.problem === null ? {} : { problem: log.problem }),
    };
  }
  if (prof) {
    answer.profiler_database = prof.db === null ? null : {
      file: PROFILER_DB_NAME,
      tables: prof.db.tables,
      // The ranks a multi-host report holds: the database tools read one at a time (default 0).
      ...(prof.db.operationRanks === null ? {} : { ranks: prof.db.operationRanks }),
      ...(prof.db.problem === null ? {} : { problem: prof.db.problem }),
    };
  }
  if (prof) {
    const cd = prof.clusterDescriptor;
    answer.cluster_descriptor = cd === null ? null : {
      file: cd.path.slice(cd.path.lastIndexOf("/") + 1),
      ...(cd.problem === null ? {} : { problem: cd.problem }),
    };
  }
  const arch: Record<string, string> = {};
  if (log?.capture.ARCH) arch.device_log = log.capture.ARCH;
  if (prof?.clusterDescriptor?.arch) arch.cluster_descriptor = prof.clusterDescriptor.arch;
  answer.arch = arch;
  if (prof?.db?.deviceCount != null) deviceCount.profiler = prof.db.deviceCount;
  answer.device_count = deviceCount;
  if (prof && ctx.appUrl) {
    answer.app_link_template = `${ctx.appUrl}/operations/{operation_id}`;
    answer.app_link_note =
      "Replace {operation_id} with a profiler operation_id (never a performance " +
      "row's id) to open that operation's details in the TT-NN Visualizer at " + ctx.appUrl +
      ", which must have this profiler report open as its active report.";
  }
  answer.data_present_without_tools = artifactsPresent(inv).filter((a) => !readByATool.has(a));
  return answer;
}

/**
 * The signpost names a range can take, in the order tt-perf-report resolves them, with how
 * often each occurs: at most 20 listed, names longer than a range accepts counted apart.
 */
export function signpostsOf(table: CsvTable): Record<string, unknown> {
  const all = listSignposts(table);
  const usable = all.filter((s) => signpostNameLength(s.name) <= MAX_SIGNPOST_NAME_LENGTH);
  const out: Record<string, unknown> = {
    signposts: usable.slice(0, MAX_LISTED_SIGNPOSTS),
    signpost_count: all.length,
  };
  if (usable.length < all.length) out.signposts_unlisted_too_long = all.length - usable.length;
  return out;
}
