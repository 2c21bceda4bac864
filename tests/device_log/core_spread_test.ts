/**
 * core_spread: agreement with the CSV columns the generator started from, one device per
 * operation, trace replays kept apart, every caveat the seed lists, and its refusals.
 */
import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { deviceLogSession } from "./_session.ts";
import { type CaptureOptions, generateCapture } from "../../scripts/make_device_log.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import type { DeviceLogSummary } from "../../src/device_log/summary.ts";
import type { SharedWork } from "../../src/kit/shared_work.ts";

type Row = Record<string, unknown>;
const demoCsv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/** The demo's first `n` device operations (signposts and all rows before them kept). */
function firstOps(n: number, csv = demoCsv): string {
  const [header, ...rows] = csv.trimEnd().split("\n");
  const kept: string[] = [];
  let ops = 0;
  for (const r of rows) {
    if (r.includes(",tt_dnn_device,") && ops++ >= n) break;
    kept.push(r);
  }
  return [header, ...kept].join("\n") + "\n";
}

/** Writes a generated capture (optionally edited) into `dir`; returns its CSV table. */
async function capture(
  dir: string,
  options: CaptureOptions,
  edit: {
    csv?: (cells: string[], col: (n: string) => number) => void;
    log?: (l: string[]) => string[];
  } = {},
  source = demoCsv,
) {
  const { csv, log } = generateCapture(source, options);
  const table = parseCsvTable(csv, "x.csv");
  const col = (name: string) => table.header.indexOf(name);
  if (edit.csv) { for (const cells of table.rows) edit.csv(cells, col); }
  const csvText = [table.header, ...table.rows].map((r) => r.join(",")).join("\n") + "\n";
  const logText = edit.log ? edit.log(log.split("\n")).join("\n") : log;
  await writeFiles(dir, { "ops_perf_results_x.csv": csvText, "profile_log_device.csv": logText });
  return table;
}

const cell = (table: { header: string[]; rows: string[][] }, id: string, name: string) =>
  table.rows[Number(id) - 2][table.header.indexOf(name)];

Deno.test("per-core spans agree with the CSV's per-core min, max and average", async () => {
  // Prevents spans measured differently from tt-metal's DEVICE KERNEL DURATION PER CORE.
  for (const options of [{}, { clockMhz: 1350, devices: 2, replays: 2 }] as CaptureOptions[]) {
    await using dir = await tempDir();
    const table = await capture(dir.path, options);
    const s = deviceLogSession();
    const { handle } = await s.load(dir.path);
    const a = await s.call("core_spread", { handle, limit: 25 });
    assert.equal(a.returned, Math.min(25, a.op_count as number));
    for (const op of a.operations as Row[]) {
      const span = op.span_us as Row;
      const csv = op.csv_per_core_us as Row;
      const ns = (n: string) => Number(cell(table, op.id as string, n)) / 1000;
      assert.equal(op.in_log, true);
      assert.equal(span.min, ns("DEVICE KERNEL DURATION PER CORE MIN [ns]"), `min of ${op.id}`);
      assert.equal(span.max, ns("DEVICE KERNEL DURATION PER CORE MAX [ns]"), `max of ${op.id}`);
      assert.equal(span.mean, csv.avg, `avg of ${op.id}`);
      assert.deepEqual([csv.min, csv.max], [span.min, span.max]);
      assert.equal(op.cores_recorded, op.core_count);
      assert.equal(op.device, Number(cell(table, op.id as string, "DEVICE ID")));
      assert.equal(op.caveat, undefined, `${op.id}: ${op.caveat}`);
      assert.equal((op.slowest_cores as Row[])[0].span_us, span.max);
      const ratio = (span.max as number) / (span.median as number);
      assert.ok(Math.abs((op.imbalance as number) - ratio) < 0.002, "imbalance is max over median");
      const risc = (op.per_risc as Row[]).map((r) => r.risc);
      assert.deepEqual(risc, ["BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2"]);
    }
  }
});

