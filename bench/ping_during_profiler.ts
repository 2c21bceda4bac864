/**
 * Responsiveness during long profiler-database calls (issue 30, item 3): starts the server
 * (production flags), loads generated databases — `--ops` operations (10^6 by default) in
 * operation_detail's shape, and `--graph-ops` operations (150,000 by default, about 380 MiB of
 * captured graph) in l1_peak's — and while each loads (load_report) and each of dram_fallbacks,
 * operation_detail and l1_peak runs on a fresh handle, pings every 100 ms. Then the same call
 * on a copy of the database (a report of its own, so nothing is shared with the first) is
 * cancelled halfway through the first call's time (at most 1 s), a ping follows, and the
 * server's CPU time over the next second says whether the work stopped. Last, 50
 * operation_detail calls go out at once with pings among them (the server stopped should it
 * grow past 8 GiB). Prints the load average, then one JSON line per case.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env bench/ping_during_profiler.ts \
 *     [--ops 1e6] [--graph-ops 150000] [--repo DIR]
 */
import { writeDetailDb, writeGraphDb } from "../scripts/make_large_profiler_db.ts";
import { McpProcess, within } from "./_mcp_process.ts";

const arg = (name: string, fallback: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
};
const OPS = Number(arg("--ops", "1e6"));
const GRAPH_OPS = Number(arg("--graph-ops", "150000"));
const repo = arg("--repo", new URL("..", import.meta.url).pathname);

