/**
 * top_ops and op_breakdown through the SDK client over stdio, on edited copies of the demo
 * capture: what an answer says when some rows have no usable time, how op_breakdown's shares
 * are made (of the whole, of the rest, of a window), how it orders groups, and the row keys
 * and caveat a partitioned run carries.
 */
import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { notesRead } from "../_support/notes.ts";

type Row = Record<string, unknown>;
const FIXTURES = new URL("../../fixtures/perf/", import.meta.url).pathname;
const DURATION = "DEVICE KERNEL DURATION [ns]";
const LATENCY = "OP TO OP LATENCY [ns]";

/** The sum of `key` over `rows` (and `rest`, when given). */
function total(rows: Row[], key: string, rest?: Row | null): number {
  return rows.reduce((t, r) => t + (r[key] as number), rest ? rest[key] as number : 0);
}

Deno.test("an unusable duration is named in a timing caveat, not folded silently into a smaller total", async () => {
  // Prevents a device_time_total that drops a row's time without saying so.
  await using dir = await tempDir();
  // Line 5 is a Matmul (44,217 ns), line 7 an SDPA op, line 9 a Matmul (30,055 ns), line 27
  // the Untilize after the PERF_DECODE_END signpost (7,300 ns).
  const csv = editCsv((row, i) => {
    if (i === 3) row[DURATION] = "12abc";
    if (i === 5) row[LATENCY] = "fast";
    if (i === 7) row[DURATION] = "-30055";
    if (i === 25) row[DURATION] = "";
  });
  await writeFiles(dir.path, { "edited/ops_perf_results_x.csv": csv });
  const { client, close } = await connect();
  try {
    const clean = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    const whole = await callOk(client, "top_ops", { handle: clean.handle });
    assert.equal(whole.rows_without_device_time, undefined, "a clean report has no such key");
    assert.equal(whole.timing_caveat, undefined);

    const { handle } = await callOk(client, "load_report", {
      performance_path: `${dir.path}/edited`,
    });
    const top = await callOk(client, "top_ops", { handle, limit: 100 });
    assert.equal(top.rows_without_device_time, 3);
    const caveat = String(top.timing_caveat);
    assert.match(caveat, /^3 device operations have no device time \(ids 5, 9, 27\): /);
    assert.match(caveat, /left out of every device-time ranking, total and share/);
    assert.match((await notesRead(client, top))["timing.no_device_time"], /below -1 ms/);
    assert.match(
      caveat,
      /DEVICE KERNEL DURATION \[ns\] column holds 1 cell that is not a finite number \(the first on line 5: "12abc"\)\./,
    );
    assert.match(
      caveat,
      /OP TO OP LATENCY \[ns\] column holds 1 cell that is not a finite number \(the first on line 7: "fast"\); those rows have no op-to-op gap/,
    );
    // The total is tt-perf-report's (the two rows left out), and the caveat says so.
    assert.equal(
      top.device_time_total,
      Math.round(((whole.device_time_total as number) - 44.217 - 30.055 - 7.3) * 1000) / 1000,
    );
    const ids = (top.ops as Row[]).map((r) => r.id);
    assert.ok(!ids.includes("5") && !ids.includes("9"), "rows without a time are not ranked");
    for (const by of ["cores", "op_to_op_gap"]) {
      const other = await callOk(client, "top_ops", { handle, by });
      assert.equal(other.rows_without_device_time, 3, by);
      assert.equal(other.timing_caveat, caveat, by);
    }
    const gaps = await callOk(client, "top_ops", { handle, by: "op_to_op_gap", limit: 100 });
    assert.ok(!(gaps.ops as Row[]).some((r) => r.id === "7"), "a junk latency has no gap");

    const breakdown = await callOk(client, "op_breakdown", { handle });
    assert.equal(breakdown.rows_without_device_time, 3);
    assert.equal(breakdown.timing_caveat, caveat);
    const matmul = (breakdown.groups as Row[]).find((g) => g.group === "Matmul")!;
    assert.equal(matmul.count, 8, "a row without a time still counts in its group");
    // Over a window the count is of the window's rows; the unusable cells are the CSV's.
    const ranged = await callOk(client, "top_ops", {
      handle,
      start_signpost: "PERF_DECODE",
      end_signpost: "PERF_DECODE_END",
    });
    assert.equal(ranged.rows_without_device_time, 2);
    assert.match(
      String(ranged.timing_caveat),
      /^2 device operations .*\(ids 5, 9\): .*line 7: "fast"/,
    );
  } finally {
    await close();
  }
});

