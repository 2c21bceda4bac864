/**
 * The adversarial run of issue 25, measured: each attack against a server checkout (`--repo`,
 * default this one) through its stdio interface under the production flags, printing one JSON
 * line per attack (time, memory, what came back). Used for the before/after figures of
 * bench/RESULTS.md: run it once on the old tree, once on this one.
 *
 *   deno run -A bench/adversarial_bench.ts [--repo DIR] [--only a,b] [--timeout SECONDS]
 *
 * Attacks: yaml-keys, yaml-big, yaml-devzero, fifo-log, fifo-yaml, race-csv, race-log, race-db,
 * loads-csv, profiler-fds, zone-names, same-size, null-id, text-numbers, all-text, backslash,
 * cycles-2e64.
 *
 * @module
 */
import { McpProcess, within } from "./_mcp_process.ts";
import {
  bigPerfCsv,
  copyDemoProfiler,
  descriptorOfBytes,
  descriptorWithKeys,
  logWithCycle,
  perfCsvWithSignpost,
  writeAllTextDb,
  writeNamedDb,
  writeZoneNamesLog,
} from "../scripts/make_adversarial_inputs.ts";

const flag = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const REPO = flag("--repo") ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const ONLY = flag("--only")?.split(",") ?? null;
const TIMEOUT_MS = Number(flag("--timeout") ?? 60) * 1000;
const DEMO = new URL("../fixtures/demo/", import.meta.url).pathname;

type Result = Record<string, unknown>;

async function server(options: { shell?: string; args?: string[] } = {}): Promise<McpProcess> {
  const s = new McpProcess(REPO, options);
  await s.initialize();
  return s;
}

/** Times a load_report, pinging every 100 ms meanwhile; the slowest ping's round trip. */
async function timedLoad(s: McpProcess, args: Record<string, unknown>): Promise<Result> {
  const t0 = performance.now();
  let done = false;
  const call = s.call("load_report", args).finally(() => (done = true));
  let slowestPing = 0;
  const pings = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await within(s.request("ping").done, TIMEOUT_MS);
      slowestPing = Math.max(slowestPing, performance.now() - t);
      if (r === "timeout") return;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const r = await within(call, TIMEOUT_MS);
  const ms = performance.now() - t0;
  const memory = s.memory();
  if (r === "timeout") {
    return {
      outcome: `no answer in ${TIMEOUT_MS / 1000} s`,
      rss_mib: memory?.rss,
      peak_mib: memory?.peak,
    };
  }
  await within(pings, 5000);
  return {
    ms: Math.round(ms),
    slowest_ping_ms: Math.round(slowestPing),
    peak_mib: memory ? Math.round(memory.peak) : "process gone",
    outcome: r.isError ? `refused: ${r.text.slice(0, 200)}` : "answered",
    descriptor: (r.structured.cluster_descriptor as Result | undefined) ?? undefined,
  };
}

async function profilerDir(tmp: string, descriptor: string | null): Promise<string> {
  const dir = `${tmp}/profiler`;
  await copyDemoProfiler(dir);
  await Deno.remove(`${dir}/cluster_descriptor.yaml`);
  if (descriptor !== null) await Deno.writeTextFile(`${dir}/cluster_descriptor.yaml`, descriptor);
  return dir;
}

