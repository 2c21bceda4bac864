import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { copyDemo, DEMO, tempDir, writeFiles } from "../_support/dirs.ts";

type Row = Record<string, unknown>;
const demoCsv = () => Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);

/** The demo CSV with its data rows repeated `times` times (no signposts when `dropSignposts`). */
function repeated(times: number, dropSignposts = false): string {
  const [header, ...rows] = demoCsv().trimEnd().split("\n");
  const kept = dropSignposts ? rows.filter((r) => !r.includes(",signpost,")) : rows;
  return [header, ...Array.from({ length: times }, () => kept).flat()].join("\n") + "\n";
}

Deno.test("load_report lists the demo's signposts, device count and tt-perf-report version", async () => {
  // Prevents an agent from guessing range names the report does not hold.
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    assert.deepEqual(a.signposts, [{ name: "PERF_DECODE", count: 1 }, {
      name: "PERF_DECODE_END",
      count: 1,
    }]);
    assert.equal(a.signpost_count, 2);
    assert.equal((a.device_count as Row).performance_csv, 1);
    assert.match(String(a.tt_perf_report_version), /6278e268/);
    for (
      const tool of ["top_ops", "op_breakdown", "program_cache", "diff_reports", "lower_bounds"]
    ) {
      assert.ok((a.answerable as string[]).includes(tool), tool);
    }
  } finally {
    await close();
  }
});

Deno.test("top_ops ranks by each metric and totals only the additive ones", async () => {
  // Prevents a wrong ranking, a rate summed into a meaningless total, or a missing projection.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    for (const by of ["device_time", "op_to_op_gap", "total_percent", "flops", "dram", "cores"]) {
      const a = await callOk(client, "top_ops", { handle, by, limit: 5 });
      assert.equal(a.metric, by);
      assert.equal(a.op_count, 26);
      const ops = a.ops as Row[];
      assert.ok(ops.length > 0 && ops.length <= 5);
      for (let i = 1; i < ops.length; i++) {
        assert.ok((ops[i - 1][by] as number) >= (ops[i][by] as number));
      }
      assert.deepEqual(a.projection, {
        hide_host_ops: false,
        merge_devices: true,
        print_signposts: true,
      });
      assert.equal(
        typeof a[`${by}_total`] === "number",
        ["device_time", "op_to_op_gap", "total_percent"].includes(by),
      );
      assert.equal((a.operation_link as Row).status, "unavailable");
      for (const row of ops) {
        assert.deepEqual(Object.keys(row).slice(0, 2), ["id", "op_code"]);
        assert.equal(row.operation_id, null);
        assert.ok(["full", "flops_only", "none"].includes(row.bound_analysis as string));
      }
    }
    const top = await callOk(client, "top_ops", { handle });
    assert.match(String((top.ops as Row[])[0].op_code), /^Matmul /);
    assert.equal((top.ops as Row[])[0].bound_analysis, "full");
  } finally {
    await close();
  }
});

Deno.test("a limit past the cap returns the cap, and a non-integer limit is refused", async () => {
  // Prevents an answer the size of the report, and a silently truncated limit.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "ops_perf_results_big.csv": repeated(6) });
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: dir.path });
    const a = await callOk(client, "top_ops", { handle, limit: 100000 });
    assert.equal(a.op_count, 156);
    // 100 rows is the cap; the size budget may cut further, and then says so.
    const cut = (a.cut as Record<string, Row>).ops;
    assert.equal(a.returned, (a.ops as Row[]).length);
    assert.equal(cut.returned, a.returned);
    assert.ok((cut.total_rows as number) > 100, "every row with a device time is counted");
    assert.ok((a.returned as number) <= 100);
    assert.equal(cut.reason, (a.returned as number) < 100 ? "size" : "limit");
    assert.match(await callRefused(client, "top_ops", { handle, limit: 2.5 }), /limit: .*int/i);
    assert.match(await callRefused(client, "top_ops", { handle, limit: 0 }), /limit/);
    assert.match(
      await callRefused(client, "top_ops", { handle, by: "speed" }),
      /by: .*device_time.*op_to_op_gap/,
    );
    assert.match(
      await callRefused(client, "top_ops", { handle: "report-9" }),
      /unknown handle 'report-9'; loaded handles: report-1/,
    );
  } finally {
    await close();
  }
});

