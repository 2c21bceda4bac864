/**
 * `load_report`: opens a profiler and/or performance report directory, says what it holds
 * and which tools can answer for it (and why the others cannot), and returns the handle the
 * other tools take.
 *
 * @module
 */
import { z } from "zod";
import { defineTool, type Tool } from "./tool.ts";
import type { PartsWriter } from "./answer_parts.ts";
import { deviceArchValues, reportArchitecture } from "../analysis/architecture.ts";
import { loadAndRegister } from "../session/load.ts";
import { filesOf } from "../session/report_files.ts";
import {
  type Artifact,
  artifactsPresent,
  type Inventory,
  performanceCsvUnavailable,
  type PerformanceSide,
} from "../session/inventory.ts";
import { DEVICE_LOG_NAME, type DeviceLogProbe } from "../device_log/mod.ts";
import { dropKept, PROFILER_DB_NAME, type ProfilerDbProbe } from "../profiler_db/mod.ts";
import {
  countDevices,
  type CsvTable,
  deviceRowCounts,
  listSignposts,
  MAX_SIGNPOST_NAME_LENGTH,
  type SignpostName,
  signpostNameLength,
  TT_PERF_REPORT_VERSION,
} from "../perf_report/mod.ts";
import { mib } from "../kit/report_file.ts";
import { profilerErrorCounts } from "../analysis/error_counts.ts";
import { prepareProfilerDb } from "../session/profiler_db.ts";
import { reportPasses } from "../analysis/performance.ts";
import type { Pass } from "../analysis/passes.ts";
import { recipesToNotes } from "./notes.ts";

/** load_report lists at most this many passes. */
export const MAX_LISTED_PASSES = 20;

/** load_report lists at most this many signpost names. */
export const MAX_LISTED_SIGNPOSTS = 20;

const input = z.strictObject({
  profiler_path: z.string().optional().describe(
    `Directory holding ${filesOf("profiler")[0].name}.`,
  ),
  performance_path: z.string().optional().describe(
    `Directory holding ${filesOf("performance")[0].name}.`,
  ),
});

/** One file's state as load_report describes it. */
interface DeviceLogState {
  file: string;
  /** Whether the bytes read decode as UTF-8 (only the sample's, when `sampled` is set). */
  decodes: boolean;
  has_data_rows: boolean;
  missing_columns: string[];
  zone_boundary_column: DeviceLogProbe["boundaryColumn"];
  problem?: string;
  /** Present when only the log's start and end were read: what was judged from them. */
  sampled?: LogSample;
}

/** How much of a large device log load_report read. */
interface LogSample {
  bytes_read: number;
  bytes: number;
  note: string;
}

/** What the profiler database holds. */
interface ProfilerDatabaseState {
  file: string;
  tables: string[];
  /** The ranks a multi-host report holds: the database tools read one at a time (default 0). */
  ranks?: number[];
  problem?: string;
}

/** The signposts a range can take. */
interface Signposts {
  signposts: SignpostName[];
  signpost_count: number;
  signposts_unlisted_too_long?: number;
}

/** One reason some tools cannot answer, and the tools it covers. */
export interface UnanswerableReason {
  reason: string;
  tools: string[];
}

