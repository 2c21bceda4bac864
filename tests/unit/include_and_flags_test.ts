import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { type Cells, editCsv } from "../_support/csv_edit.ts";

type Row = Record<string, unknown>;
const LOG_HEADER =
  "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, " +
  "trace id, trace id counter, zone name, type, source line, source file, meta data";

/** Loads `csv` (and a device log whose first line is `preamble`, when given) in a fresh session. */
async function load(dir: string, csv: string, preamble?: string) {
  const files: Record<string, string> = { "ops_perf_results_t.csv": csv };
  if (preamble !== undefined) {
    files["profile_log_device.csv"] =
      `${preamble}\n${LOG_HEADER}\n0, 1, 1, BRISC, 1, 100, 0, 1024, , , BRISC-FW, ZONE_START, 1, f.cc, \n`;
  }
  await writeFiles(dir, files);
  const s = session();
  const loaded = await s.call("load_report", { performance_path: dir });
  return { s, handle: loaded.handle as string, loaded };
}
const byId = (rows: Row[], id: number) => rows.find((r) => r.id === String(id))!;
const flagNames = (r: Row) => (r.flags as Row[]).map((f) => f.flag);

Deno.test("include adds each group's fields from the row's own CSV line, times in µs", async () => {
  // Prevents nanoseconds reported as microseconds, or a field read from another row.
  await using dir = await tempDir();
  const csv = editCsv((r) => {
    r["DEVICE COMPUTE CB WAIT FRONT [ns]"] = r["OP CODE"] === "Matmul" ? "1234" : "";
    r["PROGRAM HASH"] = r["GLOBAL CALL COUNT"];
    r["PROGRAM CACHE HIT"] = "False";
    r["COMPUTE KERNEL SOURCE"] = "['k/compute.cpp'; 'k/other.cpp']";
  });
  const { s, handle } = await load(dir.path, csv);
  const a = await s.call("top_ops", {
    handle,
    include: ["config", "riscs", "cache", "kernels", "advice", "cores"],
  });
  const top = (a.ops as Row[])[0];
  assert.equal(top.id, "24");
  assert.equal(top.math_fidelity, "HiFi2");
  assert.equal(top.brisc_kernel_us, (top.device_time as number) - 0.04);
  assert.equal(top.compute_cb_wait_front_us, 1.234);
  assert.equal(top.program_cache_hit, false);
  assert.equal(typeof top.program_hash, "string");
  assert.deepEqual(top.compute_kernel_sources, ["k/compute.cpp", "k/other.cpp"]);
  assert.ok(Array.isArray(top.advice));
  assert.equal(top.available_cores, 64);
  const included = a.included as { groups: string[]; fields: string[] };
  assert.deepEqual(included.groups, ["config", "riscs", "cache", "kernels", "advice", "cores"]);
  assert.ok(included.fields.includes("brisc_kernel_us"));
  assert.match(String(a.detail_note), /microseconds.*same merged row.*first device's row/s);
});

Deno.test("a field no row carries is left out of rows and named, with what would fill it", async () => {
  // Prevents a column of nulls reading as measured zeros, and an absent column as an empty one.
  await using dir = await tempDir();
  const csv = editCsv((r) => {
    r["NOC UTIL (%)"] = "";
    r["DISPATCH GO SEND WAIT TIME [ns]"] = "";
  });
  const { s, handle } = await load(dir.path, csv);
  const a = await s.call("top_ops", { handle, include: ["noc", "dispatch"] });
  const empty = a.empty_in_report as Row[];
  const noc = empty.find((e) => e.field === "noc_util_percent")!;
  assert.deepEqual(noc, {
    field: "noc_util_percent",
    group: "noc",
    why: "empty",
    column: "NOC UTIL (%)",
    filled_by: "--collect-noc-traces",
  });
  assert.equal(
    empty.find((e) => e.field === "dispatch_go_send_wait_us")!.filled_by,
    "--profile-dispatch-cores",
  );
  assert.equal(
    empty.find((e) => e.field === "metal_trace_id")!.filled_by,
    "a captured metal trace",
  );
  const absent = empty.find((e) => e.field === "eth_bw_util_percent")!;
  assert.equal(absent.why, "no_column");
  for (const row of a.ops as Row[]) {
    assert.ok(!("noc_util_percent" in row) && !("eth_bw_util_percent" in row));
    assert.ok("op_to_op_gap" in row);
  }
});

Deno.test("a 1 ns ideal time reads as null, and so does the FPU utilisation derived from it", async () => {
  // Prevents tt-metal's 'not modelled' placeholder from claiming a million-fold gap.
  await using dir = await tempDir();
  const csv = editCsv((r) => {
    if (r["OP CODE"] === "LayerNorm") {
      r["PM IDEAL [ns]"] = "1";
      r["PM COMPUTE [ns]"] = "1";
    }
    r["PM FPU UTIL (%)"] = "0.001";
  });
  const { s, handle } = await load(dir.path, csv);
  const a = await s.call("top_ops", { handle, limit: 25, include: ["utilisation"] });
  const ln = (a.ops as Row[]).find((r) => r.op_code === "LayerNorm")!;
  assert.equal(ln.pm_ideal_us, null);
  assert.equal(ln.pm_fpu_util_percent, null);
  // PM COMPUTE holds only placeholders here: no row carries a modelled time, so it is named.
  assert.ok(!("pm_compute_us" in ln));
  const empty = (a.empty_in_report as Row[]).find((e) => e.field === "pm_compute_us")!;
  assert.deepEqual([empty.why, empty.filled_by], [
    "empty",
    "a performance model that computes them",
  ]);
  const mm = (a.ops as Row[])[0];
  assert.equal(typeof mm.pm_ideal_us, "number");
  assert.equal(mm.pm_fpu_util_percent, 0.001);
});

Deno.test("include caps rows at 25, and flags alone adds no included, empty_in_report or detail_note", async () => {
  // Prevents an answer past a client's size limit, and noise on a flags-only request.
  await using dir = await tempDir();
  const { s, handle } = await load(dir.path, editCsv(() => {}, { repeat: 3 }));
  const a = await s.call("top_ops", { handle, limit: 100, include: ["flags"] });
  assert.equal(a.returned, 25);
  assert.equal(a.included, undefined);
  assert.equal(a.empty_in_report, undefined);
  assert.equal(a.detail_note, undefined);
  for (const row of a.ops as Row[]) assert.ok(Array.isArray(row.flags) && "total_percent" in row);
  assert.equal((await s.call("top_ops", { handle, limit: 100 })).returned, 72);
});

Deno.test("dram_bound fires on a DRAM bound, or a SLOW one with DRAM above FLOPs, only from 0.5 % of the total", async () => {
  // Prevents flagging noise-level ops, or missing a DRAM-limited matmul.
  await using dir = await tempDir();
  const { s, handle } = await load(dir.path, editCsv(() => {}));
  const a = await s.call("top_ops", { handle, limit: 25, include: ["flags"] });
  const mm = byId(a.ops as Row[], 24);
  const flag = (mm.flags as Row[]).find((f) => f.flag === "dram_bound")!;
  assert.equal(flag.reason, "slow_dram_above_flops");
  assert.ok((flag.dram_percent as number) > (flag.flops_percent as number));
  // The same op scaled down to a sliver of the total no longer flags.
  const tiny = editCsv((r) => {
    if (r["OP CODE"] !== "Matmul") {
      r["DEVICE KERNEL DURATION [ns]"] = String(Number(r["DEVICE KERNEL DURATION [ns]"]) * 1000);
    }
  });
  await using dir2 = await tempDir();
  const t = await load(dir2.path, tiny);
  const b = await t.s.call("top_ops", {
    handle: t.handle,
    by: "total_percent",
    limit: 25,
    include: ["flags"],
  });
  const small = (b.ops as Row[]).filter((r) => String(r.op_code).startsWith("Matmul"));
  assert.ok(small.every((r) => (r.total_percent as number) < 0.5));
  assert.ok(
    small.every((r) =>
      !flagNames(r).includes("dram_bound") && !flagNames(r).includes("underutilised_cores")
    ),
  );
});

Deno.test("low_utilisation fires below 30 %, cut not rounded, and never on a 1 ns ideal time", async () => {
  // Prevents a figure under the threshold reading as at it, and the placeholder flagging.
  await using dir = await tempDir();
  // u = ideal / (device_time·1000) · capacity / cores: LayerNorm rows run on 16 of 64 cores.
  const csv = editCsv((r) => {
    if (r["OP CODE"] !== "LayerNorm") return;
    const ns = Number(r["DEVICE KERNEL DURATION [ns]"]);
    r["PM IDEAL [ns]"] = r["GLOBAL CALL COUNT"] === "2048" ? String(ns * 0.075 - 0.0001 * ns) : "1";
  });
  const { s, handle } = await load(dir.path, csv);
  const a = await s.call("top_ops", { handle, limit: 25, include: ["flags"] });
  const lns = (a.ops as Row[]).filter((r) => r.op_code === "LayerNorm");
  const flagged = lns.filter((r) => flagNames(r).includes("low_utilisation"));
  assert.equal(flagged.length, 1, "only the modelled LayerNorm flags");
  const f = (flagged[0].flags as Row[]).find((x) => x.flag === "low_utilisation")!;
  assert.equal(f.core_utilisation_percent, 29.96);
  assert.equal(f.roofline_modelled, false);
});

Deno.test("underutilised_cores reads the row's available cores, else the device's", async () => {
  // Prevents judging a sub-device's op against the whole device, or the reverse.
  await using dir = await tempDir();
  const { s, handle } = await load(
    dir.path,
    editCsv((r) => {
      if (r["OP CODE"] === "Embeddings") r["AVAILABLE WORKER CORE COUNT"] = "4";
    }),
  );
  const a = await s.call("top_ops", { handle, limit: 25, include: ["flags"] });
  const emb = (a.ops as Row[]).find((r) => r.op_code === "Embeddings")!;
  assert.ok(!flagNames(emb).includes("underutilised_cores"), "2 of 4 cores is half");
  const untilize = (a.ops as Row[]).find((r) => r.op_code === "Untilize")!;
  const f = (untilize.flags as Row[]).find((x) => x.flag === "underutilised_cores")!;
  assert.deepEqual(f, {
    flag: "underutilised_cores",
    core_capacity: 64,
    core_capacity_from: "available_cores",
  });
  await using dir2 = await tempDir();
  const t = await load(
    dir2.path,
    editCsv(() => {}, { drop: ["AVAILABLE WORKER CORE COUNT", "DEVICE ARCH"] }),
  );
  const b = await t.s.call("top_ops", { handle: t.handle, limit: 25, include: ["flags"] });
  const u2 = (b.ops as Row[]).find((r) => r.op_code === "Untilize")!;
  assert.equal(
    (u2.flags as Row[]).find((x) => x.flag === "underutilised_cores")!.core_capacity_from,
    "max_cores",
  );
});

Deno.test("recompute_candidate is a repeat call that missed, decided over the whole report even in a range", async () => {
  // Prevents flagging first calls (which miss by design) or a program first called before the window.
  await using dir = await tempDir();
  const csv = editCsv((r: Cells) => {
    r["PROGRAM HASH"] = r["OP CODE"] === "signpost" ? "" : `h-${r["OP CODE"]}`;
    r["PROGRAM CACHE HIT"] = r["OP CODE"] === "LayerNorm" ? "True" : "False";
    if (r["OP TYPE"] === "signpost") r["PROGRAM HASH"] = "";
  });
  const { s, handle } = await load(dir.path, csv);
  const range = { start_signpost: "PERF_DECODE", end_signpost: "PERF_DECODE_END" };
  const a = await s.call("top_ops", { handle, limit: 25, include: ["flags"], ...range });
  const rows = a.ops as Row[];
  const firstMatmul =
    rows.filter((r) => String(r.op_code).startsWith("Matmul")).sort((x, y) =>
      Number(x.id) - Number(y.id)
    )[0];
  assert.ok(
    !flagNames(firstMatmul).includes("recompute_candidate"),
    "a first call misses by design",
  );
  const later = rows.find((r) => r.id === "12")!;
  const rc = (later.flags as Row[]).find((f) => f.flag === "recompute_candidate")!;
  assert.equal(rc.program_hash, "h-Matmul");
  assert.ok(
    rows.filter((r) => r.op_code === "LayerNorm").every((r) =>
      !flagNames(r).includes("recompute_candidate")
    ),
  );
  const withCache = await s.call("top_ops", {
    handle,
    limit: 25,
    include: ["flags", "cache"],
    ...range,
  });
  const again = (withCache.ops as Row[]).find((r) => r.id === "12")!;
  assert.equal(
    (again.flags as Row[]).find((f) => f.flag === "recompute_candidate")!.program_hash,
    undefined,
  );
  const basis = a.flag_basis as Row;
  assert.equal((basis.flagged_rows as Row).recompute_candidate, 13);
});

Deno.test("flag_basis reads the device's core count where the web application reads it", async () => {
  // Prevents the core-capacity rules from using a count the capture does not support.
  const cases: [string | undefined, (r: Cells) => void, number, string][] = [
    ["ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 56", () => {}, 56, "device_log"],
    ["ARCH: blackhole, CHIP_FREQ[MHz]: 1350", () => {}, 130, "architecture_default"],
    [undefined, () => {}, 64, "architecture_default"],
    [
      undefined,
      (r) => (r["CORE COUNT"] = r["OP CODE"] === "Untilize" ? "80" : r["CORE COUNT"]),
      80,
      "report_rows",
    ],
    [
      "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 0",
      () => {},
      64,
      "fallback_default",
    ],
  ];
  for (const [preamble, edit, cores, source] of cases) {
    await using dir = await tempDir();
    const { s, handle } = await load(dir.path, editCsv(edit), preamble);
    const a = await s.call("top_ops", { handle, include: ["flags"] });
    const basis = a.flag_basis as Row;
    assert.deepEqual([basis.max_cores, basis.max_cores_source], [cores, source], String(preamble));
    assert.match(String(basis.note), /whole report.*1 ns/s);
  }
});

Deno.test("when every recorded repeat call missed, flag_basis and program_cache say the cache may have been off", async () => {
  // Prevents reading a disabled program cache as hundreds of rebuilt programs.
  await using dir = await tempDir();
  const csv = editCsv((r) => {
    r["PROGRAM HASH"] = r["OP TYPE"] === "signpost" ? "" : `h-${r["OP CODE"]}`;
    r["PROGRAM CACHE HIT"] = r["OP TYPE"] === "signpost" ? "" : "False";
  });
  const { s, handle } = await load(dir.path, csv);
  const a = await s.call("top_ops", { handle, include: ["flags"] });
  assert.match(String((a.flag_basis as Row).caveat), /program cache disabled/);
  const pc = await s.call("program_cache", { handle });
  assert.match(String(pc.caveat), /program cache disabled/);
});
