import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { session } from "../_support/in_process.ts";
import { captureNamesOrSkip, CAPTURES_DIR } from "../perf_report/_golden.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";

type Row = Record<string, unknown>;
const PERF = CAPTURES_DIR;
const haveCaptures = captureNamesOrSkip().length > 0;

async function loadCsvs(csvs: Record<string, string>) {
  const dir = await tempDir();
  const s = session();
  const handles: Record<string, string> = {};
  for (const [name, csv] of Object.entries(csvs)) {
    await writeFiles(`${dir.path}/${name}`, { "ops_perf_results_t.csv": csv });
    handles[name] = (await s.call("load_report", { performance_path: `${dir.path}/${name}` }))
      .handle as string;
  }
  return { s, handles, dir };
}

Deno.test({
  name:
    "program_cache counts match an independent count from the raw CSV (bh_invalid_trace_decode_window)",
  ignore: !haveCaptures,
  async fn() {
    // Prevents miscounted repeats or hits on a real capture.
    const dir = `${PERF}bh_invalid_trace_decode_window`;
    const file = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".csv"))!.name;
    const table = parseCsvTable(Deno.readTextFileSync(`${dir}/${file}`), file);
    const col = (n: string) => table.header.indexOf(n);
    const expected = new Map<
      string,
      { calls: number; hashes: Set<string>; repeats: number; misses: number; hits: number }
    >();
    const seen = new Set<string>();
    for (const r of table.rows) {
      if (r[col("OP TYPE")] === "signpost") continue;
      const op = r[col("OP CODE")];
      const hash = r[col("PROGRAM HASH")];
      const e = expected.get(op) ?? { calls: 0, hashes: new Set(), repeats: 0, misses: 0, hits: 0 };
      expected.set(op, e);
      e.calls++;
      if (!hash) continue;
      e.hashes.add(hash);
      if (seen.has(hash)) {
        e.repeats++;
        if (r[col("PROGRAM CACHE HIT")] === "False") e.misses++;
        if (r[col("PROGRAM CACHE HIT")] === "True") e.hits++;
      }
      seen.add(hash);
    }
    const s = session();
    const { handle } = await s.call("load_report", { performance_path: dir });
    const a = await s.call("program_cache", { handle, limit: 100 });
    assert.equal(a.op_code_count, expected.size);
    for (const entry of a.op_codes as Row[]) {
      const e = expected.get(entry.op_code as string)!;
      assert.deepEqual(
        [
          entry.calls,
          entry.distinct_programs,
          entry.repeat_calls,
          entry.repeat_misses,
          entry.repeat_hits,
        ],
        [e.calls, e.hashes.size, e.repeats, e.misses, e.hits],
        entry.op_code as string,
      );
    }
    const misses = (a.op_codes as Row[]).map((e) => e.repeat_misses as number);
    assert.deepEqual(misses, [...misses].sort((x, y) => y - x), "most repeat misses first");
  },
});

Deno.test("program_cache separates unrecorded repeats, names the first repeat miss, and is refused without the columns", async () => {
  // Prevents a blank cache cell counted as a miss, and an answer from a capture that records nothing.
  const withCache = editCsv((r) => {
    const sp = r["OP TYPE"] === "signpost";
    r["PROGRAM HASH"] = sp ? "" : `h-${r["OP CODE"]}`;
    r["PROGRAM CACHE HIT"] = sp
      ? ""
      : r["OP CODE"] === "BinaryNgDeviceOperation"
      ? ""
      : r["OP CODE"] === "LayerNorm"
      ? "True"
      : "False";
  });
  const none = editCsv(() => {}, { drop: ["PROGRAM HASH", "PROGRAM CACHE HIT"] });
  const { s, handles, dir } = await loadCsvs({ cache: withCache, none });
  await using _ = dir;
  const loaded = await s.call("load_report", { performance_path: `${dir.path}/none` });
  assert.ok((loaded.unanswerable as string[]).includes("program_cache"));
  assert.match(
    String(reasonsByTool(loaded).program_cache),
    /PROGRAM HASH or PROGRAM CACHE HIT/,
  );
  assert.match(
    await s.refusal("program_cache", { handle: handles.none }),
    /no PROGRAM HASH or PROGRAM CACHE HIT column/,
  );
  const a = await s.call("program_cache", { handle: handles.cache, limit: 100 });
  const byOp = Object.fromEntries((a.op_codes as Row[]).map((e) => [e.op_code, e]));
  assert.deepEqual(
    [
      byOp.Matmul.calls,
      byOp.Matmul.distinct_programs,
      byOp.Matmul.repeat_calls,
      byOp.Matmul.repeat_misses,
    ],
    [8, 1, 7, 7],
  );
  assert.equal(byOp.Matmul.first_repeat_miss_perf_id, "9");
  assert.equal(byOp.Matmul.repeat_hit_percent, 0);
  assert.equal(byOp.LayerNorm.repeat_hit_percent, 100);
  assert.equal(byOp.BinaryNgDeviceOperation.repeat_unrecorded, 3);
  assert.equal(byOp.BinaryNgDeviceOperation.repeat_hit_percent, null);
  assert.match(String(a.caveat), /3 repeat calls recorded no cache result/);
  assert.doesNotMatch(String(a.caveat), /disabled/);
  assert.equal((a.op_codes as Row[])[0].op_code, "Matmul");
  const one = await s.call("program_cache", { handle: handles.cache, limit: 1 });
  assert.equal(one.returned, 1);
  assert.equal(one.op_code_count, 8);
});

