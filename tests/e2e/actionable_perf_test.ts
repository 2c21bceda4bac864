/**
 * The performance answers an agent can act on, through the SDK client over stdio: the talk's
 * theoretical limit and the split of its gap, the architecture said when it was assumed, host
 * time named, ranges that could not be read and later iterations of a repeated signpost, core
 * counts told apart, and lists cut to a limit or to the size budget said as such.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { demoCsvText, editCsv } from "../_support/csv_edit.ts";
import { gateUpCsv } from "../_support/gate_up.ts";
import { noteIds, notesRead } from "../_support/notes.ts";

type Row = Record<string, unknown>;
const LATENCY = "OP TO OP LATENCY [ns]";

/** Writes each CSV into its own directory under `dir`; returns their paths by name. */
async function reports(dir: string, csvs: Record<string, string>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, csv] of Object.entries(csvs)) {
    await writeFiles(dir, { [`${name}/ops_perf_results_${name}.csv`]: csv });
    out[name] = `${dir}/${name}`;
  }
  return out;
}

Deno.test("lower_bounds gives the talk's gate/up limit and splits its gap exactly", async () => {
  // Prevents a bound that hides the 1,308 µs the op lost by running on too few cores.
  await using dir = await tempDir();
  const paths = await reports(dir.path, { gate: gateUpCsv() });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: paths.gate });
    const a = await callOk(client, "lower_bounds", { handle });
    const e = (a.entries as Row[])[0];
    assert.deepEqual(
      [e.measured_us, e.lower_bound_us, e.gap_us, e.limited_by],
      [7798.4, 4128.768, 3669.632, "dram"],
    );
    const split = e.gap_split as Row;
    assert.deepEqual([split.not_kept_busy_us, split.too_few_cores_us], [2361.339, 1308.293]);
    assert.equal(
      Math.round(((split.not_kept_busy_us as number) + (split.too_few_cores_us as number)) * 1000),
      Math.round((e.gap_us as number) * 1000),
      "the split sums to the gap",
    );
    assert.deepEqual([split.cores_used, split.cores_needed_for_limit], [8, 10.5]);
    assert.deepEqual([e.worker_cores, e.worker_cores_source], [110, "available_worker_core_count"]);
    assert.match(
      (await notesRead(client, a))["lower_bounds.method"],
      /^too_few_cores_us: max\(0, compute_at_cores_used_us/m,
    );
    assert.equal(a.assumed, undefined, "the CSV names its architecture");
  } finally {
    await close();
  }
});

Deno.test("an op without a compute model says its bound is a floor from DRAM, PM IDEAL beside it", async () => {
  // Prevents an attention op's DRAM-only bound reading as a limit and leading the ranking unsaid.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const a = await callOk(client, "lower_bounds", { handle, limit: 100 });
    const sdpa = (a.entries as Row[]).find((e) => e.op_code === "ScaledDotProductAttentionDecode")!;
    assert.equal(sdpa.compute_modelled, false);
    assert.equal(sdpa.compute_bound_us, null);
    assert.equal(sdpa.bound_note, "dram_only");
    const notes = await notesRead(client, a);
    assert.match(notes[`lower_bounds.${sdpa.bound_note}`], /floor from DRAM alone/);
    assert.equal(typeof sdpa.model_ideal_us, "number");
    assert.equal(sdpa.gap_split, undefined);
    const matmul = (a.entries as Row[]).find((e) => e.op_code === "Matmul")!;
    assert.equal(matmul.compute_modelled, true);
    assert.equal(matmul.bound_note, undefined);
  } finally {
    await close();
  }
});

Deno.test("lower_bounds names the DRAM-only bound note once per answer, each entry its key", async () => {
  // Prevents the same bound_note text repeated on every entry without a compute model.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const a = await callOk(client, "lower_bounds", { handle, limit: 100 });
    const entries = a.entries as Row[];
    const dramOnly = entries.filter((e) => e.compute_modelled === false);
    assert.ok(dramOnly.length > 1, "the demo has several entries without a compute model");
    for (const e of dramOnly) assert.equal(e.bound_note, "dram_only", String(e.op_code));
    const notes = await notesRead(client, a);
    assert.match(notes["lower_bounds.dram_only"], /floor from DRAM alone/);
    assert.doesNotMatch(JSON.stringify(a), /floor from DRAM alone/, "the note's text is not said");
    const modelled = await callOk(client, "lower_bounds", { handle, op_code: "Matmul" });
    assert.ok(!noteIds(modelled).includes("lower_bounds.dram_only"), "not named when no entry is");
  } finally {
    await close();
  }
});

