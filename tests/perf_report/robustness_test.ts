import assert from "node:assert/strict";
import { generatePerfReport } from "../../src/perf_report/report.ts";
import { PerfReportInputError, SignpostRangeError } from "../../src/perf_report/exceptions.ts";
import type { CsvTable } from "../../src/perf_report/csv_table.ts";
import { fixture } from "./_fixtures.ts";
import { random } from "../../scripts/_random.ts";

const JUNK = [
  "",
  "nan",
  "NaN",
  "abc",
  "inf",
  "-inf",
  "-5",
  "0",
  "1e400",
  "1.5",
  "None",
  "  7 ",
  "[]",
];

function mutate(t: CsvTable, rnd: () => number, cells: number): CsvTable {
  const rows = t.rows.map((r) => [...r]);
  for (let k = 0; k < cells && rows.length > 0; k++) {
    const r = rows[Math.floor(rnd() * rows.length)];
    r[Math.floor(rnd() * r.length)] = JUNK[Math.floor(rnd() * JUNK.length)];
  }
  return { header: t.header, rows };
}

Deno.test("junk, blank and NaN cells never crash the report with an untyped error", () => {
  // Prevents a TypeError from a malformed cell; the tool either reports or names the problem.
  const rnd = random(20261129);
  const bases = ["signposts.csv", "host_ops_v1.csv", "two_devices.csv", "blanks_and_nans.csv"];
  let reported = 0;
  for (let i = 0; i < 400; i++) {
    const base = fixture(bases[i % bases.length]);
    const t = mutate(base, rnd, 1 + Math.floor(rnd() * 6));
    const options = i % 3 === 0 ? { startSignpost: "start" } : i % 3 === 1 ? {} : {
      mergeDevices: false,
      hideHostOps: true,
    };
    try {
      const r = generatePerfReport(t, options);
      for (const row of r.rows) {
        for (const v of [row.device_time, row.total_percent, row.dram, row.flops_percent]) {
          assert.ok(v === null || Number.isFinite(v), `non-finite value in row ${row.id}`);
        }
      }
      reported++;
    } catch (e) {
      assert.ok(
        e instanceof PerfReportInputError || e instanceof SignpostRangeError,
        `untyped error: ${(e as Error).stack}`,
      );
    }
  }
  assert.ok(reported > 200, `only ${reported} of 400 mutated CSVs were reported on`);
});
