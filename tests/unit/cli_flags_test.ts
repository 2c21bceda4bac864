/** The command line's tool flags: read from each tool's schema, and every refusal. */
import assert from "node:assert/strict";
import { argsFromWords, argSpecs } from "../../src/cli/tool_flags.ts";
import { missingReport, planReports } from "../../src/cli/call_reports.ts";
import { parseArgs } from "../../src/cli/args.ts";
import { loadTool } from "../../src/tools/registry.ts";
import type { Tool } from "../../src/tools/tool.ts";

const topOps = (await loadTool("top_ops"))!;
const coreUtilisation = (await loadTool("core_utilisation"))!;
const deviceTimeline = (await loadTool("device_timeline"))!;

function refusal(tool: Tool, words: string[]): string {
  const r = argsFromWords(tool, words);
  if (r.ok) throw new Error(`accepted ${words.join(" ")}: ${JSON.stringify(r.args)}`);
  return r.message;
}

function args(tool: Tool, words: string[]): Record<string, unknown> {
  const r = argsFromWords(tool, words);
  if (!r.ok) throw new Error(r.message);
  return r.args;
}

Deno.test("every schema argument is a kebab-case flag carrying the schema's name and type", () => {
  // Prevents `--limit 3` being refused as an unknown option, or `--start-signpost` reaching the
  // tool under a name its schema does not have.
  assert.deepEqual(
    args(topOps, [
      "--limit",
      "3",
      "--by",
      "dram",
      "--start-signpost",
      "PERF_DECODE",
      "--include",
      "config,flags",
    ]),
    { limit: 3, by: "dram", start_signpost: "PERF_DECODE", include: ["config", "flags"] },
  );
  assert.deepEqual(args(coreUtilisation, ["--perf-id", "12", "--device=0"]), {
    perf_id: 12,
    device: 0,
  });
  assert.deepEqual(args(deviceTimeline, ["--wall-time-us", "1500.5"]), { wall_time_us: 1500.5 });
  // The schema's own snake-case name is accepted too; a list takes repeats as well as commas.
  assert.deepEqual(
    args(topOps, ["--start_signpost", "A", "--include", "config", "--include=noc"]),
    {
      start_signpost: "A",
      include: ["config", "noc"],
    },
  );
  const flags = argSpecs(topOps).map((s) => s.flag);
  assert.deepEqual(flags, [
    "--by",
    "--limit",
    "--start-signpost",
    "--end-signpost",
    "--start-occurrence",
    "--pass",
    "--start-row",
    "--end-row",
    "--device",
    "--op-code",
    "--order",
    "--include",
  ]);
});

Deno.test("the JSON argument form still works, alone or beside flags", () => {
  // Prevents scripts written against `call TOOL '<json>'` from breaking.
  assert.deepEqual(args(topOps, ['{"limit":2,"by":"flops"}']), { limit: 2, by: "flops" });
  assert.deepEqual(args(topOps, ['{"limit":2}', "--by", "flops"]), { limit: 2, by: "flops" });
});

Deno.test("an unknown flag is refused naming the valid ones and the nearest", () => {
  // Prevents a typo from being dropped silently or answered with a bare "unknown option".
  const m = refusal(topOps, ["--limt", "3"]);
  assert.match(m, /top_ops takes no --limt \(did you mean --limit\?\)/);
  assert.match(m, /its flags: --by, --limit, --start-signpost, --end-signpost/);
  assert.match(m, /--performance DIR/);
  assert.match(m, /call top_ops --help/);
  assert.doesNotMatch(refusal(topOps, ["--zzzzzz", "1"]), /did you mean/);
});

Deno.test("a handle or a path given as a flag is refused saying the call loads its report", () => {
  // Prevents `--handle report-1`, which names nothing in a fresh one-shot process, from
  // reaching the tool as an unknown handle.
  for (const flag of ["--handle", "--performance-path"]) {
    assert.match(refusal(topOps, [flag, "x"]), /not a flag: a one-shot call loads its report/);
  }
});

Deno.test("a flag's value is refused when it is missing or not what the schema takes", () => {
  // Prevents a wrong value from reaching the tool as a string where it wants a number, or
  // being swallowed from the next flag.
  assert.match(refusal(topOps, ["--limit"]), /--limit needs a value: a whole number/);
  assert.match(refusal(topOps, ["--limit", "--by", "dram"]), /--limit needs a value/);
  assert.match(refusal(topOps, ["--limit", "2.5"]), /--limit: '2.5' is not a whole number/);
  assert.match(refusal(topOps, ["--limit", "0"]), /--limit: '0' is below the least allowed, 1/);
  assert.match(
    refusal(topOps, ["--by", "nope"]),
    /--by: 'nope' is not one of device_time, op_to_op_gap, total_percent, flops, dram, cores/,
  );
  assert.match(refusal(topOps, ["--include", "config,bogus"]), /--include: 'bogus' is not among/);
  assert.match(refusal(coreUtilisation, ["--perf-id", "x"]), /--perf-id: 'x' is not a row id/);
  assert.match(refusal(deviceTimeline, ["--wall-time-us", "0"]), /must be above 0/);
});

