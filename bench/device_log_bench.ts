/**
 * The device-log reader at scale. Generates a capture of about `--bytes` (default 1 GB) from
 * the demo's ops CSV into a temporary directory — 8 devices, trace replays, `--meta` bytes of
 * meta data per row (0: ~95-byte rows; 300: ~400-byte rows, the shape of real captures) —
 * never committed and deleted afterwards, then times, in fresh processes interleaved over
 * `--rounds` rounds, side by side:
 *
 *  - `cat file` to /dev/null (the I/O floor, page cache warm);
 *  - the plain byte scanner of the toolchain notes (`bench/_plain_scan.ts`), the yardstick
 *    the one-slice read is divided by, round by round, since this machine's speed drifts;
 *  - zone aggregation in one slice (this thread only) and with the default slicing (one slice
 *    per core), and zones plus every row's kernel spans (core_spread's read);
 *  - peak RSS of each (from /usr/bin/time);
 *  - load_report, the first core_spread (which reads the log), a second core_spread and a
 *    zone_timings after it (both from memory).
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env bench/device_log_bench.ts \
 *     [--bytes 1e9] [--meta 0] [--rounds 3]
 *
 * No pandas here (the machine has none), so the pandas anchors of issue 5 are quoted, not
 * re-measured. Figures are this machine's; copy them into bench/RESULTS.md with the date.
 */
import { writeCapture } from "../scripts/make_device_log.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
const targetBytes = arg("bytes", 1e9);
const metaBytes = arg("meta", 0);
const rounds = arg("rounds", 3);
const root = new URL("../", import.meta.url).pathname;
const reader = `${root}bench/_device_log_read.ts`;
const plainScanner = `${root}bench/_plain_scan.ts`;
const demoCsv = await Deno.readTextFile(
  `${root}fixtures/demo/performance/ops_perf_results_demo.csv`,
);

/** Runs a command under /usr/bin/time; returns its stdout, wall seconds and peak RSS (MiB). */
async function measured(
  cmd: string[],
  discard = false,
): Promise<{ out: string; wallS: number; rssMiB: number }> {
  const result = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "TIME %e %M", ...cmd],
    stdout: discard ? "null" : "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(result.stderr);
  if (result.code !== 0) throw new Error(`${cmd.join(" ")} failed: ${err}`);
  const m = /TIME ([\d.]+) (\d+)/.exec(err)!;
  return {
    out: discard ? "" : new TextDecoder().decode(result.stdout),
    wallS: Number(m[1]),
    rssMiB: Number(m[2]) / 1024,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = await Deno.makeTempDir({ prefix: "device-log-bench-" });
try {
  const t0 = performance.now();
  const bytes = await writeCapture(dir, demoCsv, { targetBytes, devices: 8, metaBytes });
  const genS = (performance.now() - t0) / 1000;
  const log = `${dir}/profile_log_device.csv`;
  const rows = new Map<string, { mbs: number[]; rss: number[] }>();
  const record = (name: string, mbs: number, rss: number) => {
    const r = rows.get(name) ?? { mbs: [], rss: [] };
    r.mbs.push(mbs);
    r.rss.push(rss);
    rows.set(name, r);
  };
  const deno = [Deno.execPath(), "run", "--allow-read"];
  const tools: Record<string, number>[] = [];
  // Per round: the one-slice read's speed over the plain scanner's, both on this machine then.
  const oneSliceRatio: number[] = [];
  // Warm the page cache and Deno's module cache once.
  await measured(["cat", log], true);
  await measured([...deno, reader, dir, "zones", "1"]);
  for (let round = 0; round < rounds; round++) {
    const cat = await measured(["cat", log], true);
    record("cat file > /dev/null", bytes / 1e6 / cat.wallS, cat.rssMiB);
    const plain = await measured([...deno, plainScanner, log]);
    const plainMbs = bytes / 1e6 / (JSON.parse(plain.out).ms / 1000);
    record("plain byte scanner (the issue's 250 MB/s anchor, one core)", plainMbs, plain.rssMiB);
    for (
      const [name, mode, slices] of [
        ["zones, 1 slice (one core)", "zones", "1"],
        ["zones, default slicing", "zones", undefined],
        ["zones + kernel spans, default slicing", "spans", undefined],
      ] as const
    ) {
      const r = await measured([...deno, reader, dir, mode, ...(slices ? [slices] : [])]);
      const { ms } = JSON.parse(r.out);
      record(name, bytes / 1e6 / (ms / 1000), r.rssMiB);
      if (slices === "1") oneSliceRatio.push(bytes / 1e6 / (ms / 1000) / plainMbs);
    }
    const t = await measured([...deno, "--allow-env", reader, dir, "tools"]);
    tools.push({ ...JSON.parse(t.out), rss_mib: t.rssMiB });
  }
  const lines = [
    `Generated ${
      (bytes / 1e9).toFixed(2)
    } GB (${metaBytes} bytes of meta data per row, 8 devices) ` +
    `in ${genS.toFixed(1)} s; ${rounds} interleaved rounds, medians (min–max); ` +
    `${navigator.hardwareConcurrency} cores.`,
    "",
    "| read | MB/s | peak RSS MiB |",
    "|---|---:|---:|",
    ...[...rows].map(([name, r]) =>
      `| ${name} | ${median(r.mbs).toFixed(0)} (${Math.min(...r.mbs).toFixed(0)}–${
        Math.max(...r.mbs).toFixed(0)
      }) | ${median(r.rss).toFixed(0)} |`
    ),
    "",
    `Zones in one slice ÷ the plain byte scanner, same round: ${
      median(oneSliceRatio).toFixed(2)
    } (${Math.min(...oneSliceRatio).toFixed(2)}–${Math.max(...oneSliceRatio).toFixed(2)}).`,
    "",
    "| tool call (in one process) | median ms |",
    "|---|---:|",
    ...Object.keys(tools[0]).map((k) =>
      `| ${k} | ${median(tools.map((t) => t[k])).toFixed(k === "rss_mib" ? 0 : 1)} |`
    ),
  ];
  console.log(lines.join("\n"));
} finally {
  await Deno.remove(dir, { recursive: true });
}