Deno.test("an operation longer than 2^32 cycles keeps its spans exact", async () => {
  // Prevents a long operation's kernel offsets being kept in 32 bits and wrapping: records are
  // narrow only for windows shorter than 2^32 cycles.
  const [header, ...rows] = firstOps(3).trimEnd().split("\n");
  const names = header.split(",");
  const long = rows.findIndex((r) => r.includes(",tt_dnn_device,"));
  const cells = rows[long].split(",");
  for (const n of ["MIN", "MAX", "AVG"]) {
    const c = names.indexOf(`DEVICE KERNEL DURATION PER CORE ${n} [ns]`);
    cells[c] = String(Number(cells[c]) + 5e9); // over 2^32 cycles at 1000 MHz
  }
  rows[long] = cells.join(",");
  await using dir = await tempDir();
  const table = await capture(dir.path, {}, {}, [header, ...rows].join("\n") + "\n");
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const a = await s.call("core_spread", { handle, limit: 25 });
  const op = (a.operations as Row[])[0];
  const ns = (n: string) => Number(cell(table, op.id as string, n)) / 1000;
  assert.ok(ns("DEVICE KERNEL DURATION PER CORE MIN [ns]") > 2 ** 32 / 1000);
  assert.equal((op.span_us as Row).min, ns("DEVICE KERNEL DURATION PER CORE MIN [ns]"));
  assert.equal((op.span_us as Row).max, ns("DEVICE KERNEL DURATION PER CORE MAX [ns]"));
  assert.equal((op.span_us as Row).mean, (op.csv_per_core_us as Row).avg);
});

Deno.test("trace replays of one call count each get their own firmware window's figures", async () => {
  // Prevents a traced op's replays pooling into one spread.
  await using dir = await tempDir();
  const table = await capture(dir.path, { replays: 3 }, {}, firstOps(1));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const ids = table.rows.map((r, i) => [r, i + 2] as const)
    .filter(([r]) => r[table.header.indexOf("OP TYPE")] === "tt_dnn_device").map(([, id]) => id);
  assert.equal(ids.length, 3);
  const maxes = new Set<unknown>();
  for (const id of ids) {
    const a = await s.call("core_spread", { handle, perf_id: id });
    const op = (a.operations as Row[])[0];
    assert.equal(
      (op.span_us as Row).max,
      Number(cell(table, String(id), "DEVICE KERNEL DURATION PER CORE MAX [ns]")) / 1000,
    );
    maxes.add((op.span_us as Row).max);
  }
  assert.equal(maxes.size, 3, "the replays differ, so pooling would have shown one figure");
});

Deno.test("a multi-device row is read on its own device only: the slowest one's", async () => {
  // Prevents spans mixing two chips' clocks, or reading a device the row does not report.
  await using dir = await tempDir();
  const table = await capture(dir.path, { devices: 4 }, {}, firstOps(2));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const a = await s.call("core_spread", { handle });
  for (const op of a.operations as Row[]) {
    const id = Number(op.id);
    const kernel = table.header.indexOf("DEVICE KERNEL DURATION [ns]");
    const gcc = cell(table, String(id), "GLOBAL CALL COUNT");
    const same = table.rows.filter((r) => r[table.header.indexOf("GLOBAL CALL COUNT")] === gcc);
    assert.equal(same.length, 4);
    assert.equal(
      Number(cell(table, String(id), "DEVICE KERNEL DURATION [ns]")),
      Math.max(...same.map((r) => Number(r[kernel]))),
    );
    assert.equal(op.cores_recorded, op.core_count, "cores of one device, not four");
  }
  // Another device's line of a merged row answers for the merged row, and says so.
  const merged = (a.operations as Row[])[0];
  const other = table.rows.findIndex((r, i) =>
    i + 2 !== Number(merged.id) &&
    r[table.header.indexOf("GLOBAL CALL COUNT")] === String(merged.global_call_count)
  ) + 2;
  const b = await s.call("core_spread", { handle, perf_id: String(other) });
  const op = (b.operations as Row[])[0];
  assert.equal(op.id, merged.id);
  assert.equal(op.asked_perf_id, String(other));
  assert.match(String(op.note), /line of this merged row/);
});

