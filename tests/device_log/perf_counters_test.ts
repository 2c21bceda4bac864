/**
 * perf_counters on generated captures whose every counter ratio is known: its listing rule,
 * one operation's counters, an op code's calls pooled, the default ranking and its cap, every
 * refusal and caveat, and staleness.
 */
import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { counterSession } from "./_session.ts";
import { generateCapture } from "../../scripts/make_device_log.ts";
import {
  type CounterOptions,
  type CounterSite,
  generateCounterCapture,
  TALK_MATH_THREAD,
} from "../../scripts/make_counter_log.ts";
import { MAX_OPERATIONS } from "../../src/tools/perf_counters.ts";

type Row = Record<string, unknown>;
const SOURCE = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/** FPU 10–40% by core, the talk's math-thread states, and one unpack-side counter. */
function known(s: CounterSite): Record<string, number> {
  return {
    FPU_COUNTER: ((s.core % 4) + 1) / 10,
    ...TALK_MATH_THREAD,
    MATH_INSTRN_AVAILABLE: 0.736,
  };
}

/** A loaded capture of the demo with counters; returns the session and handle. */
async function loaded(dir: string, options: CounterOptions = {}) {
  const { csv, log } = generateCounterCapture(SOURCE, {
    replays: 2,
    clockMhz: 1350,
    counters: known,
    ref: () => 10_000,
    ...options,
  });
  await writeFiles(dir, { "ops_perf_results_gen.csv": csv, "profile_log_device.csv": log });
  const s = counterSession();
  const answer = await s.load(dir);
  return { s, handle: answer.handle as string, answer, csv };
}

Deno.test("load_report lists perf_counters only when the log holds counter rows", async () => {
  // Prevents an agent being offered a tool with nothing to read, or not offered it.
  await using a = await tempDir();
  const { answer } = await loaded(a.path);
  assert.ok((answer.answerable as string[]).includes("perf_counters"));
  await using b = await tempDir();
  const { csv, log } = generateCapture(SOURCE, {});
  await writeFiles(b.path, { "ops_perf_results_gen.csv": csv, "profile_log_device.csv": log });
  const plain = await counterSession().load(b.path);
  assert.ok((plain.answerable as string[]).includes("zone_timings"));
  assert.ok((plain.unanswerable as string[]).includes("perf_counters"));
  const why = reasonsByTool(plain).perf_counters;
  assert.match(why, /no performance-counter rows/);
  assert.match(why, /TT_METAL_PROFILE_PERF_COUNTERS/);
});

Deno.test("a log without counters is refused with the reason and how to capture them", async () => {
  // Prevents an empty answer passing for "no counter activity" when none was captured.
  await using dir = await tempDir();
  const { csv, log } = generateCapture(SOURCE, {});
  await writeFiles(dir.path, { "ops_perf_results_gen.csv": csv, "profile_log_device.csv": log });
  const s = counterSession();
  const { handle } = await s.load(dir.path);
  const why = await s.refusal("perf_counters", { handle });
  assert.match(why, /holds no performance-counter rows/);
  assert.match(why, /TT_METAL_DEVICE_PROFILER=1/);
  assert.match(why, /--profiler-capture-perf-counters/);
});