/** The answer of `load_report`. */
export interface LoadReportAnswer extends Partial<Signposts> {
  handle: string;
  profiler_path: string | null;
  performance_path: string | null;
  capture: Record<string, string>;
  answerable: string[];
  unanswerable: string[];
  /**
   * Why each unanswerable tool cannot answer, stated once per distinct reason with the tools it
   * covers (in unanswerable's order): one missing file is often the reason for several tools.
   * How to capture a missing file is the note the reason names (in notes), not said here.
   */
  unanswerable_reasons: UnanswerableReason[];
  performance_csv: string | null;
  performance_csv_problem?: string;
  signposts_problem?: string;
  tt_perf_report_version?: string;
  device_log?: DeviceLogState | null;
  profiler_database?: ProfilerDatabaseState | null;
  cluster_descriptor?: { file: string; problem?: string } | null;
  /** Each file's architecture as written: the CSV's DEVICE ARCH values joined with commas. */
  arch: { performance_csv?: string; device_log?: string; cluster_descriptor?: string };
  device_count: {
    performance_csv?: number;
    profiler?: number;
    /** Distinct PCIe slots with rows in the bytes read (see device_log_sampled). */
    device_log?: number;
    /** Set when device_log was counted in a sample: bytes read of the log's bytes. */
    device_log_sampled?: { bytes_read: number; bytes: number };
  };
  /** The performance CSV's devices (DEVICE ID) with their rows; `device` reads one alone. */
  devices?: { device: number; rows: number }[];
  /**
   * The passes of a capture that repeats its operation sequence: the ranged tools read one
   * with `pass` (1-based).
   */
  passes?: Pass[];
  /** The last pass that does not look cold: the steady state to read. */
  warm_pass?: number | null;
  /** Rows of the profiler database's errors table, when it has one that can be read. */
  error_count?: number;
  /** Of them, those attached to an operation (the rest name none: see errors). */
  errors_attached_to_an_operation?: number;
  app_link_template?: string;
  app_link_note?: string;
  data_present_without_tools: Artifact[];
}

/** Builds `load_report`; it needs the other tools to say which of them can answer. */
export function loadReportTool(tools: () => readonly Tool[]): Tool {
  return defineTool({
    name: "load_report",
    title: "Load a report",
    summary: "Open a profiler and/or performance report directory: what it holds, which tools " +
      "can answer for it, and the handle they take.",
    description:
      "Call first: opens a profiler and/or performance report directory; returns the handle the " +
      "other tools take and which can answer.",
    input,
    async handler(args, ctx): Promise<LoadReportAnswer> {
      let report: Awaited<ReturnType<typeof loadAndRegister>>;
      try {
        report = await loadAndRegister(ctx.registry, args, ctx.roots, ctx.progress, {
          signal: ctx.signal,
        });
      } catch (e) {
        dropKept(); // a load refused after its probe leaves no copy of the database behind
        throw e;
      }
      const inventory = report.inventory;
      sayAssumedArchitecture(inventory, ctx.parts);
      // The database is the handle's from here, as the probe read it in (in slices, the loop
      // let in between two): never read again in one synchronous read of up to a gigabyte,
      // nor by the first call after the load.
      const call = { tool: "load_report", report, signal: ctx.signal };
      await prepareProfilerDb(call);
      const errors = profilerErrorCounts(call);
      if (errors !== null && errors.count > 0) {
        ctx.parts.next({
          tool: "errors",
          why: `the run recorded ${errors.count} error${errors.count > 1 ? "s" : ""}, ` +
            `${errors.attached} attached to an operation: where it stopped and why`,
          arguments: { handle: report.handle },
        });
      }
      const passes = performanceCsvUnavailable(inventory) === null
        ? reportPasses({ tool: "load_report", report })
        : null;
      if (passes) {
        ctx.parts.cut("passes", {
          total: passes.passes.length,
          returned: Math.min(passes.passes.length, MAX_LISTED_PASSES),
          reason: "limit",
          more: `pass takes 1–${passes.passes.length}; every pass holds ` +
            `${passes.passes[0]?.ops} operations, so pass N starts where N − 1 ends`,
        });
        ctx.parts.next({
          tool: "top_ops",
          why: passes.warm_pass === null
            ? "the costliest operations, as tt-perf-report ranks them"
            : `the costliest operations of pass ${passes.warm_pass}, the warm one`,
          arguments: {
            handle: report.handle,
            ...(passes.warm_pass === null ? {} : { pass: passes.warm_pass }),
          },
        });
      }
      return {
        ...describe(report.handle, inventory, tools(), ctx.appUrl ?? null, ctx.parts),
        ...(passes && passes.passes.length > 0
          ? { passes: passes.passes.slice(0, MAX_LISTED_PASSES), warm_pass: passes.warm_pass }
          : {}),
        ...(errors === null
          ? {}
          : { error_count: errors.count, errors_attached_to_an_operation: errors.attached }),
      };
    },
  });
}

