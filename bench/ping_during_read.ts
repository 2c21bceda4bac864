/**
 * Responsiveness while a device log is read: starts the server (production flags), loads a
 * generated capture of about `--bytes` (default 1 GB), asks zone_timings (which reads the
 * whole log) and, while it runs, pings every 100 ms; prints each ping's round trip, the read's
 * duration, and how long a cancelled read took to stop answering pings... as one JSON line.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env bench/ping_during_read.ts [--bytes 1e9]
 */
import { writeCapture } from "../scripts/make_device_log.ts";
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";

const i = Deno.args.indexOf("--bytes");
const targetBytes = i >= 0 ? Number(Deno.args[i + 1]) : 1e9;
const root = new URL("../", import.meta.url).pathname;
const csv = await Deno.readTextFile(`${root}fixtures/demo/performance/ops_perf_results_demo.csv`);
const dir = await Deno.makeTempDir({ prefix: "ping-bench-" });
try {
  const bytes = await writeCapture(dir, csv, { targetBytes, devices: 8 });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSION_FLAGS, `${root}mod.ts`],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  const waiting = new Map<number, (v: Record<string, unknown>) => void>();
  (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const m = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      }
    }
  })();
  let next = 1;
  const request = (method: string, params?: unknown) => {
    const id = next++;
    const p = new Promise<Record<string, unknown>>((r) => waiting.set(id, r));
    send({ jsonrpc: "2.0", id, method, params });
    return { id, done: p };
  };
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "0" },
  }).done;
  const timed = async (method: string, params?: unknown) => {
    const t = performance.now();
    const r = await request(method, params).done;
    return { ms: performance.now() - t, r };
  };
  const load = await timed("tools/call", {
    name: "load_report",
    arguments: { performance_path: dir },
  });
  const handle = ((load.r.result as Record<string, unknown>).structuredContent as {
    handle: string;
  }).handle;
  const pingsDuring = async (call: { done: Promise<unknown> }) => {
    let finished = false;
    call.done.then(() => (finished = true));
    const pings: number[] = [];
    while (!finished) {
      pings.push((await timed("ping")).ms);
      await new Promise((r) => setTimeout(r, 100));
    }
    return pings;
  };
  const t0 = performance.now();
  const read = request("tools/call", { name: "zone_timings", arguments: { handle } });
  const pings = await pingsDuring(read);
  const readMs = performance.now() - t0;
  // A second handle's read, cancelled after 1 s: how soon does the process stop working on it?
  const again = await timed("tools/call", {
    name: "load_report",
    arguments: { performance_path: dir },
  });
  const h2 = ((again.r.result as Record<string, unknown>).structuredContent as {
    handle: string;
  }).handle;
  const cancelled = request("tools/call", { name: "zone_timings", arguments: { handle: h2 } });
  await new Promise((r) => setTimeout(r, 1000));
  send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: cancelled.id } });
  const after = await timed("tools/call", {
    name: "zone_timings",
    arguments: { handle: h2, limit: 1 },
  });
  await writer.close();
  await child.status;
  const sorted = [...pings].sort((a, b) => a - b);
  console.log(JSON.stringify({
    log_bytes: bytes,
    load_report_ms: Math.round(load.ms),
    read_ms: Math.round(readMs),
    pings: pings.length,
    ping_median_ms: Math.round(sorted[sorted.length >> 1] * 10) / 10,
    ping_max_ms: Math.round(sorted[sorted.length - 1] * 10) / 10,
    read_after_cancel_ms: Math.round(after.ms),
  }));
} finally {
  await Deno.remove(dir, { recursive: true });
}
