/**
 * The alignment itself, as pure functions: which device operations a captured graph launched,
 * and how their order is matched against performance rows (the upstream matcher's cases).
 */
import assert from "node:assert/strict";
import {
  isDeviceOperation,
  launchedDeviceOperations,
  UnreadableGraph,
} from "../../src/analysis/_link_graph.ts";
import {
  align,
  type AlignRow,
  collapse,
  type DeviceOp,
  matchSequences,
} from "../../src/analysis/_link_align.ts";

const s = (name: string, extra: Record<string, unknown> = {}) => ({
  node_type: "function_start",
  params: { name, ...extra },
});
const e = (name: string, extra: Record<string, unknown> = {}) => ({
  node_type: "function_end",
  params: { name, ...extra },
});
const graph = (...nodes: unknown[]) => JSON.stringify(nodes);
const ops = (...pairs: [number, string][]): DeviceOp[] =>
  pairs.map(([operation_id, name]) => ({ operation_id, name }));
const rows = (...codes: string[]): AlignRow[] =>
  codes.map((raw_op_code, i) => ({ id: i + 2, raw_op_code }));
const ids = (m: ReturnType<typeof matchSequences>) =>
  m?.pairs.map((p) => [p.row.id, p.op.operation_id]);

Deno.test("device operation names match the application's filter", () => {
  // Prevents ttnn functions, C++ helpers or host ops entering the order rows are matched on.
  assert.ok(isDeviceOperation("MatmulDeviceOperation"));
  for (const name of ["ttnn.matmul", "Tensor::to_device", "aten::add (torch)", ""]) {
    assert.equal(isDeviceOperation(name), false, name);
  }
});

Deno.test("a graph names every completed device operation, in start and in end order", () => {
  // Prevents host functions in the order, and a child-first capture read in the wrong order.
  const g = graph(
    { node_type: "capture_start", params: {} },
    s("ttnn.conv2d"),
    s("Outer"),
    s("Inner"),
    { node_type: "buffer_allocate", params: { size: 4 } },
    e("Inner"),
    e("Outer"),
    s("tt::tt_metal::create_device_tensor"),
    e("tt::tt_metal::create_device_tensor"),
    e("ttnn.conv2d"),
    "not a node",
  );
  assert.deepEqual(launchedDeviceOperations(g), {
    starts: ["Outer", "Inner"],
    ends: ["Inner", "Outer"],
  });
});

Deno.test('a launch marked aborted is left out, and only exactly true or "true" marks it', () => {
  // Prevents a failed launch, which has no performance row, shifting every later row.
  for (const aborted of [true, "true"]) {
    const g = graph(s("A"), e("A"), s("B"), e("B", { aborted, abort_reason: "out of memory" }));
    assert.deepEqual(launchedDeviceOperations(g).starts, ["A"], String(aborted));
  }
  for (const aborted of ["True", "false", false]) {
    const g = graph(s("A"), e("A"), s("B"), e("B", { aborted }));
    assert.deepEqual(launchedDeviceOperations(g).starts, ["A", "B"], String(aborted));
  }
});

Deno.test("an unclosed scope is left out, and a stray end closes nothing", () => {
  // Prevents an older capture's failed launch (never closed) or a cut-off capture linking a row.
  const g = graph(s("A"), e("A"), e("Z"), s("B"), s("C"), e("C"));
  assert.deepEqual(launchedDeviceOperations(g).starts, ["A", "C"]);
  // An end closes the most recent open scope of its name, past an unclosed inner one.
  const nested = graph(s("A"), s("A"), e("A"));
  assert.deepEqual(launchedDeviceOperations(nested).starts, ["A"]);
});

Deno.test("an unreadable graph or a lifecycle node without a name is refused, not skipped", () => {
  // Prevents a dropped node shifting the order so rows pair with the wrong operations.
  for (const text of ["{not json", "{}", '"text"']) {
    assert.throws(() => launchedDeviceOperations(text), UnreadableGraph, text);
  }
  for (const params of [null, "text", {}, { name: 7 }]) {
    for (const node_type of ["function_start", "function_end"]) {
      assert.throws(
        () => launchedDeviceOperations(graph({ node_type, params })),
        /carries no name/,
        `${node_type} ${JSON.stringify(params)}`,
      );
    }
  }
  assert.deepEqual(launchedDeviceOperations(""), { starts: [], ends: [] });
});

