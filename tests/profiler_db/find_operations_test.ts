import assert from "node:assert/strict";
import { derived, loaded, moreOperations } from "./_fixtures.ts";

type Op = { operation_id: number; name: string; duration: number | null };
const ids = (a: Record<string, unknown>) => (a.operations as Op[]).map((o) => o.operation_id);

Deno.test("find_operations matches a name substring case-insensitively, in execution order", async () => {
  // Prevents a case-sensitive search missing 'ttnn.Conv2d', or a shuffled answer.
  const r = await loaded("w1_python_writer");
  const a = await r.call("find_operations", { name_contains: "  DEALLOC " });
  assert.deepEqual(ids(a), [4, 7, 11]);
  assert.equal(a.name_contains, "DEALLOC");
  assert.equal(a.match_count, 3);
  assert.deepEqual((a.operations as Op[])[0], {
    operation_id: 4,
    name: "ttnn.deallocate",
    duration: 0.0027,
  });
});

Deno.test("an operation's duration is labelled host seconds", async () => {
  // Prevents a profiler operation's host time being read as device microseconds.
  const r = await loaded("w1_python_writer");
  const a = await r.call("find_operations", { name_contains: "conv2d" });
  assert.equal(a.duration_unit, "host_seconds");
  assert.equal((a.operations as Op[])[0].duration, 0.0143);
});

Deno.test("match_count counts every match, not the returned slice", async () => {
  // Prevents an agent reading 'returned' as the size of the match.
  const r = await loaded("w1_python_writer");
  const a = await r.call("find_operations", { name_contains: "ttnn.", limit: 2 });
  assert.equal(a.match_count, 12);
  assert.equal(a.returned, 2);
  assert.deepEqual(ids(a), [1, 2]);
});

Deno.test("a limit past the cap returns the cap", async () => {
  // Prevents an answer the size of the operations table.
  await using dir = await derived("w1_python_writer", moreOperations(150, (i) => `ttnn.op_${i}`));
  const r = await loaded(dir.path);
  const a = await r.call("find_operations", { limit: 100000 });
  assert.equal(a.match_count, 162);
  assert.equal(a.returned, 100);
});

Deno.test("called_from finds every operation a helper called, matched anywhere in the trace", async () => {
  // Prevents a search that only looks at the innermost frame and misses calls through helpers.
  const r = await loaded("w1_python_writer");
  assert.deepEqual(ids(await r.call("find_operations", { called_from: "COMMON.PY" })), [5, 6, 7]);
  assert.deepEqual(
    ids(await r.call("find_operations", { called_from: "tiny_block.py", limit: 100 })),
    [5, 6, 7, 8, 9, 10, 11],
  );
  // A source line is part of the trace too.
  assert.deepEqual(ids(await r.call("find_operations", { called_from: "self.mlp_head(x)" })), [
    8,
    9,
    10,
    11,
  ]);
});

Deno.test("the two filters narrow together", async () => {
  // Prevents either filter being ignored when both are given.
  const r = await loaded("w1_python_writer");
  const a = await r.call("find_operations", { name_contains: "deallocate", called_from: "common" });
  assert.deepEqual(ids(a), [7]);
  const none = await r.call("find_operations", { name_contains: "softmax", called_from: "common" });
  assert.equal(none.match_count, 0);
});

Deno.test("an operation with no trace, or a NULL one, is never matched by called_from", async () => {
  // Prevents operations without traces matching every search (or crashing it).
  const r = await loaded("w1_python_writer");
  const a = await r.call("find_operations", { called_from: "e", limit: 100 });
  assert.ok(!ids(a).includes(3), "operation 3 has a NULL trace");
  assert.ok(!ids(a).includes(4), "operation 4 has no trace row");
  assert.equal(a.match_count, 10);
});

Deno.test("the needle is a literal substring, not a LIKE pattern", async () => {
  // Prevents '_' and '%' acting as wildcards and matching operations they do not name.
  await using dir = await derived(
    "w1_python_writer",
    moreOperations(2, (i) => ["ttnn.to_memory_config", "ttnn.toXmemory"][i]),
  );
  const r = await loaded(dir.path);
  assert.deepEqual(ids(await r.call("find_operations", { name_contains: "to_m" })), [1000]);
  assert.equal((await r.call("find_operations", { name_contains: "%" })).match_count, 0);
  assert.equal((await r.call("find_operations", { called_from: "tiny%block" })).match_count, 0);
  assert.equal((await r.call("find_operations", { called_from: "tiny_block" })).match_count, 7);
});

Deno.test("a blank called_from is refused; a blank name matches every operation", async () => {
  // Prevents a blank search silently matching nothing (or everything) by accident.
  const r = await loaded("w1_python_writer");
  assert.match(
    await r.refusal("find_operations", { called_from: "   " }),
    /called_from is empty; omit it to search every operation/,
  );
  const a = await r.call("find_operations", { name_contains: " " });
  assert.equal(a.match_count, 12);
  assert.equal(a.name_contains, null);
});

Deno.test("a capture with no traces says called_from can match nothing, rather than answering zero", async () => {
  // Prevents an empty result being read as 'no operation came from there'.
  const empty = await loaded("v2_no_traces_no_geometry");
  const a = await empty.call("find_operations", { called_from: "tiny_block" });
  assert.equal(a.match_count, 0);
  assert.match(String(a.caveat), /records no stack traces, so called_from can match nothing/);
  assert.match(String(a.caveat), /not evidence/);
  assert.equal((await empty.call("find_operations", {})).caveat, undefined);
  await using dir = await derived("w1_python_writer", "DROP TABLE stack_traces;");
  const absent = await loaded(dir.path);
  assert.match(
    String((await absent.call("find_operations", { called_from: "x" })).caveat),
    /records no stack traces/,
  );
  const traced = await loaded("w1_python_writer");
  assert.equal((await traced.call("find_operations", { called_from: "zzz" })).caveat, undefined);
});

Deno.test("a native backtrace is searched as text too", async () => {
  // Prevents called_from from ignoring captures whose traces are C++ backtraces.
  const r = await loaded("w1_native_traces");
  const a = await r.call("find_operations", { called_from: "ttnn::operations::softmax" });
  assert.deepEqual(ids(a), [9]);
});

Deno.test("a non-integer or negative limit is refused by the schema", async () => {
  // Prevents a silently truncated limit.
  const r = await loaded("w1_python_writer");
  assert.match(await r.refusal("find_operations", { limit: 2.5 }), /limit/);
  assert.match(await r.refusal("find_operations", { limit: 0 }), /limit/);
  assert.match(await r.refusal("find_operations", { name: "x" }), /unknown argument 'name'/);
});

Deno.test("called_from counts every match while it lists the first, once per operation", async () => {
  // Prevents the one search serving both the count and the listing counting an operation
  // once per trace row, or counting only what it lists.
  await using dir = await derived(
    "w1_python_writer",
    "INSERT INTO stack_traces SELECT * FROM stack_traces WHERE operation_id IN (5, 9);",
  );
  const r = await loaded(dir.path);
  const a = await r.call("find_operations", { called_from: "tiny_block.py", limit: 2 });
  assert.equal(a.match_count, 7);
  assert.equal(a.returned, 2);
  assert.deepEqual(ids(a), [5, 6]);
  const both = await r.call("find_operations", { called_from: "TINY_block", name_contains: "a" });
  assert.equal(both.match_count, ids(both).length);
});
