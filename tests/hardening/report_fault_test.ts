/**
 * The report fault corpus: captures truncated at structural boundaries and all along their
 * length, re-encoded, mis-delimited, with duplicated or reordered columns, with numbers no
 * writer produces, zero bytes, directories where files belong — each loaded and asked of every
 * tool that says it can answer. Every call must come back answered or refused with a reason,
 * never as an unexpected failure.
 */
import assert from "node:assert/strict";
import { callTool } from "../../src/protocol/tool_call.ts";
import { loadTools } from "../../src/tools/registry.ts";

/** Every tool, as the server loads them. */
const CATALOG = await loadTools();
import { HandleRegistry } from "../../src/session/handles.ts";
import { Roots } from "../../src/kit/roots.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { INCLUDE_GROUPS } from "../../src/analysis/include_groups.ts";

const enc = new TextEncoder();
const csvText = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
const logBytes = Deno.readFileSync(`${DEMO}performance/profile_log_device.csv`);
const dbBytes = Deno.readFileSync(`${DEMO}profiler/db.sqlite`);

type Files = Record<string, string | Uint8Array | "dir">;
interface Case {
  name: string;
  performance?: Files;
  profiler?: Files;
}

function cut(text: string, at: number): string {
  return text.slice(0, at);
}

function corpus(): Case[] {
  const cases: Case[] = [];
  const perf = (name: string, csv: string | Uint8Array | "dir", extra: Files = {}) =>
    cases.push({ name, performance: { "ops_perf_results_x.csv": csv, ...extra } });
  // The CSV cut all along its length, and at each line end and mid-field.
  for (let i = 1; i <= 40; i++) {
    perf(`csv cut at ${i}/41`, cut(csvText, Math.floor((csvText.length * i) / 41)));
  }
  const lineEnds = [...csvText.matchAll(/\n/g)].map((m) => m.index!);
  for (const at of lineEnds.slice(0, 6)) perf(`csv cut at line end ${at}`, cut(csvText, at));
  for (const at of lineEnds.slice(0, 6)) {
    perf(`csv cut mid-field after ${at}`, cut(csvText, at + 7));
  }
  // Encodings, delimiters, headers and numbers.
  perf("csv zero bytes", "");
  perf("csv BOM", "\ufeff" + csvText);
  perf("csv CRLF", csvText.replaceAll("\n", "\r\n"));
  perf("csv lone CR", csvText.replaceAll("\n", "\r"));
  perf("csv semicolons", csvText.replaceAll(",", ";"));
  perf("csv tabs", csvText.replaceAll(",", "\t"));
  const [header, ...rows] = csvText.trimEnd().split("\n");
  const cols = header.split(",");
  perf(
    "csv duplicated header column",
    [cols.concat(cols[0]).join(","), ...rows.map((r) => r + ",x")].join("\n"),
  );
  perf(
    "csv columns reordered",
    [[...cols].reverse().join(","), ...rows.map((r) => r.split(",").reverse().join(","))].join(
      "\n",
    ),
  );
  const setAll = (column: string, value: string) => {
    const i = cols.indexOf(column);
    return [
      header,
      ...rows.map((r) => r.split(",").map((c, j) => (j === i && c !== "" ? value : c)).join(",")),
    ].join("\n");
  };
  for (
    const value of [
      "1e308",
      "-1e308",
      "NaN",
      "inf",
      "-inf",
      "1e3",
      "-5",
      "0",
      "12abc",
      "999999999999999999999999",
    ]
  ) {
    perf(`csv kernel duration ${value}`, setAll("DEVICE KERNEL DURATION [ns]", value));
    perf(`csv core count ${value}`, setAll("CORE COUNT", value));
  }
  perf("csv latency huge", setAll("OP TO OP LATENCY [ns]", "1e300"));
  perf("csv host start blank", setAll("HOST START TS", " "));
  perf(
    "csv non-UTF-8 cell",
    new Uint8Array([
      ...enc.encode(csvText.slice(0, 2000)),
      0xff,
      0xfe,
      ...enc.encode(csvText.slice(2000)),
    ]),
  );
  perf("csv is a directory", "dir");
  perf("csv with a directory as device log", csvText, { "profile_log_device.csv": "dir" });
  // The device log cut all along its length, and variants.
  const log = new TextDecoder().decode(logBytes);
  for (let i = 1; i <= 15; i++) {
    perf(`log cut at ${i}/16`, csvText, {
      "profile_log_device.csv": cut(log, Math.floor((log.length * i) / 16)),
    });
  }
  const logLines = log.split("\n");
  perf("log preamble only", csvText, { "profile_log_device.csv": logLines[0] + "\n" });
  perf("log no clock", csvText, {
    "profile_log_device.csv": ["ARCH: wormhole_b0", ...logLines.slice(1)].join("\n"),
  });
  perf("log clock zero", csvText, {
    "profile_log_device.csv": ["ARCH: wormhole_b0, CHIP_FREQ[MHz]: 0", ...logLines.slice(1)].join(
      "\n",
    ),
  });
  perf("log junk rows", csvText, {
    "profile_log_device.csv": [
      logLines[0],
      logLines[1],
      "x,y,z",
      "1,2",
      ",,,,,,,,,,,,,,",
      ...logLines.slice(2, 200),
    ].join("\n"),
  });
  perf("log CRLF", csvText, { "profile_log_device.csv": log.replaceAll("\n", "\r\n") });
  perf("log non-UTF-8", csvText, {
    "profile_log_device.csv": new Uint8Array([
      ...logBytes.slice(0, 5000),
      0xc3,
      0x28,
      ...logBytes.slice(5000, 9000),
    ]),
  });
  // The database cut at page boundaries, zero bytes, noise, a directory.
  for (
    const at of [100, 4096, 8192, 12288, 16384, 20480, dbBytes.length - 4096, dbBytes.length - 1]
  ) {
    cases.push({ name: `db cut at ${at}`, profiler: { "db.sqlite": dbBytes.slice(0, at) } });
  }
  cases.push({ name: "db zero bytes", profiler: { "db.sqlite": new Uint8Array() } });
  cases.push({
    name: "db noise",
    profiler: { "db.sqlite": Uint8Array.from({ length: 9000 }, (_, i) => (i * 31 + 7) % 251) },
  });
  cases.push({
    name: "db header then noise",
    profiler: {
      "db.sqlite": new Uint8Array([...dbBytes.slice(0, 100), ...new Uint8Array(8000).fill(0x5a)]),
    },
  });
  cases.push({ name: "db is a directory", profiler: { "db.sqlite": "dir" } });
  cases.push({
    name: "cluster descriptor is not YAML",
    profiler: { "db.sqlite": dbBytes, "cluster_descriptor.yaml": "arch: [\n" },
  });
  return cases;
}

