/**
 * The terminal/pipe switch and the progress line, with a fake clock and a fake progress
 * source: a rendering only on a terminal, JSON on a pipe; the line only after a second, at
 * most every quarter second, erased when done, and never on a pipe.
 */
import assert from "node:assert/strict";
import { clampWidth, outputMode, type Terminal, viewOf } from "../../src/cli/terminal.ts";
import { progressFor, ProgressLine, progressText } from "../../src/cli/progress_line.ts";
import { rendered, runCall } from "../../src/cli/call.ts";
import { Roots } from "../../src/kit/roots.ts";
import { DEMO } from "../_support/dirs.ts";

const TERMINAL: Terminal = { stdout: true, stderr: true, width: 100, noColor: false };

Deno.test("a terminal gets a rendering, --json or a pipe gets JSON, and NO_COLOR no colour", () => {
  // Prevents scripts piping `call` from receiving a table, and a person at a terminal from
  // receiving JSON they did not ask for or colour they switched off.
  assert.equal(outputMode(TERMINAL, false), "text");
  assert.equal(outputMode(TERMINAL, true), "pretty_json");
  assert.equal(outputMode({ ...TERMINAL, stdout: false }, false), "json");
  assert.equal(outputMode({ ...TERMINAL, stdout: false }, true), "json");
  assert.deepEqual(viewOf(TERMINAL), { width: 100, colour: true });
  assert.deepEqual(viewOf({ ...TERMINAL, noColor: true }), { width: 100, colour: false });
  assert.deepEqual(viewOf({ ...TERMINAL, stdout: false }), { width: 100, colour: false });
});

Deno.test("the layout width is the terminal's, kept within 80 to 160 columns", () => {
  // Prevents a table laid out for 0 columns (a pseudo-terminal without a size) or for 300.
  assert.equal(clampWidth(null), 80);
  assert.equal(clampWidth(0), 80);
  assert.equal(clampWidth(60), 80);
  assert.equal(clampWidth(132), 132);
  assert.equal(clampWidth(400), 160);
});

/** A progress line on a fake clock, and what it wrote. */
function line() {
  let t = 0;
  const written: string[] = [];
  const progress = new ProgressLine((s) => written.push(s), { now: () => t, width: 80 });
  return { progress, written, at: (ms: number) => (t = ms) };
}

Deno.test("the progress line shows nothing until the work has run a second", () => {
  // Prevents a quick answer from flickering a progress line.
  const { progress, written, at } = line();
  at(100);
  progress.report(10, 100, "rows read");
  at(990);
  progress.report(90, 100, "rows read");
  assert.deepEqual(written, []);
  progress.close();
  assert.deepEqual(written, [], "nothing shown, nothing to erase");
});

Deno.test("the progress line is throttled to one redraw a quarter second, each in place", () => {
  // Prevents a long read from flooding the terminal with redraws.
  const { progress, written, at } = line();
  at(1_000);
  progress.report(100_000_000, 400_000_000, "bytes of profile_log_device.csv read");
  at(1_100);
  progress.report(110_000_000, 400_000_000, "bytes of profile_log_device.csv read");
  at(1_249);
  progress.report(120_000_000, 400_000_000, "bytes of profile_log_device.csv read");
  at(1_250);
  progress.report(125_000_000, 400_000_000, "bytes of profile_log_device.csv read");
  assert.equal(written.length, 2, JSON.stringify(written));
  assert.equal(
    written[0],
    "\rbytes of profile_log_device.csv read: 100 MB of 400 MB (25 %), 100 MB/s",
  );
  assert.ok(
    written[1].startsWith("\rbytes of profile_log_device.csv read: 125 MB of 400 MB (31 %)"),
  );
  assert.ok(written.every((w) => w.startsWith("\r") && !w.includes("\n")));
});

Deno.test("the progress line is erased when the work is done and never drawn after", () => {
  // Prevents the answer from being printed after a half-overwritten progress line.
  const { progress, written, at } = line();
  at(2_000);
  progress.report(5_000, null, "rows read");
  assert.equal(written[0], "\rrows read: 5,000, 2,500/s");
  progress.close();
  assert.equal(written[1], `\r${" ".repeat("rows read: 5,000, 2,500/s".length)}\r`);
  at(3_000);
  progress.report(9_000, null, "rows read");
  assert.equal(written.length, 2);
});

Deno.test("a longer line is cleared by the next one and the line never wraps", () => {
  // Prevents leftovers of a longer line and a line wider than the terminal.
  const { progress, written, at } = line();
  at(1_000);
  progress.report(1, 10, "x".repeat(200));
  assert.equal([...written[0]].length, 1 + 79);
  at(1_300);
  progress.report(2, 10, "short");
  assert.ok(written[1].endsWith(" ".repeat(10)), JSON.stringify(written[1]));
});