const ATTACKS: Record<string, (tmp: string) => Promise<Result>> = {
  async "yaml-keys"(tmp) {
    const out: Result = {};
    for (const keys of [10_000, 40_000, 150_000]) {
      const dir = await profilerDir(`${tmp}/${keys}`, descriptorWithKeys(keys));
      const s = await server();
      out[`${keys} keys (${(await Deno.stat(`${dir}/cluster_descriptor.yaml`)).size} B)`] =
        await timedLoad(s, { profiler_path: dir });
      await s.kill();
    }
    return out;
  },
  async "yaml-big"(tmp) {
    const dir = await profilerDir(tmp, descriptorOfBytes(25e6));
    const s = await server();
    const r = await timedLoad(s, { profiler_path: dir });
    await s.kill();
    return { bytes: (await Deno.stat(`${dir}/cluster_descriptor.yaml`)).size, ...r };
  },
  async "yaml-devzero"(tmp) {
    const dir = await profilerDir(tmp, null);
    await Deno.symlink("/dev/zero", `${dir}/cluster_descriptor.yaml`);
    const s = await server();
    const r = await timedLoad(s, { profiler_path: dir });
    await s.kill();
    return r;
  },
  async "fifo-log"(tmp) {
    const dir = `${tmp}/perf`;
    await Deno.mkdir(dir);
    await Deno.copyFile(
      `${DEMO}performance/ops_perf_results_demo.csv`,
      `${dir}/ops_perf_results_demo.csv`,
    );
    await new Deno.Command("mkfifo", { args: [`${dir}/profile_log_device.csv`] }).output();
    const s = await server();
    const r = await timedLoad(s, { performance_path: dir });
    await s.kill();
    return r;
  },
  async "fifo-yaml"(tmp) {
    const dir = await profilerDir(tmp, null);
    await new Deno.Command("mkfifo", { args: [`${dir}/cluster_descriptor.yaml`] }).output();
    const s = await server();
    const r = await timedLoad(s, { profiler_path: dir });
    await s.kill();
    return r;
  },
  "race-csv": (tmp) => race(tmp, "csv"),
  "race-log": (tmp) => race(tmp, "log"),
  "race-db": (tmp) => race(tmp, "db"),
  async "loads-csv"(tmp) {
    const dir = `${tmp}/perf`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(`${dir}/ops_perf_results_big.csv`, await bigPerfCsv(2.7e6));
    const s = await server();
    const at: Result = {};
    const t0 = performance.now();
    for (let i = 1; i <= 1000; i++) {
      const r = await within(s.call("load_report", { performance_path: dir }), TIMEOUT_MS);
      if (r === "timeout" || r.isError) {
        at.failed_at = { load: i, why: r === "timeout" ? "timeout" : r.text.slice(0, 200) };
        break;
      }
      if ([100, 250, 500, 750, 1000].includes(i)) {
        at[`rss_mib_after_${i}`] = Math.round(s.memory()?.rss ?? 0);
      }
    }
    at.seconds = Math.round((performance.now() - t0) / 100) / 10;
    at.peak_mib = Math.round(s.memory()?.peak ?? 0);
    await s.kill();
    return at;
  },
  async "profiler-fds"(tmp) {
    const dirs: string[] = [];
    for (let i = 0; i < 300; i++) {
      dirs.push(`${tmp}/p${i}`);
      await copyDemoProfiler(dirs[i]);
    }
    const s = await server({ shell: "ulimit -n 256" });
    let failed = 0;
    let first: Result | null = null;
    for (const [i, dir] of dirs.entries()) {
      const load = await s.call("load_report", { profiler_path: dir });
      const ops = load.isError
        ? load
        : await s.call("find_operations", { handle: load.structured.handle });
      if (ops.isError) {
        failed++;
        first ??= { at: i + 1, why: ops.text.slice(0, 160) };
      }
    }
    await s.kill();
    return { handles: dirs.length, failed, first_failure: first };
  },
  async "zone-names"(tmp) {
    const out: Result = {};
    for (const names of [100_000, 1_000_000]) {
      const dir = `${tmp}/z${names}`;
      await Deno.mkdir(dir);
      const bytes = await writeZoneNamesLog(dir, names);
      const s = await server();
      const load = await s.call("load_report", { performance_path: dir });
      const t0 = performance.now();
      let done = false;
      const call = s.call("zone_timings", { handle: load.structured.handle }).finally(
        () => (done = true),
      );
      let slowest = 0;
      while (!done) {
        const t = performance.now();
        if ((await within(s.request("ping").done, TIMEOUT_MS)) === "timeout") break;
        slowest = Math.max(slowest, performance.now() - t);
        await new Promise((r) => setTimeout(r, 100));
      }
      const r = await within(call, TIMEOUT_MS);
      out[`${names} names (${bytes} B)`] = r === "timeout"
        ? { outcome: `no answer in ${TIMEOUT_MS / 1000} s` }
        : {
          ms: Math.round(performance.now() - t0),
          slowest_ping_ms: Math.round(slowest),
          outcome: r.isError ? `refused: ${r.text.slice(0, 160)}` : "answered",
        };
      await s.kill();
    }
    return out;
  },
  async "same-size"(tmp) {
    const dir = `${tmp}/perf`;
    await Deno.mkdir(dir);
    const csv = `${dir}/ops_perf_results_demo.csv`;
    await Deno.copyFile(`${DEMO}performance/ops_perf_results_demo.csv`, csv);
    const s = await server();
    const load = await s.call("load_report", { performance_path: dir });
    const before = await Deno.stat(csv);
    await new Promise((r) => setTimeout(r, 1100)); // a later second than the file's ctime
    const text = await Deno.readTextFile(csv);
    await Deno.writeTextFile(csv, text.replace("Embeddings", "Embeddingz"));
    await Deno.utime(csv, before.atime!, before.mtime!);
    const r = await s.call("top_ops", { handle: load.structured.handle });
    await s.kill();
    return {
      outcome: r.isError ? `refused: ${r.text.slice(0, 160)}` : "served the rewritten file",
    };
  },
  async "null-id"(tmp) {
    const dir = `${tmp}/p`;
    await Deno.mkdir(dir);
    writeAllTextDb(`${dir}/db.sqlite`);
    const s = await server();
    const load = await s.call("load_report", { profiler_path: dir });
    const r = await s.call("find_operations", {
      handle: load.structured.handle,
      name_contains: "orphan",
    });
    await s.kill();
    return { operations: (r.structured.operations ?? r.text) as unknown };
  },
  async "text-numbers"(tmp) {
    const dir = `${tmp}/p`;
    await Deno.mkdir(dir);
    writeAllTextDb(`${dir}/db.sqlite`, true);
    const s = await server();
    const load = await s.call("load_report", { profiler_path: dir });
    const r = await s.call("memory_profile", { handle: load.structured.handle });
    await s.kill();
    return { outcome: r.isError ? `error: ${JSON.stringify(r.text)}` : "answered" };
  },
  async "all-text"(tmp) {
    const dir = `${tmp}/p`;
    await Deno.mkdir(dir);
    writeAllTextDb(`${dir}/db.sqlite`);
    const s = await server();
    const load = await s.call("load_report", { profiler_path: dir });
    const found = await s.call("find_operations", { handle: load.structured.handle });
    const ids = ((found.structured.operations ?? []) as { operation_id: number }[]).map((o) =>
      o.operation_id
    );
    const out: Result = { listed: ids };
    for (const id of ids.filter((i) => i !== null)) {
      const d = await s.call("operation_detail", {
        handle: load.structured.handle,
        operation_id: id,
      });
      out[`detail ${id}`] = d.isError ? `refused: ${d.text.slice(0, 120)}` : "answered";
    }
    await s.kill();
    return out;
  },
  async "backslash"(tmp) {
    const dir = `${tmp}/back\\slash`;
    await Deno.mkdir(dir);
    await Deno.copyFile(
      `${DEMO}performance/ops_perf_results_demo.csv`,
      `${dir}/ops_perf_results_demo.csv`,
    );
    const s = await server();
    const r = await s.call("load_report", { performance_path: dir });
    await s.kill();
    return {
      outcome: r.isError
        ? `refused: ${r.text.slice(0, 160)}`
        : `answered, performance_path ${r.structured.performance_path}`,
    };
  },
  async "cycles-2e64"(tmp) {
    const dir = `${tmp}/perf`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(`${dir}/profile_log_device.csv`, logWithCycle("18446744073709551617"));
    const s = await server();
    const load = await s.call("load_report", { performance_path: dir });
    const r = await s.call("zone_timings", { handle: load.structured.handle });
    await s.kill();
    return { zones: r.structured.zones ?? r.text, caveat: r.structured.caveat ?? null };
  },
};