Deno.test("a CSV without DEVICE ARCH: the answers say Wormhole was assumed and how to override", async () => {
  // Prevents a Blackhole capture silently bounded at Wormhole's 288 GB/s.
  await using dir = await tempDir();
  const paths = await reports(dir.path, {
    noarch: editCsv(() => {}, { drop: ["DEVICE ARCH"] }),
    arch: demoCsvText(),
  });
  const { client, close } = await connect();
  try {
    const bare = await callOk(client, "load_report", { performance_path: paths.noarch });
    assert.equal((bare.arch as Row).performance_csv, undefined);
    assert.match(((bare.assumed as Row).architecture as Row).why as string, /no DEVICE ARCH/);
    const top = await callOk(client, "top_ops", { handle: bare.handle });
    const assumed = (top.assumed as Row).architecture as Row;
    assert.equal(assumed.assumed, "wormhole");
    assert.match(assumed.why as string, /bound, DRAM and FLOPs/);
    assert.match(assumed.override as string, /DEVICE ARCH/);
    const lb = await callOk(client, "lower_bounds", { handle: bare.handle });
    assert.deepEqual(lb.architecture, { name: "wormhole", source: "assumed", worker_cores: 64 });
    assert.match(((lb.assumed as Row).architecture as Row).override as string, /arch/);
    const told = await callOk(client, "lower_bounds", { handle: bare.handle, arch: "p150" });
    assert.equal(told.assumed, undefined);
    assert.deepEqual([(told.architecture as Row).source, told.dram_bandwidth_gbps], [
      "argument",
      512,
    ]);
    const named = await callOk(client, "load_report", { performance_path: paths.arch });
    assert.equal((named.arch as Row).performance_csv, "wormhole_b0");
    assert.equal(named.assumed, undefined);
    assert.match(
      await callRefused(client, "lower_bounds", { handle: bare.handle, arch: "gs" }),
      /arch "gs" is not an architecture tt-perf-report models; pass one of wormhole, blackhole/,
    );
    assert.match(
      await callRefused(client, "lower_bounds", { handle: bare.handle, dram_bandwidth_gbps: 0 }),
      /dram_bandwidth_gbps: .*>0/,
    );
  } finally {
    await close();
  }
});

Deno.test("the device log's architecture bounds a CSV that names none", async () => {
  // Prevents a defaulted Wormhole when the capture's own device log says what the chip was.
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "ops_perf_results_x.csv": editCsv(() => {}, { drop: ["DEVICE ARCH"] }),
    "profile_log_device.csv": Deno.readTextFileSync(`${DEMO}performance/profile_log_device.csv`),
  });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const lb = await callOk(client, "lower_bounds", { handle });
    assert.deepEqual(lb.architecture, { name: "wormhole", source: "device_log", worker_cores: 64 });
    assert.equal(lb.assumed, undefined);
  } finally {
    await close();
  }
});

Deno.test("op-to-op gaps larger than the device time are named host time, with the ratio", async () => {
  // Prevents an agent ranking seconds of host time (compiles, Python) as device work.
  await using dir = await tempDir();
  const slow = editCsv((r) => {
    if (r[LATENCY] !== "" && r[LATENCY] !== undefined) r[LATENCY] = "5000000";
  });
  const paths = await reports(dir.path, { slow });
  const { client, close } = await connect();
  try {
    const clean = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    const fine = await callOk(client, "top_ops", { handle: clean.handle });
    assert.doesNotMatch(String(fine.caveat ?? ""), /host-side/);
    const { handle } = await callOk(client, "load_report", { performance_path: paths.slow });
    for (const tool of ["top_ops", "op_breakdown"]) {
      const a = await callOk(client, tool, { handle });
      const caveat = String(a.caveat);
      assert.match(caveat, /Op-to-op gaps total [\d.]+ µs, [\d.]+× the device time/, tool);
      assert.match(caveat, /host-side time/);
      assert.match((await notesRead(client, a))["gaps.host_time"], /dispatch, program compiles/);
      // The demo records PROGRAM CACHE HIT, so the caveat counts its misses (issue 29).
      assert.match(caveat, /\d+ of the \d+ device operations here missed the program cache/);
      assert.match(caveat, /start_occurrence/);
    }
    const diff = await callOk(client, "diff_reports", { handle_a: clean.handle, handle_b: handle });
    assert.match(String(diff.caveat), /^After: Op-to-op gaps total/);
    assert.doesNotMatch(String(diff.caveat), /Before:/);
  } finally {
    await close();
  }
});

Deno.test("a range on a report without signposts is read whole and a caveat says so", async () => {
  // Prevents a whole-report answer passing for the window that was asked for.
  await using dir = await tempDir();
  const paths = await reports(dir.path, {
    plain: editCsv((r) => r["OP TYPE"] !== "signpost"),
  });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: paths.plain });
    const range = { start_signpost: "PERF_DECODE", end_signpost: "PERF_DECODE_END" };
    for (const tool of ["top_ops", "op_breakdown", "lower_bounds"]) {
      const a = await callOk(client, tool, { handle, ...range });
      assert.equal((a.projection as Row).signpost_range_ignored, true, tool);
      assert.match(String(a.caveat), /was not applied: this report holds no signposts/, tool);
    }
  } finally {
    await close();
  }
});