Deno.test("trailing rows are tolerated but no partial match is returned", () => {
  // Prevents a prefix match passing for a link, and a longer perf capture failing to link.
  assert.deepEqual(align(ops([1, "A"], [2, "B"]), rows("A", "B", "C"))?.length, 2);
  assert.equal(align([], rows("A")), null);
  assert.equal(align(ops([1, "A"], [2, "B"]), rows("A")), null);
  assert.equal(align(ops([1, "A"], [2, "C"]), rows("A", "B")), null);
  assert.equal(
    matchSequences(ops([1, "A"], [2, "X"]), ops([1, "A"], [2, "X"]), rows("A", "B"), 1),
    null,
  );
});

Deno.test("start order is preferred when both orders align", () => {
  // Prevents the end-order fallback re-pairing a report that already lines up.
  const seq = ops([10, "A"], [20, "A"]);
  const m = matchSequences(seq, [...seq].reverse(), rows("A", "A"), 1);
  assert.equal(m?.matchedOn, "function_start");
  assert.deepEqual(ids(m), [[2, 10], [3, 20]]);
});

Deno.test("nested device operations fall back to function_end order", () => {
  // Prevents a child enqueued before its parent (issue #1860) leaving a report unlinked.
  const m = matchSequences(
    ops([1, "Outer"], [1, "Inner"]),
    ops([1, "Inner"], [1, "Outer"]),
    rows("Inner", "Outer"),
    1,
  );
  assert.equal(m?.matchedOn, "function_end");
});

Deno.test("end order is refused unless it holds the same operations", () => {
  // Prevents the fallback pairing rows with operations the start order never had.
  const starts = ops([1, "A"], [2, "B"]);
  for (const ends of [ops([1, "B"]), ops([1, "B"], [3, "A"]), ops([2, "B"], [2, "B"])]) {
    assert.equal(matchSequences(starts, ends, rows("B", "A"), 1), null, JSON.stringify(ends));
  }
});

Deno.test("a report recording each op once per device is collapsed to the merged rows", () => {
  // Prevents a mesh capture (one scope per device) never linking to merged rows.
  const seq = ops([1, "A"], [1, "A"], [2, "B"], [2, "B"]);
  const m = matchSequences(seq, seq, rows("A", "B"), 2);
  assert.equal(m?.matchedOn, "function_start_collapsed");
  assert.deepEqual(ids(m), [[2, 1], [3, 2]]);
  const many = ops(...Array.from({ length: 32 }, () => [7, "C"] as [number, string]));
  assert.equal(matchSequences(many, many, rows("C"), 32)?.matchedOn, "function_start_collapsed");
});

Deno.test("a single device keeps repeated ops, and a multi-device report recording once matches directly", () => {
  // Prevents a genuine repeat being collapsed away.
  const seq = ops([1, "Pad"], [1, "Pad"]);
  assert.equal(matchSequences(seq, seq, rows("Pad", "Pad"), 1)?.matchedOn, "function_start");
  assert.equal(matchSequences(seq, seq, rows("Pad", "Pad"), 2)?.matchedOn, "function_start");
  assert.equal(matchSequences(seq, seq, rows("Pad"), 1), null);
});

Deno.test("collapse keeps only keys seen exactly once per device, and a short collapse is rejected", () => {
  // Prevents a collapsed prefix that omits unduplicated ops passing for a link.
  assert.deepEqual(collapse(ops([1, "A"], [1, "A"], [2, "B"]), 2), ops([1, "A"]));
  assert.deepEqual(collapse(ops([1, "A"], [2, "B"]), 0), ops([1, "A"], [2, "B"]));
  const seq = ops([1, "A"], [1, "A"], [2, "B"]);
  assert.equal(matchSequences(seq, seq, rows("A", "X"), 2), null);
});

Deno.test("a duplicated nested sequence matches on the collapsed end pass", () => {
  // Prevents a mesh capture of nested device operations staying unlinked.
  const starts = ops([1, "Outer"], [1, "Inner"], [1, "Outer"], [1, "Inner"]);
  const ends = ops([1, "Inner"], [1, "Outer"], [1, "Inner"], [1, "Outer"]);
  assert.equal(
    matchSequences(starts, ends, rows("Inner", "Outer"), 2)?.matchedOn,
    "function_end_collapsed",
  );
});

Deno.test("a complete end order beats a spurious collapsed start prefix", () => {
  // Prevents a collapse pre-empting the raw end-order match that pairs every op.
  const starts = ops([1, "A"], [1, "B"], [1, "B"], [1, "A"]);
  const ends = ops([1, "A"], [1, "B"], [1, "A"], [1, "B"]);
  const m = matchSequences(starts, ends, rows("A", "B", "A", "B"), 2);
  assert.equal(m?.matchedOn, "function_end");
  assert.equal(m?.pairs.length, 4);
});
