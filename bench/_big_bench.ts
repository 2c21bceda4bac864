/**
 * Bench support: issue 33's large input. A CSV made from a real one repeated `copies` times
 * (`_big_csv.ts`; wh_clip_encoder_2 × 40 is 110 MB, 74,880 rows), then
 *  1. `mod.ts call top_ops` on it as a whole process, with the server's flags, and the real
 *     tool's console run beside it in the same rounds when it is given: wall time, peak
 *     resident memory (VmHWM, read from /proc while the process runs) ÷ the file's size, and
 *     the tool's time ÷ ours, round by round;
 *  2. one server session: load_report on its directory, then top_ops, op_breakdown and
 *     lower_bounds, each called twice (the first call after the load, then again).
 * @module
 */
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";
import { writeBigCsv } from "./_big_csv.ts";
import { McpProcess } from "./_mcp_process.ts";

/** What the large-input bench is given. */
export interface BigBenchOptions {
  /** The repository whose mod.ts is timed. */
  root: string;
  /** The CSV repeated. */
  source: string;
  copies: number;
  /** Rounds of the whole-process runs (each: ours, then the tool's). */
  rounds: number;
  /** Where the CSV is written (a new temporary directory when null; removed after). */
  dir: string | null;
  /** The real tool's command, its arguments before the CSV's path; null: not run. */
  tool: string[] | null;
  /** The tool runs in a chroot at this root: the CSV's path is given to it without it. */
  toolRoot: string | null;
}

/** One whole-process run: wall ms and peak resident MiB (null where /proc could not tell). */
interface Run {
  ms: number;
  peakMiB: number | null;
}

/** Runs a command to its end, its output discarded, reading its VmHWM as it runs. */
async function measured(program: string, args: string[]): Promise<Run> {
  const t0 = performance.now();
  const child = new Deno.Command(program, { args, stdout: "null", stderr: "piped" }).spawn();
  let peak: number | null = null;
  const read = () => {
    try {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      if (Number.isFinite(kb)) peak = Math.max(peak ?? 0, kb / 1024);
    } catch { /* gone, or no /proc */ }
  };
  const timer = setInterval(read, 5);
  const stderr = new Response(child.stderr).text();
  const { code } = await child.status;
  const ms = performance.now() - t0;
  clearInterval(timer);
  if (code !== 0) throw new Error(`${program} ${args.join(" ")} failed: ${await stderr}`);
  await stderr;
  return { ms, peakMiB: peak };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f0 = (x: number) => x.toFixed(0);

/** Runs the large-input bench; its markdown. */
export async function bigBench(o: BigBenchOptions): Promise<string> {
  const dir = o.dir ?? await Deno.makeTempDir({ prefix: "ttnn_big_csv_" });
  await Deno.mkdir(dir, { recursive: true });
  const csv = `${dir}/ops_perf_results_x${o.copies}.csv`;
  try {
    const bytes = await writeBigCsv(o.source, csv, o.copies);
    const fileMiB = bytes / 1048576;
    const ours = () =>
      measured(Deno.execPath(), [
        "run",
        ...PERMISSION_FLAGS,
        `${o.root}mod.ts`,
        "call",
        "top_ops",
        "--performance",
        dir,
      ]);
    const toolPath = o.toolRoot !== null && csv.startsWith(o.toolRoot)
      ? csv.slice(o.toolRoot.replace(/\/$/, "").length)
      : csv;
    const tool = (command: string[]) =>
      measured(command[0], [
        ...command.slice(1),
        toolPath,
        "--ignore-signposts",
        "--no-color",
        "--group-by",
        "op",
      ]);
    await ours(); // Deno's module cache warmed, and the file's pages read once
    const a: Run[] = [];
    const b: Run[] = [];
    for (let r = 0; r < o.rounds; r++) {
      a.push(await ours());
      if (o.tool) b.push(await tool(o.tool));
    }
    const warm = await session(o.root, dir);
    const lines = [
      `Input: ${o.source.split("/").pop()} × ${o.copies}, ${bytes} bytes (${
        fileMiB.toFixed(1)
      } MiB), written to ${csv}.`,
      "",
      "| round | ours wall | ours peak RSS | RSS ÷ file |" +
      (o.tool ? " tool wall | tool peak RSS | × (tool ÷ ours) |" : ""),
      "|---:|---:|---:|---:|" + (o.tool ? "---:|---:|---:|" : ""),
    ];
    const mib = (x: number | null) => x === null ? "–" : `${f0(x)} MiB`;
    a.forEach((run, i) => {
      const t = b[i];
      lines.push(
        `| ${i + 1} | ${f0(run.ms)} ms | ${mib(run.peakMiB)} | ${
          run.peakMiB === null ? "–" : (run.peakMiB / fileMiB).toFixed(2)
        } |` + (t ? ` ${f0(t.ms)} ms | ${mib(t.peakMiB)} | ${(t.ms / run.ms).toFixed(1)} |` : ""),
      );
    });
    if (a.length > 0) {
      const peaks = a.map((r) => r.peakMiB).filter((p) => p !== null);
      lines.push(
        `| median | ${f0(median(a.map((r) => r.ms)))} ms | ${
          peaks.length ? mib(median(peaks)) : "–"
        } | ${peaks.length ? (median(peaks) / fileMiB).toFixed(2) : "–"} |` +
          (b.length
            ? ` ${f0(median(b.map((r) => r.ms)))} ms | ${
              mib(median(b.map((r) => r.peakMiB ?? NaN)))
            } | ${median(b.map((t, i) => t.ms / a[i].ms)).toFixed(1)} (median of the rounds') |`
            : ""),
      );
    }
    lines.push(
      "",
      `One server session: load_report ${f0(warm.loadMs)} ms, then each tool twice ` +
        `(server peak RSS ${mib(warm.peakMiB)}):`,
      "",
      "| tool | first call after the load | second call |",
      "|---|---:|---:|",
      ...warm.calls.map((c) =>
        `| ${c.tool} | ${c.first.toFixed(1)} ms | ${c.second.toFixed(1)} ms |`
      ),
    );
    return lines.join("\n");
  } finally {
    await Deno.remove(csv).catch(() => {});
    if (o.dir === null) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The session's times: load_report, then each tool's first and second call. */
async function session(root: string, dir: string) {
  const server = new McpProcess(root);
  try {
    await server.initialize();
    const timed = async (tool: string, args: Record<string, unknown>) => {
      const t0 = performance.now();
      const r = await server.call(tool, args);
      const ms = performance.now() - t0;
      if (r.isError) throw new Error(`${tool} failed: ${r.text}`);
      return { ms, r };
    };
    const load = await timed("load_report", { performance_path: dir });
    const handle = load.r.structured.handle as string;
    const calls = [];
    for (const tool of ["top_ops", "op_breakdown", "lower_bounds"]) {
      const first = (await timed(tool, { handle })).ms;
      const second = (await timed(tool, { handle })).ms;
      calls.push({ tool, first, second });
    }
    return { loadMs: load.ms, calls, peakMiB: server.memory()?.peak ?? null };
  } finally {
    await server.kill();
  }
}