/** Arguments that make each tool do its work on a handle. */
function argsFor(tool: string, handle: string): Record<string, unknown> {
  switch (tool) {
    case "diff_reports":
      return { handle_a: handle, handle_b: handle };
    case "operation_detail":
    case "operation_provenance":
      return { handle, operation_id: 1 };
    case "tensor_flow":
      return { handle, tensor_id: 1 };
    case "top_ops":
      return { handle, include: [...INCLUDE_GROUPS] };
    default:
      return { handle };
  }
}

Deno.test("every tool answers or refuses with a reason on every case of the report fault corpus", async () => {
  // Prevents a damaged capture from surfacing as an unexpected failure (or a crash) instead of a named problem.
  const tools = CATALOG;
  const load = tools.find((t) => t.name === "load_report")!;
  const cases = corpus();
  assert.ok(cases.length >= 100, `${cases.length} cases`);
  let calls = 0;
  let refusals = 0;
  for (const c of cases) {
    await using dir = await tempDir();
    const args: Record<string, string> = {};
    for (
      const [side, files] of [["performance", c.performance], ["profiler", c.profiler]] as const
    ) {
      if (!files) continue;
      const base = `${dir.path}/${side}`;
      await Deno.mkdir(base, { recursive: true });
      for (const [name, content] of Object.entries(files)) {
        if (content === "dir") await Deno.mkdir(`${base}/${name}`);
        else if (typeof content === "string") await Deno.writeTextFile(`${base}/${name}`, content);
        else await Deno.writeFile(`${base}/${name}`, content);
      }
      args[`${side}_path`] = base;
    }
    const ctx = {
      registry: new HandleRegistry(),
      roots: Roots.any(),
      signal: new AbortController().signal,
    };
    const loaded = await callTool(load, args, ctx);
    assert.notEqual(
      loaded.outcome,
      "error",
      `${c.name}: load_report failed: ${JSON.stringify(loaded.result).slice(0, 300)}`,
    );
    if (loaded.outcome !== "ok") continue;
    const answer = loaded.result.structuredContent as { handle: string; answerable: string[] };
    for (const name of answer.answerable) {
      const tool = tools.find((t) => t.name === name)!;
      const r = await callTool(tool, argsFor(name, answer.handle), ctx);
      calls++;
      if (r.outcome === "refused") refusals++;
      assert.notEqual(
        r.outcome,
        "error",
        `${c.name}: ${name} failed: ${JSON.stringify(r.result).slice(0, 400)}`,
      );
    }
  }
  console.error(
    `report fault corpus: ${cases.length} cases, ${calls} tool calls, ${refusals} refusals`,
  );
});
