import assert from "node:assert/strict";
import { REPO, serverArgs } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { parseArgs } from "../../src/cli/args.ts";
import { loadTools } from "../../src/tools/registry.ts";
import config from "../../deno.json" with { type: "json" };

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: serverArgs(args),
    cwd: REPO,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code, stdout: dec.decode(stdout), stderr: dec.decode(stderr) };
}

Deno.test("--version prints the project's version and --help the usage", async () => {
  // Prevents a launcher's version check from reading something other than deno.json's version.
  const v = await run(["--version"]);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), config.version);
  const h = await run(["--help"]);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /--root DIR/);
  assert.match(h.stdout, /claude mcp add ttnn-visualizer -- ttnn-visualizer-mcp/);
});

Deno.test("a wrong command line exits 2 with the usage on stderr", async () => {
  // Prevents a typo from silently starting the server and waiting on stdin.
  const r = await run(["--bogus"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option --bogus/);
  assert.equal(r.stdout, "");
  const missingRoot = await run(["--root", "/definitely/not/here"]);
  assert.equal(missingRoot.code, 2);
  assert.match(missingRoot.stderr, /--root \/definitely\/not\/here: no such directory/);
});

Deno.test("call runs load_report and prints its JSON answer", async () => {
  // Prevents the one-shot CLI from answering differently than a tools/call does.
  const r = await run([
    "call",
    "load_report",
    JSON.stringify({ performance_path: `${DEMO}performance` }),
  ]);
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout);
  assert.equal(answer.handle, "report-1");
  assert.equal(answer.performance_csv, "ops_perf_results_demo.csv");
  const flags = await run(["call", "load_report", "--profiler", `${DEMO}profiler`]);
  assert.equal(JSON.parse(flags.stdout).profiler_path, `${DEMO}profiler`);
});

Deno.test("call reports a refusal on stderr with exit 1, and bad input with exit 2", async () => {
  // Prevents scripts from mistaking a refusal for an answer.
  const refused = await run(["call", "load_report", "{}"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /one of profiler_path or performance_path is required/);
  assert.equal(refused.stdout, "");
  const notJson = await run(["call", "load_report", "{nope"]);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /not JSON/);
  const unknown = await run(["call", "nope"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown tool 'nope'; tools: load_report/);
});

Deno.test("call answers a performance and a profiler tool, each loaded from its own module", async () => {
  // Prevents the one-shot call, which loads a tool's module by URL under the server's flags,
  // from failing on a tool the server answers, or answering it differently.
  const top = await run(["call", "top_ops", "--performance", `${DEMO}performance`, '{"limit":2}']);
  assert.equal(top.code, 0, top.stderr);
  const ops = JSON.parse(top.stdout);
  assert.equal(ops.handle, "report-1");
  assert.equal(ops.returned, 2);
  const find = await run(["call", "find_operations", "--profiler", `${DEMO}profiler`]);
  assert.equal(find.code, 0, find.stderr);
  assert.ok(Array.isArray(JSON.parse(find.stdout).operations), find.stdout);
  const unknown = await run(["call", "top_opz"]);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /unknown tool 'top_opz'; tools: load_report, top_ops, .*core_states$/m,
  );
});