Deno.test("start_occurrence reads a later iteration; past the last and below 1 are refused", async () => {
  // Prevents a repeated signpost that can only ever select the cold first iteration.
  await using dir = await tempDir();
  const paths = await reports(dir.path, { thrice: editCsv(() => {}, { repeat: 3 }) });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: paths.thrice });
    const range = { start_signpost: "PERF_DECODE", end_signpost: "PERF_DECODE_END" };
    const first = await callOk(client, "top_ops", { handle, limit: 100, ...range });
    const second = await callOk(client, "top_ops", {
      handle,
      limit: 100,
      ...range,
      start_occurrence: 2,
    });
    assert.deepEqual(
      [
        (second.projection as Row).start_occurrence,
        (second.projection as Row)
          .start_signpost_occurrences,
      ],
      [2, 3],
    );
    assert.equal(second.op_count, first.op_count, "one iteration either way");
    const ids = (r: Row) => (r.ops as Row[]).map((o) => Number(o.id));
    assert.ok(Math.min(...ids(second)) > Math.max(...ids(first)), "the second iteration's rows");
    for (const tool of ["op_breakdown", "lower_bounds"]) {
      const a = await callOk(client, tool, { handle, ...range, start_occurrence: 3 });
      assert.equal((a.projection as Row).start_occurrence, 3, tool);
    }
    const diff = await callOk(client, "diff_reports", {
      handle_a: handle,
      handle_b: handle,
      ...range,
      start_occurrence: 2,
    });
    assert.equal(diff.delta_total, 0);
    assert.match(
      await callRefused(client, "top_ops", { handle, ...range, start_occurrence: 4 }),
      /occurs 3 times in this report; start_occurrence 4 is past the last \(1 to 3\)/,
    );
    assert.match(
      await callRefused(client, "top_ops", { handle, ...range, start_occurrence: 0 }),
      /start_occurrence: .*>=1/,
    );
  } finally {
    await close();
  }
});

Deno.test("a DRAM-sharded matmul's cores say whose count they are, and flag_basis the rule", async () => {
  // Prevents top_ops' 12 cores and the CSV's 64 reading as two contradictory facts.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const a = await callOk(client, "top_ops", { handle, limit: 25, include: ["flags"] });
    const row = (a.ops as Row[]).find((r) => r.id === "24")!;
    assert.deepEqual([row.cores, row.cores_source, row.csv_core_count], [
      12,
      "dram_sharded_matmul_cores",
      64,
    ]);
    // A row whose cores are the CSV's CORE COUNT says nothing of it: the note says so once.
    const plain = (a.ops as Row[]).filter((r) => r.cores !== null && !("cores_source" in r));
    assert.ok(plain.length > 0 && plain.every((r) => !("csv_core_count" in r)));
    assert.match((await notesRead(client, a))["top_ops.rows"], /CORE COUNT unless cores_source/);
    assert.match((a.flag_basis as Row).cores_rule as string, /DRAM-sharded core count/);
  } finally {
    await close();
  }
});

Deno.test("a list cut by the limit, by include or to fit the size budget says so and how to get the rest", async () => {
  // Prevents rows cut silently, and answers an agent's client warns about as too large.
  await using dir = await tempDir();
  const paths = await reports(dir.path, { big: editCsv(() => {}, { repeat: 8 }) });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: paths.big });
    const limited = await callOk(client, "top_ops", { handle, limit: 3 });
    assert.deepEqual((limited.cut as Record<string, Row>).ops, {
      total_rows: 192,
      returned: 3,
      capped_at: 3,
      reason: "limit",
      more: "pass a higher limit (at most 100)",
    });
    const included = await callOk(client, "top_ops", { handle, limit: 60, include: ["config"] });
    const byInclude = (included.cut as Record<string, Row>).ops;
    assert.deepEqual([byInclude.reason, byInclude.returned], ["include", 25]);
    assert.match(byInclude.more as string, /without include/);
    const everything = ["config", "utilisation", "noc", "riscs", "cores", "dispatch", "cache"];
    const result = await client.callTool({
      name: "top_ops",
      arguments: { handle, limit: 25, include: [...everything, "kernels", "advice", "flags"] },
    });
    const text = (result.content as { text: string }[])[0].text;
    assert.ok(new TextEncoder().encode(text).length <= 25_000, `${text.length} bytes`);
    const fitted = result.structuredContent as Row;
    const bySize = (fitted.cut as Record<string, Row>).ops;
    assert.equal(bySize.reason, "size");
    assert.equal(fitted.returned, (fitted.ops as Row[]).length);
    assert.ok((fitted.returned as number) < 25);
    assert.match(bySize.more as string, /fewer include groups/);
    const whole = await callOk(client, "top_ops", { handle, limit: 100 });
    assert.ok(JSON.stringify(whole).length <= 25_000);
  } finally {
    await close();
  }
});