Deno.test("a signpost range is read as tt-perf-report reads it and named in the projection", async () => {
  // Prevents a ranged answer that includes the bounds, keeps the gap into the window, or hides its range.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const range = { start_signpost: "PERF_DECODE", end_signpost: "PERF_DECODE_END" };
    const a = await callOk(client, "top_ops", { handle, limit: 100, ...range });
    assert.equal(a.op_count, 22);
    assert.deepEqual(a.projection, {
      hide_host_ops: false,
      merge_devices: true,
      print_signposts: true,
      start_signpost: "PERF_DECODE",
      end_signpost: "PERF_DECODE_END",
      start_occurrence: 1,
      start_signpost_occurrences: 1,
    });
    const ids = (a.ops as Row[]).map((r) => Number(r.id));
    assert.ok(ids.every((id) => id > 3 && id < 26), "rows strictly between the bounds");
    const gaps = await callOk(client, "top_ops", {
      handle,
      by: "op_to_op_gap",
      limit: 100,
      ...range,
    });
    assert.equal((gaps.ops as Row[]).length, 21, "the window's first op has no gap");
    assert.ok(!(gaps.ops as Row[]).some((r) => r.id === "4"));
    const pct = await callOk(client, "top_ops", { handle, by: "total_percent", ...range });
    assert.ok(
      Math.abs((pct.total_percent_total as number) - 100) < 1e-9,
      "Total % is of the window",
    );
  } finally {
    await close();
  }
});

Deno.test("a range the report cannot honour is refused, naming what it holds", async () => {
  // Prevents answering a mistyped range from some other rows.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    assert.match(
      await callRefused(client, "top_ops", { handle, start_signpost: "PERF_DECOD" }),
      /PERF_DECOD.*PERF_DECODE.*PERF_DECODE_END/s,
    );
    assert.match(
      await callRefused(client, "top_ops", {
        handle,
        start_signpost: "PERF_DECODE",
        end_signpost: "PERF_DECODE",
      }),
      /once/,
    );
    assert.match(
      await callRefused(client, "op_breakdown", {
        handle,
        start_signpost: "PERF_DECODE_END",
        end_signpost: "PERF_DECODE",
      }),
      /before/,
    );
    assert.match(
      await callRefused(client, "top_ops", { handle, end_signpost: "x".repeat(300) }),
      /256/,
    );
  } finally {
    await close();
  }
});

Deno.test("a range on a report without signposts reads it whole and says so", async () => {
  // Prevents a window silently ignored, or an empty answer, on a capture with no signposts.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "ops_perf_results_flat.csv": repeated(1, true) });
  const { client, close } = await connect();
  try {
    const { handle, signposts, signpost_count } = await callOk(client, "load_report", {
      performance_path: dir.path,
    });
    assert.deepEqual(signposts, []);
    assert.equal(signpost_count, 0);
    const a = await callOk(client, "top_ops", { handle, start_signpost: "PERF_DECODE" });
    assert.equal(a.op_count, 24);
    assert.equal((a.projection as Row).signpost_range_ignored, true);
  } finally {
    await close();
  }
});

