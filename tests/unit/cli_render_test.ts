/**
 * Every tool's answer rendered for a person at a terminal, on the fixtures, at 80 and 120
 * columns, with and without colour: within the width, no colour codes when colour is off,
 * unknown figures as "?" and never 0, and nothing of the answer left out unsaid.
 */
import assert from "node:assert/strict";
import { session } from "../_support/in_process.ts";
import { DEMO, writeFiles } from "../_support/dirs.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { generateCounterCapture } from "../../scripts/make_counter_log.ts";
import { TOOL_NAMES } from "../../src/tools/registry.ts";
import {
  forTerminal,
  GENERIC_RENDERER,
  loadRenderer,
  renderAnswer,
  TOOL_RENDERERS,
} from "../../src/cli/renderers.ts";
import { plain, type View, widthOf } from "../../src/cli/render/text.ts";

type Answer = Record<string, unknown>;

const VIEWS: View[] = [80, 120].flatMap((width) =>
  [false, true].map((colour) => ({ width, colour }))
);

/** Every tool's answer on the fixtures: the demo capture, an edited copy, a counter capture. */
async function answers(): Promise<Map<string, Answer>> {
  const dir = await Deno.makeTempDir({ prefix: "ttnn-render-" });
  const faster = editCsv((row) => {
    if (row["OP CODE"].startsWith("Matmul")) {
      const ns = Number(row["DEVICE KERNEL DURATION [ns]"]);
      if (ns > 0) row["DEVICE KERNEL DURATION [ns]"] = String(Math.round(ns / 2));
    }
  });
  const counted = generateCounterCapture(
    Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`),
    { counters: () => ({ FPU_COUNTER: 0.5 }), ref: () => 10_000 },
  );
  await writeFiles(dir, {
    "after/ops_perf_results_after.csv": faster,
    "counters/ops_perf_results_gen.csv": counted.csv,
    "counters/profile_log_device.csv": counted.log,
  });
  const s = session();
  const { handle } = await s.call("load_report", {
    performance_path: `${DEMO}performance`,
    profiler_path: `${DEMO}profiler`,
  });
  const after = await s.call("load_report", { performance_path: `${dir}/after` });
  const withCounters = await s.call("load_report", { performance_path: `${dir}/counters` });
  const tensors = await s.call("load_report", {
    profiler_path: new URL("../../fixtures/profiler/v2_1_tensor_size", import.meta.url).pathname,
  });
  const detail = await s.call("operation_detail", { handle: tensors.handle, operation_id: 9 });
  const tensorId = (detail.outputs as Answer[])[0].tensor_id;
  const out = new Map<string, Answer>();
  const args: Record<string, Answer> = {
    diff_reports: { handle_a: handle, handle_b: after.handle, limit: 5 },
    operation_detail: { handle: tensors.handle, operation_id: 9 },
    operation_provenance: { handle, operation_id: 10 },
    tensor_flow: { handle: tensors.handle, tensor_id: tensorId },
    core_states: { handle, perf_id: 24 },
    perf_counters: { handle: withCounters.handle, op_code: "LayerNorm" },
    device_timeline: { handle, wall_time_us: 1000 },
    load_report: { performance_path: `${DEMO}performance` },
  };
  for (const name of TOOL_NAMES) out.set(name, await s.call(name, args[name] ?? { handle }));
  await Deno.remove(dir, { recursive: true });
  return out;
}

const ANSWERS = await answers();

Deno.test("every tool's answer renders within 80 and 120 columns, with and without colour", async () => {
  // Prevents a rendering wider than the terminal (wrapped into a mess), colour codes on a
  // terminal that asked for none, or a tool whose answer cannot be rendered at all.
  for (const [tool, answer] of ANSWERS) {
    for (const view of VIEWS) {
      const lines = await renderAnswer(tool, answer, view);
      assert.ok(lines.length > 3, `${tool} renders something`);
      for (const line of lines) {
        assert.ok(widthOf(line) <= view.width, `${tool} at ${view.width}: ${plain(line)}`);
        assert.ok(!line.includes("\n"), `${tool}: one line per entry`);
        if (!view.colour) assert.ok(!line.includes("\x1b"), `${tool} without colour: ${line}`);
      }
    }
  }
});

Deno.test("each tool is rendered by its own renderer or by the generic one", async () => {
  // Prevents a tool named in the issue (a ranked table, the heatmap, the bar) falling back to
  // the generic rendering, or a new tool with no rendering at all.
  for (const tool of Object.keys(TOOL_RENDERERS)) assert.ok(TOOL_NAMES.includes(tool), tool);
  assert.deepEqual(Object.keys(TOOL_RENDERERS).sort(), [
    "core_utilisation",
    "device_timeline",
    "diff_reports",
    "lower_bounds",
    "op_breakdown",
    "program_cache",
    "top_ops",
  ]);
  const generic = await import(GENERIC_RENDERER.href);
  assert.equal(await loadRenderer("zone_timings"), generic);
  assert.notEqual(await loadRenderer("top_ops"), generic);
});

Deno.test("a rendering says its answer's parts beneath and names what it does not show", async () => {
  // Prevents a rendering from silently dropping part of the answer: its caveat and cuts are
  // said in sentences, and a field the renderer does not know is named as only in --json.
  for (const [tool, answer] of ANSWERS) {
    const render = async (a: Answer) =>
      plain((await renderAnswer(tool, a, { width: 120, colour: false })).join("\n"));
    const text = await render(answer);
    if (typeof answer.caveat === "string") assert.match(text, /^Caveat: /m, tool);
    for (const field of Object.keys((answer.cut ?? {}) as Answer)) {
      assert.match(text, new RegExp(`^Cut: \\d+ of \\d+ ${field} shown`, "m"), `${tool} ${field}`);
    }
    const surprised = (await render({ ...answer, surprise_field: { a: [1, 2] } }))
      .replace(/\n\s*/g, " ");
    assert.match(surprised, /Also in --json: [^.]*\bsurprise_field\b/, tool);
  }
  const top = plain((await renderAnswer("top_ops", ANSWERS.get("top_ops")!, {
    width: 80,
    colour: false,
  })).join("\n"));
  assert.match(top, /^Rows also carry bound_analysis, sub_device_id, op_type \(in --json\)\.$/m);
});

Deno.test("top_ops renders its ranked rows as an aligned table with the metric's unit", async () => {
  // Prevents 148 lines of JSON for ten rows, or a table whose figures do not line up.
  const answer = ANSWERS.get("top_ops")!;
  const lines = await renderAnswer("top_ops", answer, { width: 80, colour: false });
  assert.equal(lines[0], "Top 10 of 24 operations by device time, over the whole report");
  assert.match(lines[1], /^ #\s+row\s+op code\s+device µs\s+cores\s+bound\s+category$/);
  const rows = lines.slice(3, 13);
  const ops = answer.ops as Answer[];
  rows.forEach((line, i) => {
    assert.match(
      line,
      new RegExp(`^\\s*${i + 1}\\s+${ops[i].id}\\s+${String(ops[i].op_code).slice(0, 20)}`),
      line,
    );
  });
  // Decimal points line up: 105.018 over 95.27.
  const points = rows.map((l, i) => {
    const figure = String(ops[i].device_time);
    return l.indexOf(` ${figure}`) + 1 + figure.indexOf(".");
  });
  assert.equal(new Set(points).size, 1, rows.join("\n"));
  assert.ok(lines.includes("Total: device time over the 26 rows read: 691.063 µs"));
  // At 80 columns a column is left out (and that is said) before the op code and its shape is
  // shortened; at 120 everything fits.
  const narrow = lines.join("\n");
  const wide = (await renderAnswer("top_ops", answer, { width: 120, colour: false })).join("\n");
  assert.match(narrow, /ScaledDotProductAttentionDecode /);
  assert.match(narrow, /^Left out to fit 80 columns: op id /m);
  assert.ok(!narrow.includes("…"), narrow);
  assert.match(wide, /ScaledDotProductAttentionDecode /);
  assert.match(wide, /^ #\s+row\s+op code .* op id$/m);
  assert.ok(!/Left out to fit|Cells ending in/.test(wide), wide);
});

Deno.test("top_ops on a terminal shows tt-perf-report's columns; its fixed notes on --explain", async () => {
  // Prevents a terminal's top_ops from being a table without the gap, DRAM and FLOPs columns
  // tt-perf-report prints, buried under the same Basis and Note paragraphs on every call, or
  // listing fields the person never asked for.
  const s = session();
  const { handle } = await s.call("load_report", { performance_path: `${DEMO}performance` });
  const asked = forTerminal("top_ops", { handle });
  const answer = await s.call("top_ops", asked.args);
  const view = { width: 120, colour: false, unasked: asked.unasked };
  const text = plain((await renderAnswer("top_ops", answer, view)).join("\n"));
  const header = text.split("\n")[1];
  for (const column of ["gap µs", "DRAM GB/s", "DRAM %", "FLOPs %", "fidelity", "cores", "bound"]) {
    assert.ok(header.includes(column), `${column} in ${header}`);
  }
  assert.ok(!/input_0_datatype|pm_ideal_us|dispatch_cq/.test(text), text);
  assert.ok(!/^(Note|Detail note|How to read|Device time)\b/m.test(text), text);
  assert.match(
    text,
    /^--explain adds how to read this answer \(detail_note, basis\.device_kernel_duration,\s+top_ops\.rows\)\.$/m,
  );
  const explained = plain(
    (await renderAnswer("top_ops", answer, { ...view, explain: true })).join("\n"),
  );
  // The named notes' text comes from the registry, which alone says it.
  assert.match(explained, /^How to read a top_ops row: Rows are tt-perf-report's/m);
  assert.match(explained, /^Device time \(tt-perf-report\): Times are tt-perf-report's/m);
  assert.ok(!explained.includes("--explain adds"), explained);
  // The op-to-op gap ranked by is the metric column, not a second one.
  const byGap = await s.call(
    "top_ops",
    forTerminal("top_ops", { handle, by: "op_to_op_gap" }).args,
  );
  const gapHeader = plain((await renderAnswer("top_ops", byGap, view))[1]);
  assert.equal(gapHeader.match(/gap µs/g)?.length, 1, gapHeader);
});

Deno.test("top_ops shows an asked include group as columns where they fit, beneath where not", async () => {
  // Prevents --include from printing key·value prose under the table on a terminal wide
  // enough for its columns, or dropping the fields silently on one that is not.
  const s = session();
  const { handle } = await s.call("load_report", { performance_path: `${DEMO}performance` });
  const answer = await s.call("top_ops", { handle, limit: 3, include: ["cache"] });
  const wide = plain((await renderAnswer("top_ops", answer, { width: 160, colour: false }))
    .join("\n"));
  assert.match(wide.split("\n")[1], /program cache hit\s+global call count$/);
  assert.ok(!/^#1 row /m.test(wide), wide);
  const narrow = plain((await renderAnswer("top_ops", answer, { width: 80, colour: false }))
    .join("\n"));
  assert.ok(!narrow.split("\n")[1].includes("program_hash"), narrow);
  assert.match(narrow, /^#1 row \d+: program_hash /m);
  assert.ok(!/Left out to fit[^.]*program_hash/.test(narrow), narrow);
  // The performance model's fields take short headers, so more of them fit as columns.
  const model = await s.call("top_ops", { handle, limit: 3, include: ["utilisation"] });
  const header = plain((await renderAnswer("top_ops", model, { width: 140, colour: false }))[1]);
  assert.match(header, /\bideal µs$/, header);
});

Deno.test("lower_bounds keeps each entry's shape, leaving columns out before it is cut", async () => {
  // Prevents three different matmuls from reading just `Matmul` on a terminal.
  for (const width of [80, 120]) {
    const lines = (await renderAnswer("lower_bounds", ANSWERS.get("lower_bounds")!, {
      width,
      colour: false,
    })).map(plain);
    const matmuls = lines.filter((l) => /^\s*\d+\s+Matmul/.test(l));
    assert.ok(matmuls.length >= 3, lines.join("\n"));
    for (const l of matmuls) assert.match(l, /Matmul \d+ x \d+ x \d+ /, `${width}: ${l}`);
  }
});

Deno.test("a null figure renders as ? with a note, never as 0", async () => {
  // Prevents an unmeasured figure from reading as a measured zero.
  const answer: Answer = {
    handle: "report-1",
    metric: "device_time",
    op_count: 2,
    returned: 2,
    ops: [
      { id: "5", op_code: "Matmul", device_time: 10.5, cores: 64, bound: null },
      { id: "6", op_code: "Reshape", device_time: 0, cores: null, bound: null },
    ],
    device_time_total: null,
  };
  const lines = await renderAnswer("top_ops", answer, { width: 80, colour: false });
  assert.match(lines[4], /^2\s+6\s+Reshape\s+0\s+\?\s+\?$/);
  assert.ok(lines.includes("? marks a figure that could not be measured (null), not a zero."));
  assert.ok(lines.includes("Total: device time over the 2 rows read: unknown"));
  const generic = await renderAnswer("zone_timings", { zone_count: null, zones: [] }, {
    width: 80,
    colour: false,
  });
  assert.ok(generic.includes("zone_count  ?"), generic.join("\n"));
});

Deno.test("core_utilisation's grid renders as a heatmap: shades without colour, colours with", async () => {
  // Prevents the grid from reaching a person as nested JSON arrays, an unknown core from
  // reading as idle, or a coordinate without a core from reading as a core.
  const answer = ANSWERS.get("core_utilisation")!;
  const grid = answer.grid as { rows: unknown[][]; x_from: number; x_to: number };
  for (const width of [80, 120]) {
    const lines = await renderAnswer("core_utilisation", answer, { width, colour: false });
    const header = lines.findIndex((l) => /^\s+x\s+1\s+2/.test(l));
    assert.ok(header > 0, lines.join("\n"));
    const gridLines = lines.slice(header + 1, header + 1 + grid.rows.length);
    gridLines.forEach((line, j) => {
      assert.match(line, new RegExp(`^y\\s+${j + 1}\\s`));
      const cells = grid.rows[j] as number[];
      for (const c of cells) assert.ok(line.includes(String(Math.round(c))), line);
    });
    assert.match(gridLines[0], /[█▓▒░] ?\d/);
  }
  const coloured = await renderAnswer("core_utilisation", answer, { width: 80, colour: true });
  // A grid line opens its first cell with a background colour code.
  const painted = new RegExp("^y\\s+1\\s+\x1b\\[4\\d;\\d+m");
  assert.ok(coloured.some((l) => painted.test(l)), coloured.join("\n"));
  const synthetic: Answer = {
    device: 0,
    grid: { x_from: 0, x_to: 3, y_from: 2, y_to: 2, rows: [[0, "unknown", null, 0.2]] },
  };
  const text = await renderAnswer("core_utilisation", synthetic, { width: 80, colour: false });
  const row = text.find((l) => l.startsWith("y  2"))!;
  assert.equal(row, "y  2     0    ?    · ░ <1");
  assert.ok(text.some((l) => l.includes("? unknown") && l.includes("0 idle")), text.join("\n"));
});

Deno.test("device_timeline renders busy time, gaps and host wait as one bar", async () => {
  // Prevents the split of a window's time from being three numbers a person must add up, and
  // a host wait nobody measured from being drawn as none.
  const answer = ANSWERS.get("device_timeline")!;
  for (const view of VIEWS) {
    const lines = await renderAnswer("device_timeline", answer, view);
    const bar = plain(lines[1]);
    assert.equal([...bar].length, view.width, bar);
    const ops = [...bar].filter((c) => c === "█").length;
    const gaps = [...bar].filter((c) => c === "▒").length;
    const wait = [...bar].filter((c) => c === "░").length;
    const whole = 1000;
    assert.ok(Math.abs(ops - (704.12 / whole) * view.width) <= 1.5, `${ops}`);
    assert.ok(Math.abs(gaps - (128.102 / whole) * view.width) <= 1.5, `${gaps}`);
    assert.ok(Math.abs(wait - (167.778 / whole) * view.width) <= 1.5, `${wait}`);
    assert.match(plain(lines.join("\n")), /░ host wait 167\.778 µs \(16\.8 %\)/);
  }
  const { host_wait_us: _w, ...unmeasured } = answer;
  const text = plain((await renderAnswer("device_timeline", unmeasured, {
    width: 80,
    colour: false,
  })).join("\n"));
  assert.match(text, /host wait unknown: pass --wall-time-us/);
  assert.ok(!text.split("\n")[1].includes("░"));
});

Deno.test("op_breakdown, lower_bounds, program_cache and diff_reports render tables with totals", async () => {
  // Prevents the ranked answers from reaching a person without their totals or the groups
  // past the limit.
  const breakdown = plain((await renderAnswer("op_breakdown", ANSWERS.get("op_breakdown")!, {
    width: 80,
    colour: false,
  })).join("\n"));
  assert.match(breakdown, /^Matmul\s+8\s+538\.465\s+77\.9\s+45\.875\s+37\.9\s+71\.947$/m);
  assert.match(breakdown, /^total\s+24\s+691\.063\s+121\.122$/m);
  const bounds = plain((await renderAnswer("lower_bounds", ANSWERS.get("lower_bounds")!, {
    width: 120,
    colour: false,
  })).join("\n"));
  assert.match(
    bounds,
    /^ 1\s+Matmul 32 x 8192 x 2048\s+2\s+200\.288\s+123\.79\s+76\.498\s+1\.62\s+dram\s/m,
  );
  assert.match(bounds, /^\s+total \(24 rows\)\s+691\.063\s+328\.149\s+362\.914$/m);
  // The method and the assumptions every limit rests on are notes, said on --explain only.
  assert.ok(!/Every input and output tensor/m.test(bounds), bounds);
  assert.match(bounds, /^--explain adds how to read this answer \(lower_bounds\.method,/m);
  const explained = plain((await renderAnswer("lower_bounds", ANSWERS.get("lower_bounds")!, {
    width: 120,
    colour: false,
    explain: true,
  })).join("\n"));
  assert.match(explained, /^What every lower bound assumes: Every input and output tensor/m);
  assert.match(explained, /^How lower_bounds computes each figure: dram_bound_us: /m);
  const cache = plain((await renderAnswer("program_cache", ANSWERS.get("program_cache")!, {
    width: 80,
    colour: false,
  })).join("\n"));
  assert.match(cache, /^total\s+24\s+11\s+13\s+12\s+1\s+0\s+92\.3$/m);
  assert.match(cache, /First repeat miss: NLPConcatHeadsDecodeDeviceOperation at row 19/);
  // An op code called once has no repeat to hit: its hit rate is none, not unknown.
  assert.match(cache, /^Embeddings\s+1\s+1\s+0\s+0\s+0\s+0\s+–$/m);
  assert.match(cache, /^– in hit % is an op code without repeat calls: nothing to hit\.$/m);
  const diff = plain((await renderAnswer("diff_reports", ANSWERS.get("diff_reports")!, {
    width: 80,
    colour: false,
  })).join("\n"));
  assert.match(diff, /^Matmul 32 x 8192 x 2048\s+2 → 2\s+200\.288\s+100\.144\s+-100\.144$/m);
  assert.match(diff, /^total\s+691\.063\s+\d+\.\d+\s+-\d+\.\d+$/m);
});