/**
 * Which tools can answer for `inv`, with why the others cannot; a reason's capture recipe is
 * named as its note (in `parts`) rather than said in the reason.
 */
function listing(inv: Inventory, tools: readonly Tool[], parts: PartsWriter) {
  const answerable: string[] = [];
  const unanswerable: string[] = [];
  const reasons = new Map<string, string[]>();
  const read = new Set<Artifact>();
  for (const tool of tools) {
    if (!tool.cannotAnswer) continue;
    for (const a of tool.reads ?? []) read.add(a);
    const why = tool.cannotAnswer(inv);
    if (why === null) answerable.push(tool.name);
    else {
      unanswerable.push(tool.name);
      const covered = reasons.get(why);
      if (covered) covered.push(tool.name);
      else reasons.set(why, [tool.name]);
    }
  }
  return {
    answerable,
    unanswerable,
    unanswerable_reasons: [...reasons].map(([why, tools]) => {
      const { reason, notes } = recipesToNotes(why);
      parts.note(...notes);
      return { reason, tools };
    }),
    data_present_without_tools: artifactsPresent(inv).filter((a) => !read.has(a)),
  };
}

/** The CSV's signposts and device count, or why its signposts cannot be read. */
function performanceCsvFacts(
  perf: PerformanceSide,
): {
  signposts?: Signposts;
  devices?: number;
  deviceRows?: { device: number; rows: number }[];
  problem?: string;
  archValues?: string[];
} {
  if (!perf.csvRead?.ok || !perf.whole) return {};
  const archValues = deviceArchValues(perf.csvRead.table);
  try {
    return {
      signposts: signpostsOf(perf.csvRead.table),
      devices: countDevices(perf.csvRead.table),
      archValues,
      deviceRows: deviceRowCounts(perf.csvRead.table),
    };
  } catch (e) {
    return {
      problem: `the signposts of ${perf.csv?.name} cannot be read: ${(e as Error).message}`,
      archValues,
    };
  }
}

/**
 * Says when tt-perf-report will read the loaded CSV as an architecture it assumed, so every
 * roofline figure of the performance tools rests on it.
 */
function sayAssumedArchitecture(inv: Inventory, parts: PartsWriter): void {
  const perf = inv.performance;
  if (!perf?.csvRead?.ok || !perf.whole) return;
  const arch = reportArchitecture(perf.csvRead.table, perf.whole);
  if (arch.source !== "assumed") return;
  parts.assume("architecture", {
    assumed: arch.spec.name,
    why: `${arch.why}; top_ops' bound, DRAM and FLOPs figures rest on it`,
    override: "re-export the CSV with a tt-metal that writes DEVICE ARCH; lower_bounds takes arch",
  });
}

function deviceLogState(log: DeviceLogProbe): DeviceLogState {
  const s = log.sample;
  return {
    file: DEVICE_LOG_NAME,
    decodes: log.problem === null,
    has_data_rows: log.hasDataRow,
    missing_columns: log.missingColumns,
    zone_boundary_column: log.boundaryColumn,
    ...(log.problem === null ? {} : { problem: log.problem }),
    ...(s === null ? {} : {
      sampled: {
        bytes_read: s.head + s.tail,
        bytes: s.bytes,
        note: `load_report read the log's first ${mib(s.head)} and last ${mib(s.tail)} of ` +
          `${mib(s.bytes)}: decodes, device_count.device_log and whether counter rows and ` +
          "kernel zones occur are judged from them. zone_timings, core_spread and " +
          "perf_counters read every byte (refusing, with its line, one that is not UTF-8); " +
          "zone_timings' device_count counts every device.",
      },
    }),
  };
}