/** `uptime`'s load averages (Deno reads /proc/loadavg only with every permission). */
const load = () =>
  new TextDecoder().decode(new Deno.Command("uptime").outputSync().stdout).trim()
    .replace(/.*load average: /, "");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A file of /proc read by `cat` (Deno reads another process's only with every permission). */
const proc = (path: string) =>
  new TextDecoder().decode(new Deno.Command("cat", { args: [path] }).outputSync().stdout);

/** The process's resident memory in MiB, or null once it is gone. */
function rssMiB(pid: number): number | null {
  const kb = /VmRSS:\s+(\d+)/.exec(proc(`/proc/${pid}/status`))?.[1];
  return kb === undefined ? null : Number(kb) / 1024;
}

/** The process's user and system CPU time in ms, from /proc. */
function cpuMs(pid: number): number {
  const fields = proc(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  // utime and stime are the 14th and 15th fields, the 12th and 13th after the name.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The slowest, the median and how many of `pings` took over 250 ms. */
function summary(pings: number[]) {
  const sorted = [...pings].sort((a, b) => a - b);
  return {
    pings: pings.length,
    maxPingMs: Math.round(sorted.at(-1) ?? NaN),
    medianPingMs: Math.round(sorted[Math.floor(sorted.length / 2)] ?? NaN),
    pingsOver250ms: pings.filter((p) => p > 250).length,
  };
}

const dir = await Deno.makeTempDir({ prefix: "ping-profiler-" });
try {
  for (const d of ["detail", "detail-copy", "graph", "graph-copy"]) {
    await Deno.mkdir(`${dir}/${d}`);
  }
  let t = performance.now();
  // Without graphs: with one per operation 10^6 operations are past the 1 GiB in-memory cap.
  writeDetailDb(`${dir}/detail/db.sqlite`, OPS, false);
  const { graphChars } = writeGraphDb(`${dir}/graph/db.sqlite`, GRAPH_OPS);
  // Copies are other files (another inode), so loads of them share nothing with the first.
  await Deno.copyFile(`${dir}/detail/db.sqlite`, `${dir}/detail-copy/db.sqlite`);
  await Deno.copyFile(`${dir}/graph/db.sqlite`, `${dir}/graph-copy/db.sqlite`);
  console.error(`generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  console.log(JSON.stringify({ loadAverageAtStart: load(), at: new Date().toISOString() }));
  const server = new McpProcess(repo);
  await server.initialize();
  const loadReport = async (path: string) =>
    (await server.call("load_report", { profiler_path: path })).structured.handle as string;
  const ping = async () => {
    const t0 = performance.now();
    await server.request("ping").done;
    return performance.now() - t0;
  };
  const pingsDuring = async (done: Promise<unknown>) => {
    let finished = false;
    done.then(() => (finished = true));
    const pings: number[] = [];
    while (!finished) {
      pings.push(await ping());
      await sleep(100);
    }
    return pings;
  };
  const cases: [string, string, Record<string, unknown>][] = [
    ["dram_fallbacks", `${dir}/detail`, { limit: 5 }],
    ["operation_detail", `${dir}/detail`, { operation_id: Math.floor(OPS / 2) }],
    ["l1_peak", `${dir}/graph`, {}],
  ];
  const loaded = new Map<string, string>();
  for (const path of [`${dir}/detail`, `${dir}/graph`]) {
    t = performance.now();
    const load = loadReport(path);
    const pings = await pingsDuring(load);
    loaded.set(path, await load);
    console.log(JSON.stringify({
      tool: "load_report",
      dbMiB: Math.round((await Deno.stat(`${path}/db.sqlite`)).size / 2 ** 20),
      callMs: Math.round(performance.now() - t),
      ...summary(pings),
    }));
  }
  for (const [tool, path, args] of cases) {
    // A handle of its own for each case after the first on a file (calls share nothing).
    const handle = loaded.get(path) ?? await loadReport(path);
    loaded.delete(path);
    t = performance.now();
    const call = server.request("tools/call", { name: tool, arguments: { handle, ...args } });
    const pings = await pingsDuring(call.done);
    const ms = performance.now() - t;
    const result = (await call.done).result as { isError?: boolean; content?: { text: string }[] };
    // The same call on the copy, cancelled halfway through the first call's time.
    const copy = await loadReport(`${path}-copy`);
    const cancelled = server.request("tools/call", {
      name: tool,
      arguments: { handle: copy, ...args },
    });
    const cancelAt = Math.min(1000, Math.round(ms / 2));
    const answeredBefore = (await within(cancelled.done, cancelAt)) !== "timeout";
    server.notify("notifications/cancelled", { requestId: cancelled.id, reason: "bench" });
    const afterCancel = await ping();
    const cpu = cpuMs(server.pid);
    await sleep(1000);
    const cpuAfter = cpuMs(server.pid) - cpu;
    const answered = (await within(cancelled.done, 2000)) !== "timeout";
    console.log(JSON.stringify({
      tool,
      ops: tool === "l1_peak" ? GRAPH_OPS : OPS,
      graphMiB: tool === "l1_peak" ? Math.round(graphChars / 2 ** 20) : undefined,
      callMs: Math.round(ms),
      ...summary(pings),
      cancelAtMs: cancelAt,
      answeredBeforeCancel: answeredBefore,
      pingAfterCancelMs: Math.round(afterCancel),
      serverCpuMsInTheSecondAfterCancel: cpuAfter,
      cancelledCallAnswered: answered,
      isError: result?.isError === true,
      answer: result?.content?.[0]?.text.slice(0, 120),
    }));
  }
  const handle = await loadReport(`${dir}/detail`);
  let answered = 0;
  const burst = Array.from({ length: 50 }, (_, i) =>
    server.request("tools/call", {
      name: "operation_detail",
      arguments: { handle, operation_id: 1 + Math.floor((i * OPS) / 50) },
    }).done.then(() => answered++));
  t = performance.now();
  const pings: number[] = [];
  let over = false;
  Promise.all(burst).then(() => (over = true));
  // A server that grows past this is stopped rather than let the machine run out of memory.
  const stopPastMiB = 8192;
  let stoppedAtMiB: number | null = null;
  while (!over && performance.now() - t < 600_000) {
    const one = await within(ping(), 1000);
    pings.push(one === "timeout" ? 1000 : one);
    const rss = rssMiB(server.pid);
    if (rss === null) break;
    if (rss > stopPastMiB) {
      stoppedAtMiB = Math.round(rss);
      break;
    }
    await sleep(100);
  }
  console.log(JSON.stringify({
    case: "50 operation_detail calls at once",
    ops: OPS,
    burstMs: Math.round(performance.now() - t),
    answered,
    serverAlive: rssMiB(server.pid) !== null,
    rssMiB: Math.round(rssMiB(server.pid) ?? NaN),
    stoppedAtMiB,
    // A ping not answered within 1 s counts as 1,000 ms (and `pingsOver1s` counts them).
    ...summary(pings),
    pingsOver1s: pings.filter((p) => p >= 1000).length,
  }));
  console.log(JSON.stringify({ loadAverageAtEnd: load(), at: new Date().toISOString() }));
  await server.kill();
} finally {
  await Deno.remove(dir, { recursive: true });
}