Deno.test("op_breakdown's shares add up over the groups and rest, of the whole and of a window", async () => {
  // Prevents a share of the wrong total: the gap shares, the rest's shares or a window's.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const all = await callOk(client, "op_breakdown", { handle, limit: 100 });
    const groups = all.groups as Row[];
    for (const key of ["device_time_share_percent", "op_to_op_gap_share_percent"]) {
      assert.ok(Math.abs(total(groups, key) - 100) < 0.05 * groups.length, key);
    }
    const top = await callOk(client, "top_ops", { handle, by: "total_percent", limit: 100 });
    // Each group's total_percent and the total are rounded to 3 decimals.
    const drift = Math.abs(total(groups, "total_percent") - (top.total_percent_total as number));
    assert.ok(drift <= 0.0005 * (groups.length + 1), `total_percent adds up (${drift})`);
    for (const g of groups) {
      const share = (g.op_to_op_gap as number) / (all.op_to_op_gap_total as number) * 100;
      assert.equal(g.op_to_op_gap_share_percent, Number(share.toPrecision(3)), String(g.group));
    }

    const two = await callOk(client, "op_breakdown", { handle, limit: 2 });
    const rest = two.rest as Row;
    const restGroups = groups.slice(2);
    const restTime = restGroups.reduce((t, g) => t + (g.device_time as number), 0);
    assert.equal(rest.device_time, Math.round(restTime * 1000) / 1000);
    assert.equal(
      rest.device_time_share_percent,
      Number((restTime / (all.device_time_total as number) * 100).toPrecision(3)),
    );
    const restGap = restGroups.reduce((t, g) => t + (g.op_to_op_gap as number), 0);
    assert.ok(Math.abs((rest.op_to_op_gap as number) - restGap) < 1e-6);
    for (const key of ["device_time_share_percent", "op_to_op_gap_share_percent"]) {
      assert.ok(Math.abs(total(two.groups as Row[], key, rest) - 100) < 0.2, `${key} with rest`);
    }

    const window = await callOk(client, "op_breakdown", {
      handle,
      start_signpost: "PERF_DECODE",
      end_signpost: "PERF_DECODE_END",
      limit: 100,
    });
    const windowGroups = window.groups as Row[];
    // The window leaves out the first op (Embeddings) and the last (Untilize).
    assert.ok(!windowGroups.some((g) => g.group === "Embeddings" || g.group === "Untilize"));
    assert.ok((window.device_time_total as number) < (all.device_time_total as number));
    for (const g of windowGroups) {
      const share = (g.device_time as number) / (window.device_time_total as number) * 100;
      assert.ok(Math.abs((g.device_time_share_percent as number) - share) < 0.05, String(g.group));
    }
    assert.ok(Math.abs(total(windowGroups, "device_time_share_percent") - 100) < 0.2);
    assert.deepEqual(
      {
        start: (window.projection as Row).start_signpost,
        end: (window.projection as Row).end_signpost,
      },
      { start: "PERF_DECODE", end: "PERF_DECODE_END" },
    );
  } finally {
    await close();
  }
});

