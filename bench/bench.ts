/**
 * `deno task bench [--runs N]`: for each capture in ../shared/captures/perf/, times
 *  1. the whole process — `mod.ts call top_ops` cold, with the server's permission flags —
 *     over N interleaved rounds (median, min, max), and
 *  2. report generation in-process (read + parse + generate; the cold first run and the
 *     median of warm repeats),
 * side by side with tt-perf-report's figures recorded in ../shared/captures/perf/timing.json.
 *
 * `--tt-perf-report '<JSON array: the command that runs the real tool>'` also times the real
 * tool here, in the same rounds, with the recorded figures' console command (`<command> CSV
 * --ignore-signposts --no-color --group-by op`, stdout discarded): the speed-up then compares
 * two runs of one machine in the same minutes, which a VM whose speed drifts by a third over the
 * day needs. E.g. `deno task bench --tt-perf-report '["python3", "-m",
 * "tt_perf_report.perf_report"]'`. `--only NAME` times one capture.
 * Then issue 33's large input (see `_big_bench.ts`): wh_clip_encoder_2's CSV repeated
 * `--big-copies N` times (40: 110 MB) into a new temporary directory (or `--big-dir DIR`),
 * `--big-rounds N` (3; 0 skips it) whole-process rounds of ours beside the real tool when it is
 * given (with `--tool-root ROOT` when it runs in a chroot there: it is then given the CSV's path
 * under ROOT; write the CSV inside ROOT with `--big-dir`), its peak memory ÷ the file, and one
 * server session's first and second calls after load_report. `--big-only` runs only that.
 * Then, with `--log-dir DIR` (a capture holding a device log, e.g. `scripts/make_device_log.ts
 * --bytes 1.1e9`'s), the four device-log tools each beside pandas' `read_csv` of the same log
 * (`device_log_pandas_bench.ts`), `--log-rounds N` (3) rounds, pandas run by `--pandas '<JSON
 * array: the Python command>'` (`["python3"]`; in a chroot, the log at the same path there);
 * `--log-only` runs only that.
 * Prints a markdown table and writes it to bench/last-run.md. Figures are this machine's; copy
 * them into bench/RESULTS.md with the machine and date. It runs with --allow-all: Deno reads
 * another process's /proc files (its peak memory) only with every permission.
 */
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";
import { bigBench } from "./_big_bench.ts";

const root = new URL("../", import.meta.url).pathname;
const perfDir = new URL("../../shared/captures/perf/", import.meta.url).pathname;
const runsArg = Deno.args.indexOf("--runs");
const runs = runsArg >= 0 ? Number(Deno.args[runsArg + 1]) : 7;
const ttprArg = Deno.args.indexOf("--tt-perf-report");
const ttprCommand: string[] | null = ttprArg >= 0 ? JSON.parse(Deno.args[ttprArg + 1]) : null;

let captures: string[];
try {
  captures = [...Deno.readDirSync(perfDir)].filter((e) => e.isDirectory).map((e) => e.name).sort();
} catch {
  console.error("skipped: ../shared/captures not found");
  Deno.exit(0);
}
// `--only NAME`: one capture (more rounds of it in the same time).
const onlyArg = Deno.args.indexOf("--only");
if (onlyArg >= 0) captures = captures.filter((c) => c === Deno.args[onlyArg + 1]);
const option = (name: string): string | null => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1] : null;
};
const bigRounds = Number(option("--big-rounds") ?? 3);
const bigOnly = Deno.args.includes("--big-only");
const bigSource = `${perfDir}wh_clip_encoder_2/ops_perf_results_wh_clip_encoder_2.csv`;
/** What timing.json records of one capture. */
interface Recorded {
  console: { wall_s_median: number };
  in_process: { console: { s_median: number } };
}
const timing = JSON.parse(Deno.readTextFileSync(`${perfDir}timing.json`)).captures as Record<
  string,
  Recorded
>;
const csvOf = (name: string) =>
  `${perfDir}${name}/` +
  [...Deno.readDirSync(`${perfDir}${name}`)].find((e) => e.name.startsWith("ops_perf_results"))!
    .name;

async function timeCall(name: string): Promise<number> {
  const args = [
    "run",
    ...PERMISSION_FLAGS,
    `${root}mod.ts`,
    "call",
    "top_ops",
    JSON.stringify({ performance_path: `${perfDir}${name}`, limit: 10 }),
  ];
  const t0 = performance.now();
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`call top_ops failed on ${name}`);
  return ms;
}