Deno.test("call honours --root like the server does", async () => {
  // Prevents the CLI from being a way around the root confinement.
  const r = await run([
    "--root",
    `${DEMO}profiler`,
    "call",
    "load_report",
    "--performance",
    `${DEMO}performance`,
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /outside the directories this server may read/);
});

Deno.test("the demo summarises the bundled capture", async () => {
  // Prevents a newcomer's first command from failing or printing nothing useful.
  const r = await run(["demo"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Loaded the sample capture as report-1/);
  assert.match(r.stdout, /arch \(device_log\): wormhole_b0/);
  assert.match(r.stdout, /performance CSV: ops_perf_results_demo\.csv/);
  assert.match(r.stdout, /Top 5 of 24 operations by device time/);
  assert.match(r.stdout, /Furthest from the theoretical limit/);
  assert.match(r.stdout, /Inside the costliest op \(row 24/);
  assert.match(r.stdout, /Device 0, over the whole report: 24 operations, busy [\d.]+ µs/);
  assert.match(r.stdout, /█ op intervals [\d.]+ µs \([\d.]+ %\)/);
});

Deno.test("the demo renders its answers with the renderers call uses at a terminal", async () => {
  // Prevents the demo and `call` from showing the same answer two different ways.
  const r = await run(["demo"]);
  const { renderAnswer } = await import("../../src/cli/renderers.ts");
  const { session } = await import("../_support/in_process.ts");
  const s = session();
  const { handle } = await s.call("load_report", {
    performance_path: `${DEMO}performance`,
    profiler_path: `${DEMO}profiler`,
  });
  const top = await s.call("top_ops", { handle, by: "device_time", limit: 5 });
  const rendered = await renderAnswer("top_ops", top, { width: 80, colour: false });
  assert.ok(r.stdout.includes(rendered.slice(0, rendered.indexOf("")).join("\n")), r.stdout);
  const grid = await s.call("core_utilisation", { handle });
  const heatmap = await renderAnswer("core_utilisation", grid, { width: 80, colour: false });
  const rows = heatmap.filter((l) => /^y +\d/.test(l));
  assert.ok(rows.length > 0 && r.stdout.includes(rows.join("\n")), r.stdout);
});

Deno.test("the demo walks the talk's steps in 100 lines, each naming its scope", async () => {
  // Prevents a newcomer's first screen from mixing whole-report, window and busy-time figures
  // unnamed, or running to pages of notes.
  const r = await run(["demo"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.replace(/\n$/, "").split("\n");
  assert.ok(lines.length <= 100, `${lines.length} lines:\n${r.stdout}`);
  const steps = lines.filter((l) => l.startsWith("── ")).map((l) => l.replace(/ ─+$/, ""));
  assert.deepEqual(steps, [
    "── 1. Token time → device busy time (device busy time)",
    "── 2. Op intervals, by op code (device busy time)",
    "── 3. Operations by device time (whole report)",
    "── 4. Ranked by gap to the limit (whole report)",
    "── 5. Core utilisation (device busy time)",
    "── 6. Inside the core (row 24, the costliest op)",
  ]);
  assert.ok(!r.stdout.includes("another run"), r.stdout);
  // Prose fits 80 columns; a command (whose path is the checkout's) is never broken.
  for (const line of lines.filter((l) => !/deno task call|claude mcp add/.test(l))) {
    assert.ok([...line].length <= 80, line);
  }
  assert.match(r.stdout, /a small synthetic capture of a two-layer\s+decoder step/);
});

Deno.test("command-line parsing accepts flags before and after the command", () => {
  // Prevents `--root` from being ignored depending on where it is written.
  assert.deepEqual(parseArgs([]), { kind: "serve", roots: [], appUrl: null });
  assert.deepEqual(parseArgs(["--root=/a", "--root", "/b"]), {
    kind: "serve",
    roots: ["/a", "/b"],
    appUrl: null,
  });
  const c = parseArgs(["call", "load_report", "--root", "/r", "--performance", "/p"]);
  assert.deepEqual(c, {
    kind: "call",
    roots: ["/r"],
    appUrl: null,
    tool: "load_report",
    words: [],
    profiler: [],
    performance: ["/p"],
    json: false,
    explain: false,
  });
  const explained = parseArgs(["call", "top_ops", "--limit", "3", "--explain"]);
  assert.ok(explained.kind === "call" && explained.explain && explained.words.length === 2);
  assert.equal(parseArgs(["--explain"]).kind, "usage_error");
  assert.equal(parseArgs(["--root"]).kind, "usage_error");
  assert.equal(parseArgs(["serve", "extra"]).kind, "usage_error");
  assert.equal(parseArgs(["--performance", "/p"]).kind, "usage_error");
});

Deno.test("--app-url must be an http(s) URL", async () => {
  // Prevents a mistyped flag from producing broken links in every answer.
  const r = await run(["--app-url", "localhost:8000"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--app-url needs an http\(s\) URL/);
});

Deno.test("call takes a tool's arguments as flags and prints JSON on a pipe, with no progress", async () => {
  // Prevents `--limit 3` from being refused as an unknown option, and a script reading a pipe
  // from receiving a table or a progress line.
  const r = await run([
    "call",
    "top_ops",
    "--performance",
    `${DEMO}performance`,
    "--limit",
    "3",
    "--by",
    "dram",
    "--include",
    "config,flags",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout);
  assert.equal(answer.returned, 3);
  assert.equal(answer.metric, "dram");
  assert.deepEqual(answer.included.groups, ["config"]);
  assert.equal(r.stderr, "");
});

Deno.test("call refuses a wrong flag and a missing report on stderr with exit 2", async () => {
  // Prevents "handle: Invalid input: expected string, received undefined" for `call top_ops`,
  // and a typo silently dropped.
  const missing = await run(["call", "top_ops"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /top_ops needs a report to read: pass --performance DIR/);
  assert.equal(missing.stdout, "");
  const typo = await run(["call", "top_ops", "--performance", `${DEMO}performance`, "--limt", "3"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /top_ops takes no --limt \(did you mean --limit\?\); its flags: --by/);
  assert.equal(typo.stdout, "");
});

Deno.test("call diff_reports compares the reports of two --performance directories", async () => {
  // Prevents the before/after comparison from being unreachable at a shell.
  const r = await run([
    "call",
    "diff_reports",
    "--performance",
    `${DEMO}performance`,
    "--performance",
    `${DEMO}performance`,
    "--limit",
    "2",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const answer = JSON.parse(r.stdout);
  assert.equal(answer.before, "report-1");
  assert.equal(answer.after, "report-2");
  assert.equal(answer.delta_total, 0);
});

Deno.test("--help, call --list and call TOOL --help are generated from the tool list", async () => {
  // Prevents `--help` and `call top_ops --help` printing the same generic usage.
  const titles = new Map((await loadTools()).map((t) => [t.name, t.title]));
  const listed = (text: string, name: string) =>
    text.split("\n").some((l) =>
      l.trim().split(/ {2,}/).join("|") === `${name}|${titles.get(name)}`
    );
  const help = await run(["--help"]);
  assert.equal(help.code, 0);
  assert.ok(listed(help.stdout, "core_utilisation"), help.stdout);
  const list = await run(["call", "--list"]);
  assert.equal(list.code, 0);
  for (const name of titles.keys()) assert.ok(listed(list.stdout, name), name);
  const tool = await run(["call", "top_ops", "--help"]);
  assert.equal(tool.code, 0);
  assert.ok(tool.stdout.startsWith(`top_ops — ${titles.get("top_ops")}\n`), tool.stdout);
  assert.match(tool.stdout, /^ {2}--by VALUE +one of: device_time \(default\), op_to_op_gap/m);
  const unknown = await run(["call", "nope", "--help"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown tool 'nope'/);
});

/** Whether util-linux `script` can give a command a pseudo-terminal here. */
const SCRIPT = await (async () => {
  try {
    const r = await new Deno.Command("script", {
      args: ["-qfec", "test -t 1", "/dev/null"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return r.code === 0;
  } catch {
    return false;
  }
})();
if (!SCRIPT) {
  console.warn("cli_test: no pseudo-terminal (util-linux script); terminal tests skipped");
}

/** `args` run on a pseudo-terminal `columns` wide; its output with line ends as `\n`. */
async function onTerminal(
  args: string[],
  columns: number,
  env: Record<string, string> = {},
): Promise<string> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = `stty cols ${columns}; ${
    [Deno.execPath(), ...serverArgs(args)].map(quote).join(" ")
  }`;
  const r = await new Deno.Command("script", {
    args: ["-qfec", command, "/dev/null"],
    cwd: REPO,
    stdin: "null",
    env,
  }).output();
  return new TextDecoder().decode(r.stdout).replaceAll("\r\n", "\n");
}

Deno.test({
  name: "on a terminal call renders a table the width of the terminal; --json prints JSON",
  ignore: !SCRIPT,
  async fn() {
    // Prevents a person at a terminal from receiving 148 lines of JSON for ten rows.
    const call = ["call", "top_ops", "--performance", `${DEMO}performance`, "--limit", "3"];
    const text = await onTerminal(call, 120, { NO_COLOR: "1" });
    assert.match(text, /^Top 3 of 24 operations by device time, over the whole report$/m);
    assert.match(text, /^ *1 +24 +Matmul 32 x 8192 x 2048 +105\.018 +5\.936 .* 12\* +SLOW/m);
    assert.ok(!text.includes("\x1b["), "NO_COLOR: no colour codes");
    for (const line of text.split("\n")) assert.ok([...line].length <= 120, line);
    const coloured = await onTerminal(
      ["call", "core_utilisation", "--performance", `${DEMO}performance`],
      80,
      { NO_COLOR: "" },
    );
    assert.ok(/\[4\d;\d+m/.test(coloured) && coloured.includes("\x1b["), "colour where allowed");
    const json = await onTerminal([...call, "--json"], 120, { NO_COLOR: "1" });
    assert.equal(JSON.parse(json).returned, 3);
  },
});

/** A shared capture beside the repository (../shared), or null where it is absent. */
const CLIP = await (async () => {
  const dir = new URL("../shared/captures/perf/wh_clip_encoder_2", `file://${REPO}`).pathname;
  try {
    return (await Deno.stat(dir)).isDirectory ? dir : null;
  } catch {
    return null;
  }
})();
if (!CLIP) console.warn("cli_test: ../shared/captures/perf/wh_clip_encoder_2 absent; skipped");

Deno.test({
  name: "a default call top_ops on a terminal is a table in 40 lines, shapes whole",
  ignore: !SCRIPT || !CLIP,
  async fn() {
    // Prevents a person at a terminal from scrolling past the same notes on every call to a
    // table without tt-perf-report's gap, DRAM % and FLOPs % columns whose shapes are cut.
    for (const columns of [80, 120]) {
      const text = await onTerminal(["call", "top_ops", "--performance", CLIP!], columns, {
        NO_COLOR: "1",
      });
      const lines = text.replace(/\n$/, "").split("\n");
      assert.ok(lines.length <= 40, `${lines.length} lines at ${columns}:\n${text}`);
      for (const line of lines) assert.ok([...line].length <= columns, line);
      assert.match(lines[1], /^ #\s+row\s+op code\s+device µs\s+gap µs\s.*DRAM %\s+FLOPs %/);
      assert.match(lines[3], /^ *1 +1022 +MinimalMatmulOp 32 x 1280 x 5120 +189\.259 /);
      assert.ok(!text.includes("…"), text);
      assert.ok(!/^(Note|Basis)\b/m.test(text), text);
    }
    const explained = await onTerminal(
      ["call", "top_ops", "--performance", CLIP!, "--explain"],
      120,
      { NO_COLOR: "1" },
    );
    assert.match(explained, /^How to read a top_ops row: Rows are tt-perf-report's/m);
    const json = JSON.parse(
      await onTerminal(["call", "top_ops", "--performance", CLIP!, "--json"], 120),
    );
    assert.equal(json.included, undefined, "--json answers the arguments as given");
  },
});

Deno.test({
  name: "default top_ops and device_timeline on the demo fit 40 lines of a 120-column terminal",
  ignore: !SCRIPT,
  async fn() {
    // Prevents the reconciliation paragraphs from burying device_timeline's tables on every
    // call, and either tool's lines from running past the terminal's width.
    for (const tool of ["top_ops", "device_timeline"]) {
      const text = await onTerminal(["call", tool, "--performance", `${DEMO}performance`], 120, {
        NO_COLOR: "1",
      });
      const lines = text.replace(/\n$/, "").split("\n");
      assert.ok(lines.length <= 40, `${tool}: ${lines.length} lines:\n${text}`);
      for (const line of lines) assert.ok([...line].length <= 120, line);
    }
    const timeline = ["call", "device_timeline", "--performance", `${DEMO}performance`];
    const plain = await onTerminal(timeline, 120, { NO_COLOR: "1" });
    assert.match(plain, /^tt-perf-report: over the same 24 rows: device time 691\.063 µs/m);
    assert.ok(!/^Firmware:/m.test(plain), plain);
    const explained = await onTerminal([...timeline, "--explain"], 120, { NO_COLOR: "1" });
    assert.match(explained, /^Why they differ: op_interval_sum_us − device_time_sum_us/m);
    assert.match(explained, /^Firmware: firmware\.interval_sum exceeds/m);
  },
});

Deno.test({
  name: "a refusal on a terminal is wrapped to its width",
  ignore: !SCRIPT,
  async fn() {
    // Prevents a refusal's paragraph from running as one 500-column line past the terminal.
    const text = await onTerminal(
      ["call", "perf_counters", "--performance", `${DEMO}performance`],
      80,
      { NO_COLOR: "1" },
    );
    const lines = text.replace(/\n$/, "").split("\n");
    assert.match(lines[0], /^perf_counters cannot answer/);
    assert.ok(lines.length > 2, text);
    // Prose fits 80 columns; a command (whose path is the checkout's) is never broken.
    for (const line of lines.filter((l) => !/deno task call|claude mcp add/.test(l))) {
      assert.ok([...line].length <= 80, line);
    }
  },
});