Deno.test("op_breakdown orders groups by count or total_percent when asked", async () => {
  // Prevents `by` from being accepted and ignored.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    for (const by of ["count", "total_percent", "device_time"]) {
      const a = await callOk(client, "op_breakdown", { handle, by, limit: 100 });
      assert.equal(a.by, by);
      const values = (a.groups as Row[]).map((g) => g[by] as number);
      for (let i = 1; i < values.length; i++) assert.ok(values[i - 1] >= values[i], `${by} ${i}`);
    }
    const byCount = await callOk(client, "op_breakdown", { handle, by: "count", limit: 1 });
    assert.equal((byCount.groups as Row[])[0].group, "Matmul");
  } finally {
    await close();
  }
});

Deno.test("a partitioned run's rows carry their sub-device and op type, and its totals the caveat", async () => {
  // Prevents rows that hide which sub-device ran them, or a breakdown of an unsound total given without warning.
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "sd/ops_perf_results_sd.csv": Deno.readTextFileSync(`${FIXTURES}sub_devices.csv`),
  });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: `${dir.path}/sd` });
    const top = await callOk(client, "top_ops", { handle });
    const rows = top.ops as Row[];
    assert.deepEqual(rows.map((r) => r.sub_device_id), ["1.5", "2", null]);
    assert.ok(rows.every((r) => r.op_type === "tt_dnn_device"));
    assert.match(String(top.caveat), /the rows span 2 sub-devices \(1\.5, 2\)/);
    const breakdown = await callOk(client, "op_breakdown", { handle });
    assert.equal(breakdown.caveat, top.caveat);
    const cores = await callOk(client, "top_ops", { handle, by: "cores" });
    assert.doesNotMatch(String(cores.caveat ?? ""), /sub-device/, "no total, so no caveat on it");
  } finally {
    await close();
  }
});

Deno.test("a signpost name's length is counted in characters alike by load_report and a range", async () => {
  // Prevents load_report from calling a name too long that a range accepts (UTF-16 units vs characters).
  await using dir = await tempDir();
  const wide = "\u{1F600}".repeat(200); // 200 characters, 400 UTF-16 units
  const long = "x".repeat(257);
  const csv = editCsv((row) => {
    if (row["OP CODE"] === "PERF_DECODE") row["OP CODE"] = wide;
    if (row["OP CODE"] === "PERF_DECODE_END") row["OP CODE"] = long;
  });
  await writeFiles(dir.path, { "named/ops_perf_results_x.csv": csv });
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: `${dir.path}/named` });
    assert.deepEqual(a.signposts, [{ name: wide, count: 1 }]);
    assert.equal(a.signpost_count, 2);
    assert.equal(a.signposts_unlisted_too_long, 1);
    const listed = await callOk(client, "top_ops", { handle: a.handle, start_signpost: wide });
    assert.equal((listed.projection as Row).start_signpost, wide);
    assert.match(
      await callRefused(client, "top_ops", { handle: a.handle, end_signpost: long }),
      /end_signpost is 257 characters long; a signpost name is at most 256/,
    );
  } finally {
    await close();
  }
});

Deno.test("a caveat names the sub-devices in order, whatever order the rows ran them", async () => {
  // Prevents a caveat whose id list follows row order (10, 2) where upstream's is sorted.
  await using dir = await tempDir();
  const ids = ["10", "2", "1.5"];
  const csv = editCsv((row, i) => {
    row["SUB DEVICE ID"] = row["OP TYPE"] === "signpost" ? "" : ids[i % 3];
  });
  await writeFiles(dir.path, { "sd/ops_perf_results_x.csv": csv });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: `${dir.path}/sd` });
    const top = await callOk(client, "top_ops", { handle });
    assert.match(String(top.caveat), /^the rows span 3 sub-devices \(1\.5, 2, 10\): /);
    const diff = await callOk(client, "diff_reports", { handle_a: handle, handle_b: handle });
    assert.match(String(diff.caveat), /^the reports span 3 sub-devices \(1\.5, 2, 10\): /);
  } finally {
    await close();
  }
});