Deno.test("a new stage of work is drawn from its own start, its rate its own", () => {
  // Prevents the tool's read staying hidden behind load_report's larger figure on one line,
  // and its rate being diluted by the time load_report took.
  const { progress, written, at } = line();
  at(100);
  progress.report(50_000_000, 50_000_000, "bytes of ops_perf_results_x.csv read"); // not shown
  at(900);
  progress.report(4_000_000, 400_000_000, "bytes of profile_log_device.csv read"); // not shown
  at(1_100);
  progress.report(104_000_000, 400_000_000, "bytes of profile_log_device.csv read");
  assert.deepEqual(written, [
    "\rbytes of profile_log_device.csv read: 104 MB of 400 MB (26 %), 500 MB/s",
  ]);
  at(1_200);
  progress.report(108_000_000, 400_000_000, "bytes of profile_log_device.csv read");
  assert.equal(written.length, 1, "the new stage is throttled as any other");
  at(2_000);
  progress.report(1, 10, "rows replayed"); // a third stage: nothing done in it yet, no rate
  assert.equal(written[1].trimEnd(), "\rrows replayed: 1 of 10 (10 %)");
});

Deno.test("the end of the work is drawn even within the quarter second", () => {
  // Prevents a line stopping short of 100 % because the last read came soon after the one before.
  const { progress, written, at } = line();
  at(1_000);
  progress.report(300, 400, "bytes of profile_log_device.csv read");
  at(1_050);
  progress.report(400, 400, "bytes of profile_log_device.csv read");
  assert.equal(written.length, 2);
  assert.match(written[1], /400 B of 400 B \(100 %\)/);
});

Deno.test("no progress line on a pipe", () => {
  // Prevents a script reading stderr from receiving carriage returns and redraws.
  const written: string[] = [];
  const progress = progressFor(false, (s) => written.push(s), 80);
  progress.report(1, 2, "rows read");
  progress.close();
  assert.deepEqual(written, []);
  assert.ok(progressFor(true, () => {}, 80) instanceof ProgressLine);
});

Deno.test("progress text names bytes in kB/MB/GB and counts with thousands", () => {
  // Prevents a 409 MB read from being shown as 409000000.
  assert.equal(
    progressText(1_500, 409_000_000_000, "bytes read", 1_000),
    "bytes read: 1.50 kB of 409 GB (0 %), 1.50 kB/s",
  );
  assert.equal(
    progressText(12_345, 100_000, "rows read", 0),
    "rows read: 12,345 of 100,000 (12 %)",
  );
});

/** A one-shot call of top_ops on the demo capture, its output captured. */
async function callDemo(terminal: Terminal, words: string[] = ["--limit", "2"]) {
  const out: string[] = [];
  const err: string[] = [];
  const raw: string[] = [];
  const code = await runCall(
    { tool: "top_ops", words, performance: [`${DEMO}performance`], profiler: [] },
    Roots.any(),
    { out: (s) => out.push(s), err: (s) => err.push(s), errRaw: (s) => raw.push(s), terminal },
  );
  return { code, out: out.join("\n"), err, raw };
}

Deno.test("call renders for a terminal, prints JSON on a pipe, and pretty JSON for --json", async () => {
  // Prevents the switch between a person and a script from being decided anywhere but where
  // stdout goes: a script piping `call` must keep receiving one line of JSON.
  const text = await callDemo({ ...TERMINAL, noColor: true });
  assert.equal(text.code, 0);
  assert.match(text.out, /^Top 2 of 24 operations by device time/);
  assert.ok(!text.out.includes("\x1b["));
  const piped = await callDemo({ ...TERMINAL, stdout: false, stderr: false });
  assert.equal(JSON.parse(piped.out).returned, 2);
  assert.equal(piped.out.split("\n").length, 1);
  const pretty: string[] = [];
  const json = await runCall(
    {
      tool: "top_ops",
      words: ["--limit", "2"],
      performance: [`${DEMO}performance`],
      profiler: [],
      json: true,
    },
    Roots.any(),
    { out: (s) => pretty.push(s), err: () => {}, errRaw: () => {}, terminal: TERMINAL },
  );
  assert.equal(json, 0);
  assert.equal(JSON.parse(pretty.join("\n")).returned, 2);
  assert.match(pretty.join("\n"), /^\{\n {2}"handle": "report-1",\n/);
  // A quick answer on a terminal leaves no progress line behind.
  assert.deepEqual(text.raw, []);
  assert.deepEqual(text.err, []);
});

Deno.test("an answer its renderer cannot render is printed as JSON, saying why", async () => {
  // Prevents a rendering bug from losing the answer a person asked for.
  const err: string[] = [];
  const text = await rendered("top_ops", { returned: 1 }, {
    err: (s) => err.push(s),
    terminal: TERMINAL,
  }, () => {
    throw new Error("boom");
  });
  assert.deepEqual(JSON.parse(text), { returned: 1 });
  assert.deepEqual(err, ["top_ops's answer could not be rendered (boom); here is its JSON"]);
});
