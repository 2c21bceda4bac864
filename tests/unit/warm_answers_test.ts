/**
 * A session keeps what it derives from a report (rankings, groups, bounds, caveats) and answers
 * later calls from it: each answer must be the one a fresh session gives, whatever was asked
 * before it.
 */
import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { generatePerfReport } from "../../src/perf_report/report.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";

type Answer = Record<string, unknown>;

/** The calls asked in turn: every metric, grouping and filter these tools keep figures for. */
const CALLS: [string, Answer][] = [
  ["top_ops", {}],
  ["top_ops", { by: "op_to_op_gap", limit: 3 }],
  ["top_ops", { by: "cores", order: "ascending" }],
  ["top_ops", { by: "total_percent", op_code: "Matmul" }],
  ["top_ops", { include: ["config"], limit: 2 }],
  ["op_breakdown", {}],
  ["op_breakdown", { group_by: "op_category", by: "op_to_op_gap" }],
  ["op_breakdown", { by: "total_percent", limit: 1 }],
  ["lower_bounds", {}],
  ["lower_bounds", { group_by: "op", limit: 4 }],
  ["lower_bounds", { op_code: "Matmul" }],
  ["lower_bounds", { arch: "blackhole" }],
  ["lower_bounds", { dram_bandwidth_gbps: 100, group_by: "op" }],
];

/** The demo CSV three times over, so that rows tie on every figure. */
const TIED = editCsv(() => {}, { repeat: 3 });

Deno.test("each call answers as a fresh session would, after any calls before it", async () => {
  // Prevents a figure kept from an earlier call (a ranking, a grouping, a bound) answering a
  // later call that asked for something else, or for the same thing on another report.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "a/ops_perf_results_a.csv": TIED });
  const warm = session();
  const { handle } = await warm.load(`${dir.path}/a`);
  const answered: Answer[] = [];
  for (const round of [0, 1]) {
    for (const [k, [tool, args]] of CALLS.entries()) {
      const got = await warm.call(tool, { handle, ...args });
      if (round === 0) answered.push(got);
      else assert.deepEqual(got, answered[k], `${tool} ${JSON.stringify(args)}, asked again`);
    }
  }
  for (const [k, [tool, args]] of CALLS.entries()) {
    const fresh = session();
    const own = await fresh.load(`${dir.path}/a`);
    const got = await fresh.call(tool, { handle: own.handle, ...args });
    assert.deepEqual({ ...got, handle }, answered[k], `${tool} ${JSON.stringify(args)}`);
  }
});

Deno.test("top_ops ranks as a stable sort of every row would, ties in report order", async () => {
  // Prevents the ranking kept to the first rows it lists from reordering rows that tie.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "ops_perf_results_t.csv": TIED });
  const s = session();
  const { handle } = await s.load(dir.path);
  const rows = generatePerfReport(parseCsvTable(TIED, "t.csv")).rows;
  for (const [by, order] of [["device_time", 1], ["cores", -1], ["op_to_op_gap", 1]] as const) {
    const value = (r: Answer) => r[by] as number | null;
    const expected = rows
      .filter((r) => value(r as unknown as Answer) !== null)
      .sort((a, b) => order * (value(b as unknown as Answer)! - value(a as unknown as Answer)!))
      .slice(0, 7)
      .map((r) => String(r.id));
    const got = await s.call("top_ops", {
      handle,
      by,
      limit: 7,
      ...(order === -1 ? { order: "ascending" } : {}),
    });
    assert.deepEqual((got.ops as Answer[]).map((o) => o.id), expected, by);
    assert.ok(new Set(rows.map((r) => value(r as unknown as Answer))).size < rows.length);
  }
});
