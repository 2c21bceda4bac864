import assert from "node:assert/strict";
import { generatePerfReport } from "../../src/perf_report/report.ts";
import { runTtPerfReport } from "../../src/perf_report/pipeline.ts";
import {
  listSignpostOccurrences,
  listSignposts,
  resolveSignpostWindow,
} from "../../src/perf_report/signposts.ts";
import { SignpostRangeError } from "../../src/perf_report/exceptions.ts";
import { fixture } from "./_fixtures.ts";

// signposts.csv: start(2) Transpose(3) Matmul(4) mid(5) Softmax(6) start(7) LayerNorm(8)
// end(9) Unary(10) gap_a(11) gap_b(12).
const ids = (o: { startSignpost?: string; endSignpost?: string }) =>
  generatePerfReport(fixture("signposts.csv"), o).rows.map((r) => r.id);

function refused(kind: string, start?: string, end?: string, name = "signposts.csv") {
  assert.throws(
    () => generatePerfReport(fixture(name), { startSignpost: start, endSignpost: end }),
    (e: unknown) => e instanceof SignpostRangeError && e.kind === kind,
  );
}

Deno.test("without a range the whole file is read, signposts kept as rows", () => {
  // Prevents the tool's 'after the last signpost' default from hiding rows from an agent.
  assert.deepEqual(ids({}), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
});

Deno.test("a start signpost means its earliest occurrence; rows after it are read", () => {
  // Prevents a later occurrence of the same name from starting the window.
  assert.deepEqual(ids({ startSignpost: "start" }), [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
});

Deno.test("an end signpost naming the start means its second occurrence", () => {
  // Prevents a same-name range from being empty (first occurrence) or too long (last).
  assert.deepEqual(ids({ startSignpost: "start", endSignpost: "start" }), [3, 4, 5, 6]);
});

Deno.test("the window holds the rows strictly between the bounds, inner signposts kept", () => {
  // Prevents the bounding signposts leaking in, or markers inside the window vanishing.
  const rows = generatePerfReport(fixture("signposts.csv"), {
    startSignpost: "start",
    endSignpost: "end",
  }).rows;
  assert.deepEqual(rows.map((r) => r.id), [3, 4, 5, 6, 7, 8]);
  assert.deepEqual(rows.filter((r) => r.is_signpost).map((r) => r.op_code), [
    "mid (signpost)",
    "start (signpost)",
  ]);
});

Deno.test("Total % is recomputed over the window and its first row has no gap", () => {
  // Prevents window shares of the whole report, and the gap leading into the window.
  const whole = generatePerfReport(fixture("signposts.csv"));
  const win = generatePerfReport(fixture("signposts.csv"), { startSignpost: "mid" });
  const softmax = (r: typeof whole) => r.rows.find((x) => x.id === 6)!;
  assert.equal(softmax(whole).op_to_op_gap, 10);
  assert.equal(softmax(win).op_to_op_gap, null);
  const total = win.rows.reduce((s, r) => s + (r.total_percent ?? 0), 0);
  assert.ok(Math.abs(total - 100) < 1e-9);
  assert.notEqual(softmax(whole).total_percent, softmax(win).total_percent);
  assert.deepEqual(win.window, {
    start_signpost: "mid",
    end_signpost: null,
    signpost_range_ignored: false,
    start_occurrence: { used: 1, of: 1 },
  });
});

Deno.test("an empty window is an empty report, not an error", () => {
  // Prevents two adjacent signposts from being refused or answered with other rows.
  const r = generatePerfReport(fixture("signposts.csv"), {
    startSignpost: "gap_a",
    endSignpost: "gap_b",
  });
  assert.deepEqual(r.rows, []);
  assert.equal(r.stacked.op, null);
});

Deno.test("tt-perf-report's own default window starts after the last signpost's first occurrence", () => {
  // Prevents the tool-level pipeline diverging from the CLI default (empty here).
  const r = runTtPerfReport(fixture("signposts.csv"));
  assert.deepEqual(r.rows, []);
  assert.ok(r.messages.includes("Using last signpost: gap_b for analysis."));
});

Deno.test("a name the report does not hold is refused, listing at most 20 of its names", () => {
  // Prevents a typo from silently falling back to another window.
  refused("unknown_name", "nope");
  refused("unknown_name", undefined, "nope");
  try {
    generatePerfReport(fixture("many_signposts.csv"), { startSignpost: "nope" });
    assert.fail("not refused");
  } catch (e) {
    assert.ok(e instanceof SignpostRangeError);
    assert.ok(e.message.includes('"phase_19"') && !e.message.includes('"phase_20"'));
    assert.ok(e.message.includes("and 5 more"));
  }
});

Deno.test("one name for both bounds is refused when it occurs only once", () => {
  // Prevents a same-name range from quietly becoming an open-ended one.
  refused("single_occurrence", "mid", "mid");
});

Deno.test("an end that falls before the start is refused", () => {
  // Prevents an empty answer that reads as 'nothing ran' for a reversed range.
  refused("end_before_start", "mid", "start");
});

Deno.test("a name longer than 256 characters is refused, even one the report holds", () => {
  // Prevents unbounded names being echoed back or looked up.
  refused("name_too_long", "x".repeat(300), undefined, "many_signposts.csv");
  refused("name_too_long", undefined, "y".repeat(257));
});

Deno.test("a report with no signposts is read whole and says the range was ignored", () => {
  // Prevents a refusal (or an empty answer) for a capture that has no markers at all.
  const r = generatePerfReport(fixture("two_devices.csv"), { startSignpost: "PERF_DECODE" });
  assert.equal(r.window.signpost_range_ignored, true);
  assert.equal(r.rows.length, 4);
  assert.deepEqual(resolveSignpostWindow(fixture("two_devices.csv"), "a", "b").ignored, true);
});

Deno.test("signposts are listed in resolution order with their counts", () => {
  // Prevents load_report offering a name twice or hiding that one occurs only once.
  assert.deepEqual(listSignposts(fixture("signposts.csv")), [
    { name: "start", count: 2 },
    { name: "mid", count: 1 },
    { name: "end", count: 1 },
    { name: "gap_a", count: 1 },
    { name: "gap_b", count: 1 },
  ]);
  assert.deepEqual(listSignposts(fixture("two_devices.csv")), []);
  assert.deepEqual(listSignpostOccurrences(fixture("signposts.csv")).map((o) => o.id), [
    2,
    5,
    7,
    9,
    11,
    12,
  ]);
});

Deno.test("a resolved range names the CSV lines of its bounds", () => {
  // Prevents a projection that cannot say which occurrence bounded the window.
  assert.deepEqual(resolveSignpostWindow(fixture("signposts.csv"), "start", "start"), {
    ignored: false,
    start: { name: "start", id: 2 },
    end: { name: "start", id: 7 },
    startOccurrence: { used: 1, of: 2 },
  });
});
