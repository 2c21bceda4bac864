/**
 * One measured read for `bench/device_log_bench.ts`, run in its own process so its peak RSS
 * is its own. Prints one JSON line.
 *
 *   deno run --allow-read bench/_device_log_read.ts <capture dir> zones|spans [slices]
 *   deno run --allow-read --allow-env bench/_device_log_read.ts <capture dir> tools
 */
import { probeDeviceLog } from "../src/device_log/probe.ts";
import { readDeviceLog } from "../src/device_log/read.ts";
import { chooseOpsCsv, readOpsCsv } from "../src/perf_report/probe.ts";
import { callTool } from "../src/protocol/tool_call.ts";
import { loadTools } from "../src/tools/registry.ts";

/** Every tool, as the server loads them. */
const CATALOG = await loadTools();
import { HandleRegistry } from "../src/session/handles.ts";
import { Roots } from "../src/kit/roots.ts";

const [dir, mode, slicesArg] = Deno.args;
const slices = slicesArg === undefined ? undefined : Number(slicesArg);

if (mode === "tools") {
  const tools = CATALOG;
  const ctx = {
    registry: new HandleRegistry(),
    roots: Roots.any(),
    signal: new AbortController().signal,
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const t = performance.now();
    const r = await callTool(tools.find((x) => x.name === name)!, args, ctx);
    if (r.outcome !== "ok") throw new Error(`${name}: ${JSON.stringify(r.result)}`);
    return {
      ms: performance.now() - t,
      answer: r.result.structuredContent as Record<string, unknown>,
    };
  };
  const load = await call("load_report", { performance_path: dir });
  const handle = load.answer.handle;
  const first = await call("core_spread", { handle, limit: 5 });
  const second = await call("core_spread", { handle, limit: 5 });
  const zones = await call("zone_timings", { handle });
  const timeline = await call("device_timeline", { handle });
  const utilisation = await call("core_utilisation", { handle });
  // A fresh handle: device_timeline reads the log itself, as core_spread did above.
  const again = await call("load_report", { performance_path: dir });
  const timelineFirst = await call("device_timeline", { handle: again.answer.handle });
  console.log(JSON.stringify({
    load_report_ms: load.ms,
    core_spread_first_ms: first.ms,
    core_spread_second_ms: second.ms,
    zone_timings_after_ms: zones.ms,
    device_timeline_after_ms: timeline.ms,
    core_utilisation_whole_log_after_ms: utilisation.ms,
    device_timeline_first_ms: timelineFirst.ms,
  }));
} else {
  const probe = (await probeDeviceLog(`${dir}/profile_log_device.csv`))!;
  let table = null;
  if (mode === "spans") {
    const read = await readOpsCsv((await chooseOpsCsv(dir))!);
    if (!read.ok) throw new Error(read.problem);
    table = read.table;
  }
  const t = performance.now();
  const s = await readDeviceLog(probe, table, { slices });
  const ms = performance.now() - t;
  console.log(JSON.stringify({ ms, bytes: s.bytes, rows: s.dataRows }));
}