Deno.test("a stray word, a second JSON object, bad JSON and a key given twice are refused", () => {
  // Prevents an argument from being dropped, or a flag and the JSON silently disagreeing.
  assert.match(refusal(topOps, ["stray"]), /unexpected argument 'stray'/);
  assert.match(refusal(topOps, ["{}", "{}"]), /one JSON object/);
  assert.match(refusal(topOps, ["{nope"]), /not JSON/);
  assert.match(refusal(topOps, ["[1]"]), /unexpected argument '\[1\]'/);
  assert.match(refusal(topOps, ['{"limit":2}', "--limit", "3"]), /--limit given both/);
});

Deno.test("a call naming no report says which flag to pass for the report the tool reads", async () => {
  // Prevents "handle: Invalid input: expected string, received undefined" for `call top_ops`.
  const plan = planReports(topOps, ["handle"], {}, { performance: [], profiler: [] });
  assert.equal(plan.ok, false);
  assert.match(
    (plan as { message: string }).message,
    /top_ops needs a report to read: pass --performance DIR \(the folder holding ops_perf_results_\*\.csv\)/,
  );
  assert.match(missingReport(coreUtilisation), /profile_log_device\.csv/);
  const find = (await loadTool("find_operations"))!;
  assert.match(missingReport(find), /pass --profiler DIR/);
});

Deno.test("the report directories are planned per tool: one, two, or the paths themselves", () => {
  // Prevents diff_reports from being unreachable at a shell, and two --performance flags from
  // silently dropping one report.
  const dirs = { performance: ["/p"], profiler: [] };
  const one = planReports(topOps, ["handle"], { limit: 3, performance_path: "/json" }, dirs);
  assert.deepEqual(one, {
    ok: true,
    args: { limit: 3 },
    loads: [{ arg: "handle", paths: { performance_path: "/p" } }],
  });
  const viaJson = planReports(topOps, ["handle"], { performance_path: "/json" }, {
    performance: [],
    profiler: [],
  });
  assert.deepEqual(viaJson.ok && viaJson.loads[0].paths, { performance_path: "/json" });
  const twice = planReports(topOps, ["handle"], {}, { performance: ["/a", "/b"], profiler: [] });
  assert.match((twice as { message: string }).message, /reads one report/);
  const pair = planReports({ name: "diff_reports" }, ["handle_a", "handle_b"], {}, {
    performance: ["/before", "/after"],
    profiler: [],
  });
  assert.deepEqual(pair.ok && pair.loads, [
    { arg: "handle_a", paths: { performance_path: "/before" } },
    { arg: "handle_b", paths: { performance_path: "/after" } },
  ]);
  const half = planReports({ name: "diff_reports" }, ["handle_a", "handle_b"], {}, dirs);
  assert.match(
    (half as { message: string }).message,
    /diff_reports compares two reports: pass --performance BEFORE_DIR --performance AFTER_DIR/,
  );
  const load = planReports({ name: "load_report" }, ["profiler_path", "performance_path"], {}, {
    performance: ["/p"],
    profiler: ["/q"],
  });
  assert.deepEqual(load, {
    ok: true,
    args: { performance_path: "/p", profiler_path: "/q" },
    loads: [],
  });
});

Deno.test("the command line keeps call's words for its tool and knows --list, --help and --json", () => {
  // Prevents a tool flag from being refused as a global option, and `call TOOL --help` from
  // printing the generic usage.
  const c = parseArgs(["call", "top_ops", "--limit", "3", "--json", "--performance", "/p"]);
  assert.deepEqual(c, {
    kind: "call",
    roots: [],
    appUrl: null,
    tool: "top_ops",
    words: ["--limit", "3"],
    profiler: [],
    performance: ["/p"],
    json: true,
    explain: false,
  });
  assert.deepEqual(parseArgs(["call", "--list"]), { kind: "list_tools" });
  assert.deepEqual(parseArgs(["call", "--help"]), { kind: "list_tools" });
  assert.deepEqual(parseArgs(["call", "top_ops", "--help"]), {
    kind: "tool_help",
    tool: "top_ops",
  });
  assert.deepEqual(parseArgs(["--help"]), { kind: "help" });
  assert.match((parseArgs(["--json"]) as { message: string }).message, /--json goes with call/);
  assert.match((parseArgs(["--list"]) as { message: string }).message, /unknown option --list/);
  assert.match((parseArgs(["call"]) as { message: string }).message, /call --list lists them/);
  const two = parseArgs(["call", "diff_reports", "--performance", "/a", "--performance=/b"]);
  assert.deepEqual(two.kind === "call" && two.performance, ["/a", "/b"]);
});