Deno.test("the timeline tools take start_occurrence and say when a range could not be read", async () => {
  // Prevents the device tools reading ranges differently from top_ops, or a whole-log answer
  // passing for the window asked.
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "plain/ops_perf_results_x.csv": editCsv((r) => r["OP TYPE"] !== "signpost"),
    "plain/profile_log_device.csv": Deno.readTextFileSync(
      `${DEMO}performance/profile_log_device.csv`,
    ),
  });
  const { client, close } = await connect();
  try {
    const demo = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    const range = { start_signpost: "PERF_DECODE", end_signpost: "PERF_DECODE_END" };
    for (const tool of ["device_timeline", "core_utilisation"]) {
      const a = await callOk(client, tool, { handle: demo.handle, ...range, start_occurrence: 1 });
      assert.deepEqual(
        [(a.projection as Row).start_occurrence, (a.projection as Row).start_signpost_occurrences],
        [1, 1],
        tool,
      );
      assert.match(
        await callRefused(client, tool, { handle: demo.handle, ...range, start_occurrence: 2 }),
        /occurs 1 time in this report; start_occurrence 2 is past the last \(1 to 1\)/,
      );
    }
    const plain = await callOk(client, "load_report", { performance_path: `${dir.path}/plain` });
    for (const tool of ["device_timeline", "core_utilisation"]) {
      const a = await callOk(client, tool, { handle: plain.handle, ...range });
      assert.match(String(a.caveat), /was not applied: this report holds no signposts/, tool);
    }
  } finally {
    await close();
  }
});

Deno.test("top_ops and op_breakdown name their time basis as device_timeline does", async () => {
  // Prevents tt-perf-report's device time and the device log's op intervals read as one figure.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    for (const tool of ["top_ops", "op_breakdown"]) {
      const a = await callOk(client, tool, { handle });
      assert.equal(a.basis, "device_kernel_duration", tool);
      assert.match((await notesRead(client, a))[`basis.${a.basis}`], /DEVICE KERNEL DURATION/);
    }
    const t = await callOk(client, "device_timeline", { handle });
    assert.equal(t.basis, "op_interval");
    assert.match((await notesRead(client, t))[`basis.${t.basis}`], /DEVICE FW END CYCLE/);
  } finally {
    await close();
  }
});

Deno.test("tt-perf-report's warnings about the architecture and core budget reach top_ops", async () => {
  // Prevents a defaulted core budget or an ambiguous DEVICE ARCH that tt-perf-report printed
  // and the answer did not.
  await using dir = await tempDir();
  const paths = await reports(dir.path, {
    nobudget: editCsv(() => {}, { drop: ["AVAILABLE WORKER CORE COUNT"] }),
    mixed: editCsv((r, i) => {
      if (i === 5) r["DEVICE ARCH"] = "blackhole";
    }),
  });
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: paths.nobudget });
    const top = await callOk(client, "top_ops", { handle: a.handle });
    assert.match(
      String(top.caveat),
      /tt-perf-report warned.*AVAILABLE WORKER CORE COUNT column not found\. Defaulting to 64 wormhole cores\./,
    );
    const b = await callOk(client, "load_report", { performance_path: paths.mixed });
    assert.equal((b.arch as Row).performance_csv, "wormhole_b0, blackhole");
    const mixed = await callOk(client, "top_ops", { handle: b.handle });
    assert.match(String(mixed.caveat), /Multiple DEVICE ARCH values found/);
  } finally {
    await close();
  }
});

Deno.test("the other tools' lists say when a limit cut them", async () => {
  // Prevents a capped list on the profiler and device-log side read as the whole of it.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
      profiler_path: `${DEMO}profiler`,
    });
    const found = await callOk(client, "find_operations", { handle, limit: 2 });
    assert.deepEqual(
      [(found.cut as Record<string, Row>).operations.returned, found.returned],
      [2, 2],
    );
    assert.equal((found.cut as Record<string, Row>).operations.total_rows, found.match_count);
    const zones = await callOk(client, "zone_timings", { handle, limit: 2 });
    assert.equal((zones.cut as Record<string, Row>).zones.total_rows, zones.zone_count);
    const spread = await callOk(client, "core_spread", { handle, limit: 1 });
    assert.equal((spread.cut as Record<string, Row>).operations.total_rows, spread.op_count);
    const whole = await callOk(client, "zone_timings", { handle, limit: 100 });
    assert.equal(whole.cut, undefined, "nothing cut, nothing said");
  } finally {
    await close();
  }
});
