/**
 * Which reports a one-shot call loads before it runs its tool, from `--performance DIR` /
 * `--profiler DIR` (or the JSON form's `performance_path` / `profiler_path`): one for a tool
 * taking a `handle`, two — before and after — for one taking `handle_a` and `handle_b`, none
 * for `load_report`, which takes the paths itself. A call naming no report is refused saying
 * which flag to pass and what the directory holds.
 *
 * @module
 */
import type { Tool } from "../tools/tool.ts";
import { filesOf } from "../session/report_files.ts";

/** The directories the command line named. */
export interface ReportDirs {
  performance: readonly string[];
  profiler: readonly string[];
}

/** One report to load, and the argument its handle fills. */
export interface ReportLoad {
  arg: string;
  paths: { performance_path?: unknown; profiler_path?: unknown };
}

/** The loads a call needs and the tool's arguments without the paths, or why not. */
export type ReportPlan =
  | { ok: true; args: Record<string, unknown>; loads: ReportLoad[] }
  | { ok: false; message: string };

/**
 * The flag (or flags) naming the report `tool` reads, with what the directory holds.
 *
 * @example
 * ```ts
 * import { missingReport } from "./call_reports.ts";
 * const m = missingReport({ name: "find_operations", reads: ["profiler_db"] });
 * if (!m.includes("pass --profiler DIR")) throw new Error(m);
 * ```
 */
export function missingReport(tool: Pick<Tool, "name" | "reads">): string {
  const reads: readonly string[] = tool.reads ?? [];
  const wants: string[] = [];
  const [csv, ...logs] = filesOf("performance");
  const [db, ...besideDb] = filesOf("profiler");
  if ([csv, ...logs].some((k) => reads.includes(k.key))) {
    wants.push(
      `--performance DIR (the folder holding ${csv.cliName}` +
        logs.filter((k) => reads.includes(k.key)).map((k) => ` and ${k.cliName}`).join("") + ")",
    );
  }
  if ([db, ...besideDb].some((k) => reads.includes(k.key))) {
    wants.push(`--profiler DIR (the TT-NN profiler report folder holding ${db.cliName})`);
  }
  return `${tool.name} needs a report to read: pass ${
    wants.length > 0 ? wants.join(" or ") : "--performance DIR or --profiler DIR"
  } (see call ${tool.name} --help)`;
}

/**
 * Plans the loads of a call of `tool`, whose schema takes `reportArgs` (from `handle`,
 * `handle_a`, `handle_b`, `performance_path`, `profiler_path`), given `args` and `dirs`. A
 * directory flag wins over the JSON form's path, as it always has.
 *
 * @example
 * ```ts
 * import { planReports } from "./call_reports.ts";
 * const p = planReports({ name: "top_ops", reads: ["performance_csv"] }, ["handle"], { limit: 3 }, {
 *   performance: ["/r/p"],
 *   profiler: [],
 * });
 * if (!p.ok || p.loads[0].arg !== "handle" || p.loads[0].paths.performance_path !== "/r/p") {
 *   throw new Error();
 * }
 * ```
 */
export function planReports(
  tool: Pick<Tool, "name" | "reads">,
  reportArgs: readonly string[],
  args: Record<string, unknown>,
  dirs: ReportDirs,
): ReportPlan {
  const { performance_path, profiler_path, ...rest } = args;
  if (reportArgs.includes("handle_a")) return planPair(tool, rest, dirs);
  if (dirs.performance.length > 1 || dirs.profiler.length > 1) {
    return {
      ok: false,
      message: `${tool.name} reads one report: give --performance and --profiler at most once each`,
    };
  }
  const paths = {
    ...(dirs.performance[0] ?? performance_path) !== undefined
      ? { performance_path: dirs.performance[0] ?? performance_path }
      : {},
    ...(dirs.profiler[0] ?? profiler_path) !== undefined
      ? { profiler_path: dirs.profiler[0] ?? profiler_path }
      : {},
  };
  if (reportArgs.includes("performance_path")) {
    return { ok: true, args: { ...rest, ...paths }, loads: [] };
  }
  if (!reportArgs.includes("handle")) {
    return Object.keys(paths).length > 0
      ? { ok: false, message: `${tool.name} reads no report: leave out --performance/--profiler` }
      : { ok: true, args: rest, loads: [] };
  }
  if (Object.keys(paths).length > 0) {
    return { ok: true, args: rest, loads: [{ arg: "handle", paths }] };
  }
  if (rest.handle !== undefined) return { ok: true, args: rest, loads: [] };
  return { ok: false, message: missingReport(tool) };
}

/** The two reports a before/after tool compares. */
function planPair(
  tool: Pick<Tool, "name" | "reads">,
  args: Record<string, unknown>,
  dirs: ReportDirs,
): ReportPlan {
  if (dirs.performance.length === 0 && dirs.profiler.length === 0 && args.handle_a !== undefined) {
    return { ok: true, args, loads: [] };
  }
  const pairs = dirs.performance.length === 2 &&
    (dirs.profiler.length === 0 || dirs.profiler.length === 2);
  if (!pairs) {
    return {
      ok: false,
      message: `${tool.name} compares two reports: pass --performance BEFORE_DIR --performance ` +
        `AFTER_DIR (each a folder holding ${
          filesOf("performance")[0].cliName
        }; --profiler twice, in the same ` +
        `order, to add their profiler reports)`,
    };
  }
  const load = (i: number, arg: string): ReportLoad => ({
    arg,
    paths: {
      performance_path: dirs.performance[i],
      ...(dirs.profiler.length === 2 ? { profiler_path: dirs.profiler[i] } : {}),
    },
  });
  return { ok: true, args, loads: [load(0, "handle_a"), load(1, "handle_b")] };
}
