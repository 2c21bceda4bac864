/**
 * The catalog's 14 `synthetic_reports`: complete tt-perf-report runs on small generated CSVs
 * (sub-devices, varying budgets, real overlap, id-range re-attribution, unsynchronised device
 * clocks, long and control-character ids). Every row field, the stacked report, the log and
 * the printed tracing-savings line are compared; numbers bit for bit.
 */

import assert from "node:assert/strict";
import { catalog, parseCallKwargs } from "./_catalog.ts";
import { checkStacked, comparableLog, optionsFromKwargs } from "./_checks.ts";
import { diffRecords, INTERNAL_FIELDS, ROW_FIELDS } from "./_golden.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { runTtPerfReport } from "../../src/perf_report/pipeline.ts";
import { pyFormatFixed } from "../../src/kit/python_format.ts";

const cat = catalog();
if (cat === null) {
  console.log("skipped: ../shared/captures not found");
  Deno.test({
    name: "synthetic tt-perf-report runs from the helper catalog",
    ignore: true,
    fn() {},
  });
}

for (const s of cat?.synthetic_reports ?? []) {
  // Each scenario pins one behaviour no real capture exercises; a regression fails here.
  Deno.test(`synthetic run '${s.scenario}' (${s.description}) reproduces tt-perf-report`, () => {
    assert.equal(s.tool_error, null);
    const report = runTtPerfReport(
      parseCsvTable(s.input_csv_text, `${s.scenario}.csv`),
      optionsFromKwargs(parseCallKwargs(s.call)),
    );
    const problems = diffRecords("rows", s.rows, report.rows, ROW_FIELDS, INTERNAL_FIELDS);
    problems.push(...checkStacked("stacked_op", s.stacked_op, report.stacked.op));
    if (JSON.stringify(report.messages) !== JSON.stringify(comparableLog(s.tool_log))) {
      problems.push(`log differs: ${JSON.stringify(report.messages)}`);
    }
    const high = report.advice_sections.high_op_to_op_gap;
    const printed = /Running with tracing could save (\S+) μs \((\S+)% of overall time\)/.exec(
      s.console,
    );
    assert.equal(high !== null, printed !== null, "high-gap section presence");
    if (high && printed) {
      problems.push(
        ...[
          [pyFormatFixed(high.max_gap_overhead_us, 0, false), printed[1]],
          [pyFormatFixed(high.percentage_saved, 1, false), printed[2]],
        ].filter(([a, b]) => a !== b).map(([a, b]) => `tracing savings ${a} vs printed ${b}`),
      );
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}