Deno.test("one operation's counters: req ÷ ref by group, FPU utilisation, thread states", async () => {
  // Prevents any of the per-operation figures drifting from the counters' known ratios.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path);
  const a = await s.call("perf_counters", { handle, perf_id: 2 }); // Embeddings: 2 cores
  assert.equal(a.clock_mhz, 1350);
  assert.equal(a.returned, 1);
  const op = (a.operations as Row[])[0];
  assert.equal(op.op_code, "Embeddings");
  assert.equal(op.run_host_id, 1024);
  assert.equal(op.perf_id, "2");
  assert.equal(op.instances, 2, "the eager run and one trace replay");
  assert.equal(op.cores, 2);
  assert.equal(op.ref_cycles_median, 10_000);
  assert.equal(op.ref_us_median, 7.407);
  assert.deepEqual(op.fpu_utilisation, {
    pooled_pct: 15,
    median_pct: 15,
    min_pct: 10,
    max_pct: 20,
    mean_pct: 15,
    samples: 4,
    req_sum: 6000,
    ref_sum: 40_000,
  });
  const groups = (op.groups as Row[]).map((g) => g.group);
  assert.deepEqual(groups, ["FPU", "INSTRN_THREAD", "TDMA_UNPACK"]);
  const unpack = (op.groups as Row[])[2].counters as Row[];
  assert.equal(unpack[0].counter, "MATH_INSTRN_AVAILABLE");
  assert.equal(unpack[0].pooled_pct, 73.6);
  const [math] = op.instruction_threads as Row[];
  assert.equal(math.thread, 1);
  assert.equal(math.accounted_pct, 99.79);
  assert.equal(math.unaccounted_pct, 0.21);
  const states = math.states as Row[];
  assert.deepEqual(states.find((x) => x.state === "MATH"), {
    state: "MATH",
    counter: "FPU_INSTRN_AVAILABLE_1",
    pooled_pct: 91.99,
    median_pct: 91.99,
  });
  const cores = op.lowest_fpu_cores as Row[];
  assert.deepEqual(cores[0], {
    core_x: 1,
    core_y: 1,
    fpu_utilisation_pct: 10,
    ref_cycles_median: 10_000,
    instances: 2,
  });
  assert.match(String(a.method), /never are subtracted/);
  assert.match(String(a.method), /FPU_COUNTER/);
  assert.equal(a.caveat, undefined);
});

Deno.test("op_code pools every call of the op code and lists the calls", async () => {
  // Prevents an op code's figure being one call's, or its calls being left uncounted.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path);
  const a = await s.call("perf_counters", { handle, op_code: "Matmul", limit: 2 });
  assert.equal(a.calls_in_csv, 8);
  assert.equal(a.calls_with_counters, 8);
  const pooled = a.pooled as Row;
  assert.equal(pooled.operations, 8);
  const fpu = pooled.fpu_utilisation as Row;
  assert.equal(fpu.pooled_pct, 25, "cores cycle through 10, 20, 30 and 40%");
  assert.equal(fpu.median_pct, 25);
  assert.equal(fpu.samples, 2 * (32 * 4 + 64 * 4), "cores × two instances");
  assert.equal(a.returned, 2);
  for (const op of a.operations as Row[]) assert.equal(op.op_code, "Matmul");
});

Deno.test("without a selection the operations that counted most come first, capped", async () => {
  // Prevents an unbounded answer, or a ranking that hides the costliest operations.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path);
  const a = await s.call("perf_counters", { handle, limit: 1000 });
  assert.equal(a.operation_count, 24);
  assert.equal(a.returned, MAX_OPERATIONS);
  const ops = a.operations as Row[];
  assert.equal(ops[0].cores, 64);
  assert.ok(ops.every((o, i) => i === 0 || (o.cores as number) <= (ops[i - 1].cores as number)));
  assert.equal(ops[0].lowest_fpu_cores, undefined, "core lists only for one operation");
});

Deno.test("ill-formed selections are refused, each with its reason", async () => {
  // Prevents a wrong selection answering about some other operation.
  await using dir = await tempDir();
  const { s, handle, csv } = await loaded(dir.path, { devices: 2 });
  const refused = (args: Row) => s.refusal("perf_counters", { handle, ...args });
  const signpost = csv.split("\n").findIndex((line) => line.includes(",signpost,")) + 1;
  assert.ok(signpost > 2);
  assert.match(await refused({ perf_id: 2, op_code: "Matmul" }), /not both/);
  assert.match(await refused({ perf_id: 9999 }), /no performance row has id 9999/);
  assert.match(await refused({ perf_id: signpost }), /no whole-number GLOBAL CALL COUNT/);
  assert.match(await refused({ perf_id: 2, device: 1 }), /ran on device 0, not device 1/);
  assert.match(await refused({ op_code: "NoSuchOp" }), /no row of the performance CSV/);
  assert.match(
    await refused({ device: 7 }),
    /device 7 has no counter rows; devices with counters: 0, 1/,
  );
  const one = await s.call("perf_counters", { handle, device: 1, limit: 10 });
  assert.ok((one.operations as Row[]).every((o) => o.device === 1));
});