function profilerDatabaseState(db: ProfilerDbProbe): ProfilerDatabaseState {
  return {
    file: PROFILER_DB_NAME,
    tables: db.tables,
    ...(db.operationRanks === null ? {} : { ranks: db.operationRanks }),
    ...(db.problem === null ? {} : { problem: db.problem }),
  };
}

function describe(
  handle: string,
  inv: Inventory,
  tools: readonly Tool[],
  appUrl: string | null,
  parts: PartsWriter,
): LoadReportAnswer {
  const { answerable, unanswerable, unanswerable_reasons, data_present_without_tools } = listing(
    inv,
    tools,
    parts,
  );
  const perf = inv.performance;
  const prof = inv.profiler;
  const log = perf?.deviceLog ?? null;
  const cd = prof?.clusterDescriptor ?? null;
  const csvProblem = perf ? performanceCsvUnavailable(inv) : null;
  const csv = perf ? performanceCsvFacts(perf) : {};
  return {
    handle,
    profiler_path: prof?.dir ?? null,
    performance_path: perf?.dir ?? null,
    capture: log?.capture ?? {},
    answerable,
    unanswerable,
    unanswerable_reasons,
    performance_csv: perf?.csv?.name ?? null,
    ...(csvProblem ? { performance_csv_problem: csvProblem } : {}),
    ...csv.signposts,
    ...(csv.problem ? { signposts_problem: csv.problem } : {}),
    ...(perf
      ? {
        tt_perf_report_version: TT_PERF_REPORT_VERSION,
        device_log: log === null ? null : deviceLogState(log),
      }
      : {}),
    ...(prof
      ? {
        profiler_database: prof.db === null ? null : profilerDatabaseState(prof.db),
        cluster_descriptor: cd === null ? null : {
          file: cd.path.slice(cd.path.lastIndexOf("/") + 1),
          ...(cd.problem === null ? {} : { problem: cd.problem }),
        },
      }
      : {}),
    arch: {
      ...(csv.archValues?.length ? { performance_csv: csv.archValues.join(", ") } : {}),
      ...(log?.capture.ARCH ? { device_log: log.capture.ARCH } : {}),
      ...(cd?.arch ? { cluster_descriptor: cd.arch } : {}),
    },
    device_count: {
      ...(csv.devices !== undefined ? { performance_csv: csv.devices } : {}),
      ...(prof?.db?.deviceCount != null ? { profiler: prof.db.deviceCount } : {}),
      ...(log?.devices != null && log.devices > 0
        ? {
          device_log: log.devices,
          ...(log.sample === null ? {} : {
            device_log_sampled: {
              bytes_read: log.sample.head + log.sample.tail,
              bytes: log.sample.bytes,
            },
          }),
        }
        : {}),
    },
    ...(prof && appUrl
      ? {
        app_link_template: `${appUrl}/operations/{operation_id}`,
        app_link_note: "Replace {operation_id} with a profiler operation_id (never a performance " +
          "row's id) to open that operation's details in the TT-NN Visualizer at " + appUrl +
          ", which must have this profiler report open as its active report.",
      }
      : {}),
    ...(csv.deviceRows?.length ? { devices: csv.deviceRows } : {}),
    data_present_without_tools,
  };
}

/**
 * The signpost names a range can take, in the order tt-perf-report resolves them, with how
 * often each occurs: at most 20 listed, names longer than a range accepts counted apart.
 */
export function signpostsOf(table: CsvTable): Signposts {
  const all = listSignposts(table);
  const usable = all.filter((s) => signpostNameLength(s.name) <= MAX_SIGNPOST_NAME_LENGTH);
  return {
    signposts: usable.slice(0, MAX_LISTED_SIGNPOSTS),
    signpost_count: all.length,
    ...(usable.length < all.length
      ? { signposts_unlisted_too_long: all.length - usable.length }
      : {}),
  };
}
