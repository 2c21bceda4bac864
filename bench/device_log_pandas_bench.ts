/**
 * A whole `call <tool>` on a device log against pandas reading the same log, interleaved in
 * the same rounds (ours, then pandas, each round), each a fresh process under /usr/bin/time:
 * our wall time and peak RSS — start-up, load_report (the performance CSV parsed and reported
 * on, the log's sample probed) and the tool's full read included — against pandas'
 * `read_csv(log, skiprows=1)` time (the preamble skipped) and its whole process.
 *
 *   deno run --allow-read --allow-run --allow-env bench/device_log_pandas_bench.ts \
 *     --dir <capture dir> [--tools zone_timings,core_spread] [--rounds 5] \
 *     [--python '["chroot","/work/trixie","python3"]'] [--repo <another checkout>]
 *
 * The capture directory holds `profile_log_device.csv` and its `ops_perf_results_*.csv`
 * (`scripts/make_device_log.ts` writes both); with `--python` naming a chroot, the log must be
 * at the same path inside it. The ratio is pandas' read_csv time ÷ our whole process, taken
 * round by round. `--repo` runs another checkout's `mod.ts` (an earlier commit, for a before
 * and after). Figures are this machine's at that hour; copy them into bench/RESULTS.md.
 */
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";

const arg = (name: string, fallback: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : fallback;
};
const dir = arg("dir", "");
if (dir === "") {
  console.error("usage: device_log_pandas_bench.ts --dir <capture dir> [options]");
  Deno.exit(2);
}
const tools = arg("tools", "zone_timings,core_spread").split(",");
const rounds = Number(arg("rounds", "5"));
const python = JSON.parse(arg("python", '["python3"]')) as string[];
const repo = arg("repo", new URL("../", import.meta.url).pathname).replace(/\/?$/, "/");
const log = `${dir}/profile_log_device.csv`;
const PANDAS = "import pandas,time,sys; t=time.perf_counter(); " +
  "pandas.read_csv(sys.argv[1], skiprows=1); print(time.perf_counter()-t)";

/** Runs a command under /usr/bin/time: its stdout, wall seconds and peak RSS (MiB). */
async function measured(cmd: string[]): Promise<{ out: string; wallS: number; rssMiB: number }> {
  const result = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "TIME %e %M", ...cmd],
    stdout: "piped",
    stderr: "piped",
    env: { DENO_NO_UPDATE_CHECK: "1" },
  }).output();
  const err = new TextDecoder().decode(result.stderr);
  if (result.code !== 0) throw new Error(`${cmd.join(" ")} failed: ${err}`);
  const m = /TIME ([\d.]+) (\d+)/.exec(err)!;
  return {
    out: new TextDecoder().decode(result.stdout),
    wallS: Number(m[1]),
    rssMiB: Number(m[2]) / 1024,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[], digits: number) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${
    Math.max(...xs).toFixed(digits)
  })`;

const ours = (tool: string) => [
  Deno.execPath(),
  "run",
  ...PERMISSION_FLAGS,
  `${repo}mod.ts`,
  "call",
  tool,
  "--performance",
  dir,
  "--json",
];
const pandas = [...python, "-c", PANDAS, log];

const rows: string[] = [];
// Warm the page cache and Deno's module cache once.
await measured(ours(tools[0]));
for (const tool of tools) {
  const oursS: number[] = [];
  const oursRss: number[] = [];
  const readCsvS: number[] = [];
  const pandasS: number[] = [];
  const ratio: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const a = await measured(ours(tool));
    const b = await measured(pandas);
    const readCsv = Number(b.out.trim());
    oursS.push(a.wallS);
    oursRss.push(a.rssMiB);
    readCsvS.push(readCsv);
    pandasS.push(b.wallS);
    ratio.push(readCsv / a.wallS);
  }
  rows.push(
    `| \`call ${tool}\` | ${spread(oursS, 2)} | ${spread(oursRss, 0)} | ${spread(readCsvS, 1)} | ` +
      `${spread(pandasS, 1)} | ${spread(ratio, 1)} |`,
  );
}
const { size } = await Deno.stat(log);
console.log(
  [
    `${(size / 1e9).toFixed(3)} GB log, ${rounds} interleaved rounds, medians (min–max), seconds.`,
    "",
    "| ours | whole process s | peak RSS MiB | pandas read_csv s | pandas whole process s | " +
    "read_csv ÷ ours, per round |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n"),
);
