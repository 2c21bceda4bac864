/**
 * The tools' answers against tt-perf-report's goldens (golden-6278e268/) on every real
 * capture in ../shared/captures/perf/: top_ops rows and totals against ops.json and the
 * print-signposts range files, op_breakdown groups against the stacked reports, and
 * load_report's signposts against signposts.json. Numbers are compared after the rounding
 * each answer documents (round3 = Python's round(x, 3); shares to three significant figures),
 * applied to the golden's exact value — so they are equal, not close.
 */
import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { captureNamesOrSkip, CAPTURES_DIR } from "../perf_report/_golden.ts";
import { round3, sig3 } from "../../src/kit/rounding.ts";
import { pythonSum } from "../../src/perf_report/summation.ts";

const PERF = CAPTURES_DIR;
const captures = captureNamesOrSkip();
const golden = (capture: string, file: string) => {
  try {
    return JSON.parse(Deno.readTextFileSync(`${PERF}${capture}/golden-6278e268/${file}`));
  } catch {
    return null;
  }
};
type Row = Record<string, unknown>;
const COLUMN = {
  device_time: "Device Time",
  op_to_op_gap: "Op-to-Op Gap",
  total_percent: "Total %",
  flops: "FLOPs",
  dram: "DRAM",
  cores: "Cores",
} as const;

for (const capture of captures.length > 0 ? captures : ["(none)"]) {
  Deno.test({
    name: `top_ops matches ops.json on ${capture}, every metric`,
    ignore: captures.length === 0,
    async fn() {
      // Prevents a tool answer drifting from the report tt-perf-report generates.
      const ops = golden(capture, "ops.json");
      assert.ok(ops, `${capture} has ops.json`);
      const byId = new Map<number, Row>(ops.rows.map((r: Row) => [r.ID as number, r]));
      const s = session();
      const { handle } = await s.call("load_report", { performance_path: `${PERF}${capture}` });
      // The device ops tt-perf-report flags as having an invalid duration (host ops and
      // signposts carry none by nature) are the ones the answer says it left out.
      const invalid = ops.rows.filter((r: Row) =>
        (r._internal as Row)["Invalid Device Duration"] === true &&
        !String(r["OP Code"]).includes("(torch)") && !String(r["OP Code"]).endsWith("(signpost)")
      ).length;
      for (const [metric, column] of Object.entries(COLUMN)) {
        const answer = await s.call("top_ops", { handle, by: metric, limit: 100 });
        assert.equal(answer.rows_without_device_time, invalid === 0 ? undefined : invalid);
        assert.equal(answer.op_count, ops.row_count);
        const expected = ops.rows
          .filter((r: Row) =>
            typeof r[column] === "number" && Number.isFinite(r[column])
          )
          .map((r: Row) => ({ id: r.ID as number, v: r[column] as number }))
          .sort((a: { v: number }, b: { v: number }) => b.v - a.v);
        const rows = answer.ops as Row[];
        // At most 100 rows; the size budget may cut them further, and then says so.
        const want = Math.min(100, expected.length);
        const cut = (answer.cut as Record<string, Row> | undefined)?.ops;
        if (rows.length < want) {
          assert.equal(cut?.reason, "size", `${metric} rows cut for size`);
          assert.equal(cut?.total_rows, expected.length, `${metric} rows counted`);
        } else assert.equal(rows.length, want, `${metric} row count`);
        for (const [i, row] of rows.entries()) {
          const g = byId.get(Number(row.id))!;
          assert.ok(g, `row ${row.id} is in the golden`);
          assert.equal(
            row[metric],
            metric === "cores" ? g[column] : round3(g[column] as number),
            `${metric} of ${row.id}`,
          );
          assert.equal(
            row[metric],
            metric === "cores" ? expected[i].v : round3(expected[i].v),
            `${metric} rank ${i}`,
          );
          assert.equal(row.op_code, g["OP Code"]);
          assert.equal(row.bound, g.Bound === "" ? null : g.Bound);
          assert.equal(row.bound_analysis, g["Bound Analysis"]);
          assert.equal(row.op_category, g["Op Category"]);
          assert.equal(row.device, g.Device === null ? null : String(g.Device));
          assert.equal(row.cores, g.Cores);
        }
        if (metric === "device_time" || metric === "op_to_op_gap" || metric === "total_percent") {
          const total = pythonSum(
            ops.rows.map((r: Row) => r[column]).filter((v: unknown) => typeof v === "number"),
          );
          assert.equal(answer[`${metric}_total`], round3(total), `${metric}_total`);
        } else {
          assert.equal(answer[`${metric}_total`], undefined, `no total for ${metric}`);
        }
      }
    },
  });

  Deno.test({
    name: `op_breakdown matches the stacked reports on ${capture}`,
    ignore: captures.length === 0,
    async fn() {
      // Prevents groups, counts, device time or shares that disagree with tt-perf-report's stacked report.
      const s = session();
      const { handle } = await s.call("load_report", { performance_path: `${PERF}${capture}` });
      for (
        const [groupBy, file] of [["op", "stacked_op.json"], [
          "op_category",
          "stacked_category.json",
        ]]
      ) {
        const stacked = golden(capture, file);
        assert.ok(stacked, `${capture} has ${file}`);
        const answer = await s.call("op_breakdown", { handle, group_by: groupBy, limit: 100 });
        const groups = answer.groups as Row[];
        assert.equal(answer.group_count, stacked.rows.length);
        const byKey = new Map<string, Row>(
          stacked.rows.map((r: Row) => [r["OP Code Joined"] as string, r]),
        );
        for (const g of groups) {
          const want = byKey.get(g.group as string);
          assert.ok(want, `${groupBy} group ${g.group} is in ${file}`);
          assert.equal(g.count, want.Ops_Count);
          assert.equal(g.device_time, round3(want.Device_Time_Sum_us as number));
          assert.equal(g.device_time_share_percent, sig3(want["%"] as number));
        }
        assert.equal(answer.rest, stacked.rows.length > 100 ? answer.rest : null);
        const shares = groups.reduce((t, g) => t + (g.device_time_share_percent as number ?? 0), 0);
        assert.ok(
          stacked.rows.length === 0 || Math.abs(shares - 100) < 0.5,
          `shares add up (${shares})`,
        );
      }
    },
  });

  Deno.test({
    name: `load_report's signposts match signposts.json on ${capture}`,
    ignore: captures.length === 0,
    async fn() {
      // Prevents a range bound the report holds from being missing from the list, or miscounted.
      const g = golden(capture, "signposts.json");
      const s = session();
      const a = await s.call("load_report", { performance_path: `${PERF}${capture}` });
      const names = g.counts as { name: string; count: number }[];
      const order = [...new Set(g.in_host_start_ts_order as string[])];
      const expected = order.map((name) => ({
        name,
        count: names.find((n) => n.name === name)!.count,
      }));
      assert.deepEqual(a.signposts, expected.slice(0, 20));
      assert.equal(a.signpost_count, expected.length);
      assert.equal(a.tt_perf_report_version, golden(capture, "meta.json").tool.version);
    },
  });
}