Deno.test("a row the counters did not cover is answered as not in the log", async () => {
  // Prevents a row without counters being refused or given another row's figures.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path, {
    counters: (site) => (site.op === 0 ? {} : known(site)),
  });
  const a = await s.call("perf_counters", { handle, perf_id: 2 });
  assert.deepEqual(a.operations, [{ perf_id: "2", in_log: false }]);
  assert.match(String(a.caveat), /no counter rows for row 2/);
});

Deno.test("samples above their ref and ref 0 are named in a caveat", async () => {
  // Prevents a wrapped ref cnt reading as a utilisation over 100% without warning.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path, {
    counters: (site) => ({ FPU_COUNTER: site.core === 0 ? 1.5 : 0.5 }),
    ref: (site) => (site.core === 1 && site.replay === 1 ? 0 : 1000),
  });
  const a = await s.call("perf_counters", { handle, perf_id: 2 });
  const op = (a.operations as Row[])[0];
  assert.match(String(op.caveat), /2 samples counted more than their ref/);
  assert.match(String(op.caveat), /1 samples had ref cnt 0/);
});

Deno.test("a log rewritten after load_report makes the handle stale", async () => {
  // Prevents answering from a file that is no longer the one the handle describes.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path);
  const path = `${dir.path}/profile_log_device.csv`;
  await Deno.writeTextFile(path, (await Deno.readTextFile(path)) + "\n");
  assert.match(await s.refusal("perf_counters", { handle }), /stale/);
});

Deno.test("a capture without a clock still answers, its µs left null", async () => {
  // Prevents a zero CHIP_FREQ (a simulator's) dividing the ref cycles into infinities.
  await using dir = await tempDir();
  const { s, handle } = await loaded(dir.path, {
    preamble: "ARCH: quasar, CHIP_FREQ[MHz]: 0, Max Compute Cores: 32",
  });
  const a = await s.call("perf_counters", { handle, perf_id: 2 });
  assert.equal(a.clock_mhz, null);
  const op = (a.operations as Row[])[0];
  assert.equal(op.ref_cycles_median, 10_000);
  assert.equal(op.ref_us_median, null);
});

Deno.test("a log that is not UTF-8, or lacks meta data, is not offered and says why", async () => {
  // Prevents perf_counters being listed for a log it cannot read.
  await using bad = await tempDir();
  const row = '0,1,1,BRISC,9090,5,0,7,,,,TS_DATA,0,,{"counter type":"FPU_COUNTER";"ref cnt":9;' +
    '"value":1}';
  const text = `ARCH: blackhole, CHIP_FREQ[MHz]: 1350\n${
    "PCIe slot,core_x,core_y,RISC processor type,timer_id,time[cycles since reset],data," +
    "run host ID,trace id,trace id counter,zone name,type,source line,source file,meta data"
  }\n${row}\n`;
  const valid = new TextEncoder().encode(text);
  const bytes = new Uint8Array(valid.length + 2);
  bytes.set(valid);
  bytes.set([0xff, 0x0a], valid.length); // a byte UTF-8 never has
  await writeFiles(bad.path, { "profile_log_device.csv": bytes });
  const one = await counterSession().load(bad.path);
  assert.match(
    reasonsByTool(one).perf_counters,
    /not UTF-8/,
  );
  await using short = await tempDir();
  await writeFiles(short.path, {
    "profile_log_device.csv": text.replace(",meta data", ",notes"),
  });
  const two = await counterSession().load(short.path);
  assert.match(
    reasonsByTool(two).perf_counters,
    /holds counter rows but lacks columns meta data/,
  );
});
