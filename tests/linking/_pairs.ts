/**
 * Test support for the link: copies of the demo capture — a profiler database and a
 * performance CSV generated from one operation sequence (scripts/make_demo_fixture.ts) —
 * changed in one stated way, loaded in-process with both reports.
 */
import { DatabaseSync } from "node:sqlite";
import { copyDemo, tempDir } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";

/** A lifecycle node of a captured graph. */
export function scope(node_type: "function_start" | "function_end", name: string, extra = {}) {
  return { node_type, params: { name, ...extra } };
}

/** SQL replacing one operation's captured graph with these nodes. */
export function graphOf(operationId: number, nodes: unknown[]): string {
  const text = JSON.stringify(nodes).replaceAll("'", "''");
  return `UPDATE captured_graph SET captured_graph = '${text}' WHERE operation_id = ${operationId};`;
}

/**
 * The demo pair in a temporary directory, its database changed by `sql` (then `db`) and its CSV replaced
 * by `csv` when given, loaded with both paths (or only `sides`). Removed when disposed.
 */
export async function pair(
  edit: {
    sql?: string;
    db?: (db: DatabaseSync) => void;
    csv?: string;
    sides?: ("performance" | "profiler")[];
    /** Runs on the copied directories before loading. */
    before?: (paths: { performance: string; profiler: string }) => Promise<void>;
  } = {},
) {
  const dir = await tempDir();
  const paths = await copyDemo(dir.path);
  if (edit.sql || edit.db) {
    const db = new DatabaseSync(`${paths.profiler}/db.sqlite`);
    if (edit.sql) db.exec(edit.sql);
    edit.db?.(db);
    db.close();
  }
  if (edit.csv !== undefined) {
    await Deno.writeTextFile(`${paths.performance}/ops_perf_results_demo.csv`, edit.csv);
  }
  await edit.before?.(paths);
  const s = session();
  const sides = edit.sides ?? ["performance", "profiler"];
  const loaded = await s.call("load_report", {
    ...(sides.includes("performance") ? { performance_path: paths.performance } : {}),
    ...(sides.includes("profiler") ? { profiler_path: paths.profiler } : {}),
  });
  const handle = loaded.handle as string;
  return {
    paths,
    handle,
    call: (tool: string, args: Record<string, unknown> = {}) => s.call(tool, { handle, ...args }),
    /** The loaded report behind the handle, for calling the session's readers directly. */
    report: () => s.registry.get(handle),
    refusal: (tool: string, args: Record<string, unknown> = {}) =>
      s.refusal(tool, { handle, ...args }),
    /** top_ops's operation_link over every row (limit 100). */
    async link() {
      const a = await s.call("top_ops", { handle, limit: 100 });
      return {
        link: a.operation_link as Record<string, unknown>,
        ids: new Map((a.ops as Record<string, unknown>[]).map((r) => [r.id, r.operation_id])),
      };
    },
    async [Symbol.asyncDispose]() {
      await dir[Symbol.asyncDispose]();
    },
  };
}
