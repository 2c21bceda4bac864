// Times report generation in this process: read + parse + generate, the first (cold) run and
// the median of warm repeats. Prints one JSON line. Usage: _generate.ts CSV [repeats]
import { parseCsvTable } from "../src/perf_report/csv_table.ts";
import { generatePerfReport } from "../src/perf_report/report.ts";

const [path, repeatArg] = Deno.args;
const repeats = Number(repeatArg ?? 7);
const times: number[] = [];
let rows = 0;
for (let i = 0; i <= repeats; i++) {
  const t0 = performance.now();
  const text = new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(path));
  const report = generatePerfReport(parseCsvTable(text, path));
  times.push(performance.now() - t0);
  rows = report.rows.length;
}
const warm = times.slice(1).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    rows,
    cold_ms: times[0],
    warm_median_ms: warm[Math.floor(warm.length / 2)],
    warm_min_ms: warm[0],
  }),
);