Deno.test("a collective is read on its first device, and says its device_time is a mean", async () => {
  // Prevents comparing one device's spans with an averaged device time unawares.
  await using dir = await tempDir();
  const source = firstOps(1).replace("\nEmbeddings,", "\nAllGatherAsync,");
  await capture(dir.path, { devices: 2 }, {}, source);
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const op = ((await s.call("core_spread", { handle })).operations as Row[])[0];
  assert.equal(op.device, 0);
  assert.match(String(op.caveat), /collective.*first device's.*mean across 2 devices/);
});

Deno.test("operations past the end of a log that stopped have in_log false and no figures", async () => {
  // Prevents zeros standing in for figures the log does not hold.
  await using dir = await tempDir();
  await capture(dir.path, { truncateAfterRows: 310 }, {}, firstOps(3));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const a = await s.call("core_spread", { handle, limit: 5 });
  const out = (a.operations as Row[]).filter((o) => o.in_log === false);
  assert.ok(out.length >= 1);
  for (const op of out) {
    assert.equal(op.span_us, undefined);
    assert.equal(op.cores_recorded, undefined);
    assert.match(String(op.caveat), /no kernel zone for call count .* stop before this operation/);
  }
  const cut = (a.operations as Row[]).find((o) => o.in_log === true && o.unpaired_zones);
  assert.ok(cut, "the operation the log stopped in reports its unpaired zones");
  assert.match(
    String(cut.caveat),
    /did not pair; unpaired zones are counted per call count and device/,
  );
});

Deno.test("zones under the call count but outside every row's cycles name another execution", async () => {
  // Prevents a device log from a different run being read as this CSV's.
  await using dir = await tempDir();
  await capture(dir.path, {}, {
    csv: (cells, col) => {
      for (const name of ["DEVICE FW START CYCLE", "DEVICE FW END CYCLE"]) {
        if (cells[col(name)]) cells[col(name)] = String(Number(cells[col(name)]) + 5e9);
      }
    },
  }, firstOps(2));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const op = ((await s.call("core_spread", { handle })).operations as Row[])[0];
  assert.equal(op.in_log, false);
  assert.match(String(op.caveat), /none inside this row's DEVICE FW START.*another execution/);
});

Deno.test("a replay whose zones are missing while others have theirs names a filled profiler buffer", async () => {
  // Prevents blaming another execution when the trace's later replays were dropped.
  await using dir = await tempDir();
  const table = await capture(dir.path, { replays: 2 }, {
    // The second pass's rows carry trace id counter 1: drop them, as a full buffer does.
    log: (lines) => lines.filter((l) => !l.includes(", , 1, ") && !/, 0, 1, [A-Z]/.test(l)),
  }, firstOps(1));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const device = table.rows.map((_, i) => i + 2).filter((id) =>
    cell(table, String(id), "OP TYPE") === "tt_dnn_device"
  );
  const [first, second] = await Promise.all(
    device.map(async (id) =>
      ((await s.call("core_spread", { handle, perf_id: id })).operations as Row[])[0]
    ),
  );
  assert.equal(first.in_log, true);
  assert.equal(second.in_log, false);
  assert.match(String(second.caveat), /inside other replays' firmware cycles.*profiler buffer/);
});

Deno.test("a row without firmware cycles takes every zone of its call count and says it pools", async () => {
  // Prevents a pooled figure over several replays passing as one execution's.
  await using dir = await tempDir();
  await capture(dir.path, { replays: 2 }, {
    csv: (cells, col) => {
      cells[col("DEVICE FW START CYCLE")] = "";
      cells[col("DEVICE FW END CYCLE")] = "";
    },
  }, firstOps(1));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const op = ((await s.call("core_spread", { handle })).operations as Row[])[0];
  assert.equal(op.in_log, true);
  assert.match(
    String(op.caveat),
    /no DEVICE FW START\/END CYCLE.*2 rows of the CSV share: its figures pool/,
  );
});

Deno.test("more cores than the row reports, or fewer, are caveated", async () => {
  // Prevents a helper core's role or dropped markers skewing the spread unannounced.
  await using dir = await tempDir();
  await capture(dir.path, {}, {
    csv: (cells, col) => {
      if (cells[col("OP CODE")] === "Embeddings") cells[col("CORE COUNT")] = "1";
      if (cells[col("OP CODE")] === "LayerNorm") cells[col("CORE COUNT")] = "40";
    },
  }, firstOps(2));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const ops = (await s.call("core_spread", { handle })).operations as Row[];
  const emb = ops.find((o) => o.op_code === "Embeddings")!;
  const ln = ops.find((o) => o.op_code === "LayerNorm")!;
  assert.match(
    String(emb.caveat),
    /2 cores recorded kernel zones against the row's CORE COUNT of 1.*helper cores/,
  );
  assert.match(String(ln.caveat), /Only 16 of the row's 40 cores recorded.*host log only/);
});

Deno.test("kernel rows whose numbers do not parse are left out and counted", async () => {
  // Prevents one corrupt row failing core_spread, or vanishing silently.
  await using dir = await tempDir();
  await capture(dir.path, {}, {
    log: (lines) => lines.map((l, i) => (i === 3 ? l.replace(/^0, 1, 1,/, "0, x, 1,") : l)),
  }, firstOps(1));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const a = await s.call("core_spread", { handle });
  assert.match(String(a.caveat), /1 kernel rows .* left out .* line 4/);
});

Deno.test("perf_id is checked: an unknown row, a signpost and a host op are refused", async () => {
  // Prevents answering about a row that does not exist or ran nothing on a device.
  await using dir = await tempDir();
  const host = "\nttnn.to_torch,python_fallback,7,,,,,,,,11684371000,11684371500,500";
  await capture(dir.path, {}, {}, firstOps(1).replace("\nEmbeddings,", `${host}\nEmbeddings,`));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  assert.match(
    await s.refusal("core_spread", { handle, perf_id: 99 }),
    /no performance row has id 99/,
  );
  assert.match(
    await s.refusal("core_spread", { handle, perf_id: 2 }),
    /row 2 \(ttnn\.to_torch\) ran on no device: it is a host operation/,
  );
  assert.match(await s.refusal("core_spread", { handle, perf_id: "4" }), /row 4 is a signpost/);
  assert.match(await s.refusal("core_spread", { handle, perf_id: "x" }), /perf_id/);
});

Deno.test("a limit past the cap returns the cap", async () => {
  // Prevents an answer describing every operation of a large report.
  await using dir = await tempDir();
  await capture(dir.path, { replays: 2 });
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const a = await s.call("core_spread", { handle, limit: 1000 });
  assert.deepEqual([a.returned, a.op_count], [25, 48]);
});

Deno.test("load_report lists core_spread only with a reportable CSV, start/end markers and a clock", async () => {
  // Prevents advertising core_spread for a capture it must refuse, or refusing without a reason.
  await using dir = await tempDir();
  const s = deviceLogSession();
  const { csv, log } = generateCapture(firstOps(1));
  const noType = log.replace(", type,", ",").replaceAll(/, ZONE_(START|END),/g, ",");
  const cases: [string, Record<string, string>, RegExp | null][] = [
    ["ok", { "ops_perf_results_x.csv": csv, "profile_log_device.csv": log }, null],
    [
      "no-type",
      { "ops_perf_results_x.csv": csv, "profile_log_device.csv": noType },
      /no type or zone phase column/,
    ],
    ["no-clock", {
      "ops_perf_results_x.csv": csv,
      "profile_log_device.csv": log.replace("CHIP_FREQ[MHz]: 1000", "CHIP_FREQ[MHz]: 0"),
    }, /CHIP_FREQ\[MHz\] as "0"/],
    [
      "no-csv",
      { "profile_log_device.csv": log },
      /performance CSV cannot be reported on: no ops_perf_results/,
    ],
    [
      "bad-csv",
      { "ops_perf_results_x.csv": "OP CODE\nMatmul\n", "profile_log_device.csv": log },
      /missing columns/,
    ],
  ];
  for (const [name, files, why] of cases) {
    await writeFiles(`${dir.path}/${name}`, files);
    const a = await s.load(`${dir.path}/${name}`);
    assert.ok((a.answerable as string[]).includes("zone_timings"), name);
    if (why === null) {
      assert.ok((a.answerable as string[]).includes("core_spread"), name);
      continue;
    }
    assert.match(String(reasonsByTool(a).core_spread), why, name);
    assert.match(await s.refusal("core_spread", { handle: a.handle }), why, name);
  }
});

Deno.test("zone_timings alone reads zone totals only; core_spread's read then answers both", async () => {
  // Prevents zone_timings paying for core_spread's kernel spans (on a 1 GB log, twice the time
  // and several times the memory), and a zones read kept beside the read that supersedes it.
  await using dir = await tempDir();
  await capture(dir.path, {}, {}, firstOps(2));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const report = await s.registry.get(String(handle));
  const reads = () =>
    [...report.cache.keys()].filter((k) => k.startsWith("device-log-read"))
      .map((k) => k.split("\u0000")[1]);
  const zones = await s.call("zone_timings", { handle, limit: 100 });
  assert.deepEqual(reads(), ["zones"]);
  await s.call("core_spread", { handle });
  assert.deepEqual(reads(), ["spans"]);
  assert.deepEqual(await s.call("zone_timings", { handle, limit: 100 }), zones);
  assert.deepEqual(reads(), ["spans"]);
});

Deno.test("the first core_spread reads the log once; later calls and zone_timings answer from it", async () => {
  // Prevents re-reading a large log on every call.
  await using dir = await tempDir();
  await capture(dir.path, {}, {}, firstOps(2));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  const first = await s.call("core_spread", { handle });
  // The read is kept on the handle; a later call that read again would keep its own.
  const report = await s.registry.get(String(handle));
  const kept = [...report.cache.entries()].filter(([k]) => k.startsWith("device-log-read"));
  assert.equal(kept.length, 1);
  assert.deepEqual(await s.call("core_spread", { handle }), first);
  const zones = await s.call("zone_timings", { handle, limit: 100 });
  assert.ok((zones.zones as Row[]).some((z) => z.zone === "BRISC-KERNEL"));
  assert.deepEqual(
    [...report.cache.entries()].filter(([k]) => k.startsWith("device-log-read")),
    kept,
  );
});

Deno.test("a row's figures are worked out when first read, then kept", async () => {
  // Prevents the first core_spread working out the figures of every operation (three
  // quarters of a second and tens of MiB on a 35,000-row capture) to answer for five.
  await using dir = await tempDir();
  await capture(dir.path, {}, {}, firstOps(3));
  const s = deviceLogSession();
  const { handle } = await s.load(dir.path);
  await s.call("core_spread", { handle });
  const report = await s.registry.get(String(handle));
  const read = [...report.cache.entries()].find(([k]) => k.startsWith("device-log-read"))![1];
  const log = await (read as SharedWork<DeviceLogSummary>).join();
  const spans = [...log.spans!.byRow.values()].find((r) => r.hasWindow)!;
  const figures = Object.getOwnPropertyDescriptor(spans, "figures")!;
  assert.equal(typeof figures.get, "function", "a getter, not a value made up front");
  assert.ok(spans.figures !== null && spans.figures === spans.figures, "kept once made");
});
