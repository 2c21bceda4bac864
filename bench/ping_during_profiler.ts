/**
 * Responsiveness during long profiler-database calls (issue 30, item 3): starts the server
 * (production flags), loads generated databases — `--ops` operations (10^6 by default) in
 * operation_detail's shape, and `--graph-ops` operations (150,000 by default, about 360 MB of
 * captured graph) in l1_peak's — and while each of dram_fallbacks, operation_detail and l1_peak
 * runs on a fresh handle, pings every 100 ms; then the same call on another fresh handle is
 * cancelled after 1 s and a ping follows; last, 50 operation_detail calls go out at once with
 * pings among them. Prints one JSON line per case: the call's time, the slowest ping, and after
 * a cancel the next ping's round trip and whether the cancelled call answered anyway.
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

const dir = await Deno.makeTempDir({ prefix: "ping-profiler-" });
try {
  await Deno.mkdir(`${dir}/detail`);
  await Deno.mkdir(`${dir}/graph`);
  let t = performance.now();
  // Without graphs: with one per operation 10^6 operations are past the 1 GiB in-memory cap.
  writeDetailDb(`${dir}/detail/db.sqlite`, OPS, false);
  const { graphChars } = writeGraphDb(`${dir}/graph/db.sqlite`, GRAPH_OPS);
  console.error(`generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  const server = new McpProcess(repo);
  await server.initialize();
  const load = async (path: string) =>
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
      await new Promise((r) => setTimeout(r, 100));
    }
    return pings;
  };
  const cases: [string, string, Record<string, unknown>][] = [
    ["dram_fallbacks", `${dir}/detail`, { limit: 5 }],
    ["operation_detail", `${dir}/detail`, { operation_id: Math.floor(OPS / 2) }],
    ["l1_peak", `${dir}/graph`, {}],
  ];
  for (const [tool, path, args] of cases) {
    const handle = await load(path);
    t = performance.now();
    const call = server.request("tools/call", { name: tool, arguments: { handle, ...args } });
    const pings = await pingsDuring(call.done);
    const ms = performance.now() - t;
    const result = (await call.done).result as { isError?: boolean; content?: { text: string }[] };
    const again = await load(path);
    const cancelled = server.request("tools/call", {
      name: tool,
      arguments: { handle: again, ...args },
    });
    await new Promise((r) => setTimeout(r, 1000));
    server.notify("notifications/cancelled", { requestId: cancelled.id, reason: "bench" });
    const afterCancel = await ping();
    const answered = (await within(cancelled.done, 3000)) !== "timeout";
    console.log(JSON.stringify({
      tool,
      ops: tool === "l1_peak" ? GRAPH_OPS : OPS,
      graphMiB: tool === "l1_peak" ? Math.round(graphChars / 2 ** 20) : undefined,
      callMs: Math.round(ms),
      pings: pings.length,
      maxPingMs: Math.round(Math.max(...pings)),
      pingAfterCancelMs: Math.round(afterCancel),
      cancelledCallAnswered: answered,
      isError: result?.isError === true,
      answer: result?.content?.[0]?.text.slice(0, 160),
    }));
  }
  const handle = await load(`${dir}/detail`);
  const burst = Array.from({ length: 50 }, (_, i) =>
    server.request("tools/call", {
      name: "operation_detail",
      arguments: { handle, operation_id: 1 + Math.floor((i * OPS) / 50) },
    }).done);
  t = performance.now();
  const pings = await pingsDuring(Promise.all(burst));
  console.log(JSON.stringify({
    case: "50 operation_detail calls at once",
    ops: OPS,
    burstMs: Math.round(performance.now() - t),
    pings: pings.length,
    maxPingMs: Math.round(Math.max(...pings)),
  }));
  await server.kill();
} finally {
  await Deno.remove(dir, { recursive: true });
}
