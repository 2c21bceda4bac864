/**
 * load_report says how far it has read its performance CSV: a large file's bytes rise in
 * steps to its size, and a load on a report directory passes them to the call's progress.
 */
import assert from "node:assert/strict";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { readCapped } from "../../src/kit/report_file.ts";
import { callTool } from "../../src/protocol/tool_call.ts";
import { HandleRegistry } from "../../src/session/handles.ts";
import { Roots } from "../../src/kit/roots.ts";
import { loadReportTool } from "../../src/tools/load_report.ts";
import type { Tool } from "../../src/tools/tool.ts";

Deno.test("a capped read reports its bytes in steps, rising to the size", async () => {
  // Prevents a large CSV on a slow disk being read in one silent step.
  await using dir = await tempDir();
  const size = 40 << 20;
  await Deno.writeFile(`${dir.path}/big.csv`, new Uint8Array(size).fill(65));
  using file = await Deno.open(`${dir.path}/big.csv`);
  const heard: [number, number | null, string][] = [];
  const bytes = await readCapped(file, 64 << 20, "big.csv", size, {
    report: (d, t, m) => heard.push([d, t, m]),
  });
  assert.equal(bytes.length, size);
  assert.ok(heard.length >= 3, JSON.stringify(heard));
  assert.ok(heard.every(([d], i) => i === 0 || d > heard[i - 1][0]));
  assert.deepEqual(heard[heard.length - 1], [size, size, "bytes of big.csv read"]);
});

Deno.test("load_report passes the CSV's read to the call's progress", async () => {
  // Prevents load_report's progress being dropped between the tool and the read.
  const tools: Tool[] = [];
  tools.push(loadReportTool(() => tools));
  const heard: string[] = [];
  const ctx = {
    registry: new HandleRegistry(),
    roots: Roots.any(),
    signal: new AbortController().signal,
    progress: { report: (_d: number, _t: number | null, m: string) => heard.push(m) },
  };
  const r = await callTool(tools[0], { performance_path: `${DEMO}performance` }, ctx);
  assert.equal(r.outcome, "ok");
  assert.ok(heard.includes("bytes of ops_perf_results_demo.csv read"), JSON.stringify(heard));
});