Deno.test("op_breakdown groups by op and by category, with shares that add up and a rest", async () => {
  // Prevents shares that do not sum to the whole, or groups past the limit silently dropped.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const all = await callOk(client, "op_breakdown", { handle, limit: 100 });
    const groups = all.groups as Row[];
    assert.equal(groups[0].group, "Matmul");
    assert.equal(groups[0].count, 8);
    assert.ok(
      !groups.some((g) => String(g.group).startsWith("PERF_DECODE")),
      "signposts are left out",
    );
    assert.equal(all.op_count, 24);
    assert.equal(all.rest, null);
    const two = await callOk(client, "op_breakdown", { handle, limit: 2 });
    const rest = two.rest as Row;
    assert.equal(rest.group_count, groups.length - 2);
    assert.equal((two.groups as Row[]).length + (rest.group_count as number), groups.length);
    const count = (two.groups as Row[]).reduce(
      (n, g) => n + (g.count as number),
      rest.count as number,
    );
    assert.equal(count, 24);
    const cats = await callOk(client, "op_breakdown", {
      handle,
      group_by: "op_category",
      by: "op_to_op_gap",
    });
    const catGroups = cats.groups as Row[];
    for (let i = 1; i < catGroups.length; i++) {
      assert.ok((catGroups[i - 1].op_to_op_gap as number) >= (catGroups[i].op_to_op_gap as number));
    }
    assert.ok(
      catGroups.every((g) =>
        ["Compute", "CCL", "DM", "TM", "Host", "Other"].includes(g.group as string)
      ),
    );
    const window = await callOk(client, "op_breakdown", {
      handle,
      start_signpost: "PERF_DECODE",
      end_signpost: "PERF_DECODE_END",
    });
    assert.equal(window.op_count, 22);
  } finally {
    await close();
  }
});

Deno.test("a rewritten CSV makes the handle stale and load_report again answers", async () => {
  // Prevents answering from a mix of the capture loaded and the one written since.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { performance_path: performance });
    await callOk(client, "top_ops", { handle });
    await Deno.writeTextFile(`${performance}/ops_perf_results_demo.csv`, repeated(2));
    assert.match(
      await callRefused(client, "top_ops", { handle }),
      /report-1 is stale: .*rewritten.*load_report again/,
    );
    assert.match(await callRefused(client, "op_breakdown", { handle }), /stale/);
    const fresh = await callOk(client, "load_report", { performance_path: performance });
    assert.equal((await callOk(client, "top_ops", { handle: fresh.handle })).op_count, 52);
  } finally {
    await close();
  }
});

Deno.test("the performance tools refuse a handle without a readable performance CSV", async () => {
  // Prevents a profiler-only handle or a broken CSV from producing an empty ranking.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "bad/ops_perf_results_x.csv": "OP CODE\nMatmul\n" });
  const { client, close } = await connect();
  try {
    const prof = await callOk(client, "load_report", { profiler_path: `${DEMO}profiler` });
    for (
      const tool of ["top_ops", "op_breakdown", "program_cache", "diff_reports", "lower_bounds"]
    ) {
      assert.ok((prof.unanswerable as string[]).includes(tool), tool);
    }
    assert.match(String(reasonsByTool(prof).top_ops), /without a performance_path/);
    assert.match(
      await callRefused(client, "top_ops", { handle: prof.handle }),
      /top_ops needs a performance report.*performance_path/,
    );
    const bad = await callOk(client, "load_report", { performance_path: `${dir.path}/bad` });
    for (
      const tool of ["top_ops", "op_breakdown", "program_cache", "diff_reports", "lower_bounds"]
    ) {
      assert.ok((bad.unanswerable as string[]).includes(tool), tool);
    }
    assert.equal(bad.signposts, undefined);
    assert.match(
      await callRefused(client, "op_breakdown", { handle: bad.handle }),
      /missing columns/,
    );
  } finally {
    await close();
  }
});