/** A symlink under --root flipped between an inside and an outside file during loads. */
async function race(tmp: string, kind: "csv" | "log" | "db"): Promise<Result> {
  const root = `${tmp}/root`;
  const outside = `${tmp}/outside`;
  const report = `${root}/report`;
  await Deno.mkdir(report, { recursive: true });
  await Deno.mkdir(outside);
  const name =
    { csv: "ops_perf_results_x.csv", log: "profile_log_device.csv", db: "db.sqlite" }[kind];
  if (kind === "csv") {
    await Deno.writeTextFile(`${root}/inside.csv`, await perfCsvWithSignpost("inside"));
    await Deno.writeTextFile(`${outside}/secret.csv`, await perfCsvWithSignpost("OUTSIDE_SECRET"));
  } else if (kind === "log") {
    const log = await Deno.readTextFile(`${DEMO}performance/profile_log_device.csv`);
    await Deno.writeTextFile(`${root}/inside.csv`, log);
    await Deno.writeTextFile(`${outside}/secret.csv`, log.replace("wormhole_b0", "OUTSIDE_SECRET"));
  } else {
    writeNamedDb(`${root}/inside.csv`, "inside");
    writeNamedDb(`${outside}/secret.csv`, "OUTSIDE_SECRET", "OUTSIDE_SECRET_TABLE");
  }
  await Deno.symlink(`${root}/inside.csv`, `${report}/${name}`);
  const s = await server({ args: ["--root", root] });
  const worker = new Worker(new URL("../scripts/_symlink_swapper.ts", import.meta.url).href, {
    type: "module",
  });
  worker.postMessage({
    link: `${report}/${name}`,
    targets: [`${root}/inside.csv`, `${outside}/secret.csv`],
  });
  const flips = new Promise<number>((r) =>
    worker.onmessage = (e) => e.data !== "started" && r(e.data)
  );
  const arg = kind === "db" ? { profiler_path: report } : { performance_path: report };
  let loads = 0;
  let leaked = 0;
  let refused = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 5000) {
    const r = await s.call("load_report", arg);
    loads++;
    let text = r.text;
    if (!r.isError && kind === "db") {
      text += (await s.call("find_operations", { handle: r.structured.handle })).text;
    }
    if (r.isError) refused++;
    if (text.includes("OUTSIDE_SECRET")) leaked++;
  }
  worker.postMessage("stop");
  const n = await flips;
  worker.terminate();
  await s.kill();
  return { loads, answers_with_outside_bytes: leaked, refused, flips: n };
}

const tmpRoot = await Deno.makeTempDir({ prefix: "adversarial-" });
try {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    if (ONLY && !ONLY.includes(name)) continue;
    const tmp = `${tmpRoot}/${name}`;
    await Deno.mkdir(tmp);
    const result = await attack(tmp).catch((e) => ({ error: String(e) }));
    console.log(JSON.stringify({ attack: name, ...result }));
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
} finally {
  await Deno.remove(tmpRoot, { recursive: true }).catch(() => {});
}