for (const capture of captures) {
  for (
    const file of [
      "range_distinct_pair_print_signposts.json",
      "range_same_name_pair_end_print_signposts.json",
    ]
  ) {
    const g = golden(capture, file);
    if (!g) {
      // Reported, not passed: this capture has no golden for this kind of range.
      Deno.test({
        name: `a ranged top_ops on ${capture}: no golden ${file}, not checked`,
        ignore: true,
        fn() {},
      });
      continue;
    }
    Deno.test(`a ranged top_ops reads the window tt-perf-report reads: ${capture} ${file}`, async () => {
      // Prevents a windowed answer that is the whole report cut down instead of the signposted run.
      const s = session();
      const { handle } = await s.call("load_report", { performance_path: `${PERF}${capture}` });
      const range = {
        start_signpost: g.call_kwargs.start_signpost,
        end_signpost: g.call_kwargs.end_signpost,
      };
      const answer = await s.call("top_ops", { handle, by: "total_percent", limit: 100, ...range });
      assert.equal(answer.op_count, g.row_count);
      const byId = new Map<number, Row>(g.rows.map((r: Row) => [r.ID as number, r]));
      for (const row of answer.ops as Row[]) {
        assert.equal(row.total_percent, round3(byId.get(Number(row.id))!["Total %"] as number));
      }
      const gap = await s.call("top_ops", { handle, by: "op_to_op_gap", limit: 100, ...range });
      const first = g.rows.find((r: Row) => !String(r["OP Code"]).endsWith("(signpost)"));
      assert.ok(
        !(gap.ops as Row[]).some((r) => Number(r.id) === first.ID),
        "the window's first op has no gap",
      );
      assert.deepEqual((answer.projection as Row).start_signpost, range.start_signpost);
    });
  }
}