/** Wall ms of the real tool's console run on a capture (the recorded figures' command). */
async function timeTool(command: string[], name: string): Promise<number> {
  const [program, ...rest] = command;
  const t0 = performance.now();
  const { code, stderr } = await new Deno.Command(program, {
    args: [...rest, csvOf(name), "--ignore-signposts", "--no-color", "--group-by", "op"],
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  if (code !== 0) {
    throw new Error(`tt-perf-report failed on ${name}: ${new TextDecoder().decode(stderr)}`);
  }
  return ms;
}

// `--log-only`: only the device-log tools against pandas.
const logOnly = Deno.args.includes("--log-only");
if (bigOnly || logOnly) captures = [];
// Warm Deno's module cache once so every timed run is a cold process on a warm disk.
if (captures.length > 0) await timeCall(captures[0]);
if (ttprCommand && captures.length > 0) await timeTool(ttprCommand, captures[0]);
const whole = new Map<string, number[]>(captures.map((c) => [c, []]));
const tool = new Map<string, number[]>(captures.map((c) => [c, []]));
for (let round = 0; round < runs; round++) {
  for (const c of captures) {
    whole.get(c)!.push(await timeCall(c));
    if (ttprCommand) tool.get(c)!.push(await timeTool(ttprCommand, c));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const lines = [
  `| capture | rows | whole process median (min–max) | tt-perf-report console | × | ${
    ttprCommand
      ? "tt-perf-report console here, same rounds | × (median of the rounds' own ×) | "
      : ""
  }generation cold / warm median | tt-perf-report in-process | × |`,
  `|---|---:|---:|---:|---:|${ttprCommand ? "---:|---:|" : ""}---:|---:|---:|`,
];
for (const c of captures) {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", `${root}bench/_generate.ts`, csvOf(c), "15"],
    stderr: "inherit",
  }).output();
  const gen = JSON.parse(new TextDecoder().decode(stdout));
  const w = whole.get(c)!;
  const theirs = timing[c];
  const consoleMs = theirs ? theirs.console.wall_s_median * 1000 : NaN;
  const inProcMs = theirs ? theirs.in_process.console.s_median * 1000 : NaN;
  const f = (x: number) => x.toFixed(0);
  lines.push(
    `| ${c} | ${gen.rows} | ${f(median(w))} ms (${f(Math.min(...w))}–${f(Math.max(...w))}) | ${
      theirs ? f(consoleMs) + " ms" : "–"
    } | ${theirs ? (consoleMs / median(w)).toFixed(1) : "–"} | ${here(c, w)}${f(gen.cold_ms)} / ${
      gen.warm_median_ms.toFixed(1)
    } ms | ${theirs ? inProcMs.toFixed(1) + " ms" : "–"} | ${
      theirs ? (inProcMs / gen.warm_median_ms).toFixed(1) : "–"
    } |`,
  );
}
/** The real tool's median here and our speed-up over it, when it was timed. */
function here(c: string, w: number[]): string {
  if (!ttprCommand) return "";
  const t = tool.get(c)!;
  return `${t.length ? median(t).toFixed(0) : "–"} ms (${Math.min(...t).toFixed(0)}–${
    Math.max(...t).toFixed(0)
  }) | ${(median(t) / median(w)).toFixed(1)} (${median(t.map((x, i) => x / w[i])).toFixed(1)}) | `;
}
let table = captures.length > 0 ? lines.join("\n") : "";
if ((bigRounds > 0 || bigOnly) && !logOnly) {
  const big = await bigBench({
    root,
    source: bigSource,
    copies: Number(option("--big-copies") ?? 40),
    rounds: bigRounds,
    dir: option("--big-dir"),
    tool: ttprCommand,
    toolRoot: option("--tool-root"),
  });
  table = table === "" ? big : `${table}\n\n${big}`;
}
const logDir = option("--log-dir");
if (logDir !== null) {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      `${root}bench/device_log_pandas_bench.ts`,
      "--dir",
      logDir,
      "--tools",
      "zone_timings,core_spread,device_timeline,core_utilisation",
      "--rounds",
      option("--log-rounds") ?? "3",
      "--python",
      option("--pandas") ?? '["python3"]',
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`the device-log bench on ${logDir} failed (exit ${code})`);
  const logTable = new TextDecoder().decode(stdout).trim();
  table = table === "" ? logTable : `${table}\n\n${logTable}`;
}
console.log(table);
await Deno.writeTextFile(
  `${root}bench/last-run.md`,
  `Runs: ${runs} per capture, ${bigRounds} of the large input, ${
    new Date().toISOString()
  }\n\n${table}\n`,
);
