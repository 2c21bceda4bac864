import assert from "node:assert/strict";
import { HandleRegistry } from "../../src/session/handles.ts";
import { loadAndRegister } from "../../src/session/load.ts";
import { deviceLogSummary } from "../../src/session/device_log.ts";
import { Roots } from "../../src/kit/roots.ts";
import { copyDemo, tempDir } from "../_support/dirs.ts";
import { runCall } from "../../src/cli/call.ts";
import { deviceLogSession } from "../device_log/_session.ts";

/** The demo copied, loaded with its CSV read on first need, and the CSV's path. */
async function lazyLoad(dir: string) {
  const { performance } = await copyDemo(dir);
  const loaded = await loadAndRegister(
    new HandleRegistry(),
    { performance_path: performance },
    Roots.any(),
    undefined,
    { lazyCsv: true },
  );
  return { loaded, csv: `${performance}/ops_perf_results_demo.csv` };
}

Deno.test("a zones read of a lazily loaded report never reads its performance CSV", async () => {
  // Prevents a one-shot `call zone_timings` parsing a CSV of tens of MB it never uses.
  await using dir = await tempDir();
  const { loaded, csv } = await lazyLoad(dir.path);
  const summary = await deviceLogSummary({ tool: "zone_timings", report: loaded }, "zones");
  assert.ok(summary.zones.length > 0 && summary.spans === null);
  // Rewritten in place, the CSV is read through the descriptor opened at load: had the zones
  // read parsed it, the table would still be the demo's.
  await Deno.writeTextFile(csv, "not,an,ops,csv\n1,2,3,4\n");
  const read = loaded.inventory.performance!.csvRead!;
  assert.equal(read.ok, false);
});

Deno.test("a lazily loaded report reads its CSV once, when first asked, through the load's descriptor", async () => {
  // Prevents a lazy load answering without its CSV, or reading it again on every access.
  await using dir = await tempDir();
  const { loaded } = await lazyLoad(dir.path);
  const perf = loaded.inventory.performance!;
  assert.equal(perf.csvIdentity?.size, (await Deno.stat(perf.csv!.path)).size);
  const first = perf.csvRead!;
  assert.ok(first.ok, first.ok ? "" : first.problem);
  assert.equal(perf.csvRead, first);
  assert.ok(perf.whole !== null && perf.wholeProblem === null);
  const spans = await deviceLogSummary({ tool: "core_spread", report: loaded }, "spans");
  assert.ok(spans.spans !== null);
});

/** A one-shot `call <tool>` on `performance` as JSON: its exit code and answer. */
async function oneShot(tool: string, performance: string) {
  const out: string[] = [];
  const code = await runCall(
    { tool, words: [], performance: [performance], profiler: [], json: true },
    Roots.any(),
    {
      out: (s) => out.push(s),
      err: () => {},
      errRaw: () => {},
      terminal: { stdout: false, stderr: false, width: 100, noColor: true },
    },
  );
  return { code, answer: JSON.parse(out.join("\n") || "{}") as Record<string, unknown> };
}

Deno.test("a one-shot zone_timings names core_spread without reading the CSV, saying so", async () => {
  // Prevents a one-shot `call zone_timings` parsing and reporting on a CSV of tens of MB (and
  // holding it at its peak) only to judge its next step, or naming that step on an unread CSV
  // without saying so. A CSV that cannot be reported on shows which: had the call read it,
  // core_spread would not be named.
  await using dir = await tempDir();
  const { performance } = await copyDemo(dir.path);
  await Deno.writeTextFile(`${performance}/ops_perf_results_demo.csv`, "not,an,ops,csv\n1,2,3,4\n");
  const { code, answer } = await oneShot("zone_timings", performance);
  assert.equal(code, 0);
  assert.deepEqual((answer.next as { tool: string }[]).map((s) => s.tool), ["core_spread"]);
  const assumed = answer.assumed as Record<string, { assumed: string }>;
  assert.equal(assumed.performance_csv.assumed, "can be reported on");
  // The step it named reads the CSV and says why it cannot answer.
  const spread = await oneShot("core_spread", performance);
  assert.equal(spread.code, 1);
  // Where the CSV was read (load_report reads it), nothing is assumed and the step is exact.
  const s = deviceLogSession();
  const { handle } = await s.load(performance);
  const served = await s.call("zone_timings", { handle });
  assert.equal(served.assumed, undefined);
  assert.ok(!((served.next ?? []) as { tool: string }[]).some((n) => n.tool === "core_spread"));
});