Deno.test("a CSV tt-perf-report would abort on is named with its row, not advertised", async () => {
  // Prevents load_report from listing top_ops for a capture whose report cannot be generated.
  await using dir = await tempDir();
  const [header, ...rows] = demoCsv().trimEnd().split("\n");
  const fidelity = header.split(",").indexOf("MATH FIDELITY");
  const matmul = rows.findIndex((r) => r.startsWith("Matmul,"));
  const cells = rows[matmul].split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  cells[fidelity] = "";
  rows[matmul] = cells.join(",");
  await writeFiles(dir.path, { "ops_perf_results_x.csv": [header, ...rows].join("\n") + "\n" });
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: dir.path });
    assert.match(
      String(a.performance_csv_problem),
      new RegExp(`cannot be reported on: row ${matmul + 2}: .*math fidelity`, "i"),
    );
    assert.deepEqual(a.answerable, []);
    assert.equal(a.signposts, undefined);
  } finally {
    await close();
  }
});

Deno.test("top_ops include, program_cache and diff_reports answer through a real client", async () => {
  // Prevents the detail tools from working in-process but not over the wire.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const detailed = await callOk(client, "top_ops", {
      handle,
      limit: 50,
      include: ["riscs", "flags", "cache"],
    });
    assert.equal(detailed.returned, 24);
    const row = (detailed.ops as Row[])[0];
    assert.equal(typeof row.brisc_kernel_us, "number");
    assert.ok(Array.isArray(row.flags));
    assert.ok((detailed.included as Row).fields);
    assert.match(
      await callRefused(client, "top_ops", { handle, include: ["everything"] }),
      /include\.0/,
    );
    const pc = await callOk(client, "program_cache", { handle });
    const concat = (pc.op_codes as Row[])[0];
    assert.equal(concat.op_code, "NLPConcatHeadsDecodeDeviceOperation");
    assert.equal(concat.repeat_misses, 1);
    const flagged = await callOk(client, "top_ops", {
      handle,
      by: "op_to_op_gap",
      limit: 25,
      include: ["flags"],
    });
    const rebuilt = (flagged.ops as Row[]).find((r) => r.id === concat.first_repeat_miss_perf_id)!;
    assert.ok((rebuilt.flags as Row[]).some((f) => f.flag === "recompute_candidate"));
    const diff = await callOk(client, "diff_reports", { handle_a: handle, handle_b: handle });
    assert.equal(diff.delta_total, 0);
    assert.match(
      await callRefused(client, "diff_reports", {
        handle_a: handle,
        handle_b: handle,
        by: "flops",
      }),
      /per-operation rate or allocation/,
    );
  } finally {
    await close();
  }
});

Deno.test("load_report lists at most 20 signpost names and counts the ones too long for a range", async () => {
  // Prevents a huge signpost list in the answer, and a name a range cannot take offered as one.
  await using dir = await tempDir();
  await Deno.copyFile(
    new URL("../../fixtures/perf/many_signposts.csv", import.meta.url),
    `${dir.path}/ops_perf_results_many.csv`,
  );
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: dir.path });
    const listed = a.signposts as { name: string; count: number }[];
    assert.equal(listed.length, 20);
    assert.deepEqual(listed[0], { name: "phase_00", count: 1 });
    assert.ok(listed.every((s) => s.name.length <= 256));
    assert.equal(a.signpost_count, 25);
    assert.equal(a.signposts_unlisted_too_long, 1);
  } finally {
    await close();
  }
});

Deno.test("lower_bounds answers through a real client, ranked by gap, with its method", async () => {
  // Prevents the gap ranking from working in-process but not over the wire.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    const a = await callOk(client, "lower_bounds", {
      handle,
      start_signpost: "PERF_DECODE",
      end_signpost: "PERF_DECODE_END",
    });
    const entries = a.entries as Row[];
    assert.equal(entries[0].op_code, "Matmul");
    assert.ok((entries[0].gap_us as number) >= (entries[1].gap_us as number));
    assert.equal((a.totals as Row).rows, 22);
    assert.ok(
      ["lower_bounds.method", "lower_bounds.assumptions"].every((id) =>
        (a.notes as string[]).includes(id)
      ),
    );
    assert.equal((a.projection as Row).start_signpost, "PERF_DECODE");
  } finally {
    await close();
  }
});