Deno.test("diff_reports of a report against itself is all zeros, and an inserted op is a change of its own", async () => {
  // Prevents a shifted row id from making every later op a change.
  const base = editCsv(() => {});
  const inserted = editCsv((r) => {
    if (r["OP CODE"] === "Embeddings") {
      return [{ ...r, "OP CODE": "Typecast", "DEVICE KERNEL DURATION [ns]": "5000" }];
    }
  });
  const { s, handles, dir } = await loadCsvs({ base, inserted });
  await using _ = dir;
  const same = await s.call("diff_reports", {
    handle_a: handles.base,
    handle_b: handles.base,
    limit: 100,
  });
  assert.equal(same.delta_total, 0);
  assert.ok((same.changes as Row[]).every((c) => c.delta === 0));
  const d = await s.call("diff_reports", {
    handle_a: handles.base,
    handle_b: handles.inserted,
    limit: 100,
  });
  const changes = d.changes as Row[];
  assert.deepEqual(changes[0], {
    op_code: "Typecast",
    device_time_before: 0,
    device_time_after: 5,
    delta: 5,
    count_before: 0,
    count_after: 1,
  });
  assert.ok(changes.slice(1).every((c) => c.delta === 0), "every other op code is unchanged");
  assert.equal(d.delta_total, 5);
  assert.equal(d.grouped_by, "op_code");
  assert.equal(d.before, handles.base);
});

Deno.test("diff_reports puts the largest movement first in either direction, ties in op-code order", async () => {
  // Prevents a big regression hiding behind a small improvement, and answers that reorder between runs.
  const after = editCsv((r) => {
    if (r["OP CODE"] === "LayerNorm") {
      r["DEVICE KERNEL DURATION [ns]"] = String(Number(r["DEVICE KERNEL DURATION [ns]"]) - 5000);
    }
    if (r["OP CODE"] === "Untilize") {
      r["DEVICE KERNEL DURATION [ns]"] = String(Number(r["DEVICE KERNEL DURATION [ns]"]) + 7000);
    }
  });
  const { s, handles, dir } = await loadCsvs({ before: editCsv(() => {}), after });
  await using _ = dir;
  const d = await s.call("diff_reports", {
    handle_a: handles.before,
    handle_b: handles.after,
    limit: 100,
  });
  const c = d.changes as Row[];
  assert.deepEqual(c.slice(0, 2).map((x) => [x.op_code, x.delta]), [["LayerNorm", -20], [
    "Untilize",
    7,
  ]]);
  const zeros = c.slice(2).map((x) => x.op_code as string);
  assert.deepEqual(zeros, [...zeros].sort());
});

Deno.test("diff_reports refuses a rate, a range one report cannot honour, and a range only one report can", async () => {
  // Prevents summing a per-op rate, and comparing a window against a whole report.
  const flat = editCsv((r) => r["OP TYPE"] !== "signpost");
  const { s, handles, dir } = await loadCsvs({ a: editCsv(() => {}), b: editCsv(() => {}), flat });
  await using _ = dir;
  for (const by of ["flops", "dram", "cores"]) {
    const why = await s.refusal("diff_reports", { handle_a: handles.a, handle_b: handles.b, by });
    assert.match(why, /per-operation rate or allocation/);
    assert.match(why, /device_time/);
  }
  const range = { start_signpost: "PERF_DECODE", end_signpost: "PERF_DECODE_END" };
  assert.match(
    await s.refusal("diff_reports", { handle_a: handles.a, handle_b: handles.flat, ...range }),
    /handle_b \(report-3\) holds no signposts while the other report does/,
  );
  assert.match(
    await s.refusal("diff_reports", {
      handle_a: handles.a,
      handle_b: handles.b,
      start_signpost: "NOPE",
    }),
    /^handle_a \(report-1\): start_signpost "NOPE" is not a signpost/,
  );
  const ranged = await s.call("diff_reports", {
    handle_a: handles.a,
    handle_b: handles.b,
    ...range,
  });
  assert.equal((ranged.projection as { before: Row }).before.start_signpost, "PERF_DECODE");
  const gaps = await s.call("diff_reports", {
    handle_a: handles.flat,
    handle_b: handles.flat,
    by: "op_to_op_gap",
    start_signpost: "X",
  });
  assert.equal((gaps.projection as { after: Row }).after.signpost_range_ignored, true);
  assert.match(
    await s.refusal("diff_reports", { handle_a: handles.a, handle_b: "report-9" }),
    /unknown handle 'report-9'/,
  );
});

Deno.test("diff_reports carries the sub-device caveat when either report is partitioned", async () => {
  // Prevents a delta of concurrent sub-devices' summed time read as elapsed time.
  const parted = editCsv((r) => {
    r["SUB DEVICE ID"] = r["OP TYPE"] === "signpost" ? "" : r["OP CODE"] === "Matmul" ? "1" : "0";
  });
  const { s, handles, dir } = await loadCsvs({ a: editCsv(() => {}), parted });
  await using _ = dir;
  const d = await s.call("diff_reports", { handle_a: handles.a, handle_b: handles.parted });
  assert.match(String(d.caveat), /2 sub-devices/);
  const t = await s.call("top_ops", { handle: handles.parted });
  assert.match(String(t.caveat), /2 sub-devices/);
  assert.equal(
    (await s.call("diff_reports", { handle_a: handles.a, handle_b: handles.a })).caveat,
    undefined,
  );
});
