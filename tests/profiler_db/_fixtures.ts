/**
 * Test support for the profiler-database tools: the generated fixtures
 * (scripts/make_profiler_fixtures.ts), loaded in-process, and copies of them changed by SQL
 * for the cases a test needs beyond what a fixture holds.
 */
import { DatabaseSync } from "node:sqlite";
import { session } from "../_support/in_process.ts";
import { tempDir } from "../_support/dirs.ts";
import { openReadOnly, probeProfilerDb } from "../../src/profiler_db/probe.ts";
import { Schema } from "../../src/profiler_db/schema.ts";
import type { ProfilerDb } from "../../src/profiler_db/connection.ts";
import type { Database } from "../../src/profiler_db/database.ts";

/** The committed fixtures. */
export const PROFILER_FIXTURES = new URL("../../fixtures/profiler/", import.meta.url).pathname;

/** The fixture names, as the generator writes them. */
export type FixtureName =
  | "w1_python_writer"
  | "v2_1_tensor_size"
  | "v2_mesh_two_devices"
  | "ranked_two_hosts"
  | "mixed_rank_operations_only"
  | "w1_native_traces"
  | "v2_no_traces_no_geometry"
  | "w1_truncated_operations_only"
  | "v2_1_failed_run";

/**
 * The database in `dir` opened as the database tools open it, for calling their modules
 * directly; `wrap` may stand in front of the connection (to count what is read).
 */
export async function openFixtureDb(
  dir: string,
  wrap: (db: DatabaseSync) => Database = (db) => db,
): Promise<ProfilerDb & { [Symbol.dispose](): void }> {
  const probe = (await probeProfilerDb(`${dir}/db.sqlite`))!;
  const db = openReadOnly(probe.path);
  return {
    db: wrap(db),
    schema: new Schema(probe.columns),
    memo: new Map(),
    file: { path: probe.path, identity: probe.identity },
    [Symbol.dispose]: () => db.close(),
  };
}

/** A session with one fixture loaded. */
export async function loaded(name: FixtureName | string) {
  const s = session();
  const path = name.startsWith("/") ? name : `${PROFILER_FIXTURES}${name}`;
  const inventory = await s.call("load_report", { profiler_path: path });
  const handle = inventory.handle as string;
  return {
    inventory,
    handle,
    call: (tool: string, args: Record<string, unknown> = {}) => s.call(tool, { handle, ...args }),
    refusal: (tool: string, args: Record<string, unknown> = {}) =>
      s.refusal(tool, { handle, ...args }),
  };
}

/**
 * A copy of a fixture in a temporary directory with `sql` applied to its database — a
 * generated capture changed in one stated way. Removed when disposed.
 */
export async function derived(name: FixtureName, sql: string) {
  const dir = await tempDir();
  for await (const e of Deno.readDir(`${PROFILER_FIXTURES}${name}`)) {
    await Deno.copyFile(`${PROFILER_FIXTURES}${name}/${e.name}`, `${dir.path}/${e.name}`);
  }
  const db = new DatabaseSync(`${dir.path}/db.sqlite`);
  db.exec(sql);
  db.close();
  return dir;
}

/** Inserts `count` operations named by `name(i)` after the fixture's last id. */
export function moreOperations(count: number, name: (i: number) => string): string {
  const rows = Array.from({ length: count }, (_, i) => `(${1000 + i}, '${name(i)}', 0.001)`);
  return `INSERT INTO operations VALUES ${rows.join(", ")};`;
}
