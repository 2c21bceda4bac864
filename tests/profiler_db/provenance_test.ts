import assert from "node:assert/strict";
import { parseFrames } from "../../src/profiler_db/stack_frames.ts";
import { derived, loaded } from "./_fixtures.ts";

type Row = Record<string, unknown>;
const TINY = "/home/user/tt-metal/models/demos/tiny_cnn";

Deno.test("frames are read innermost first with the source line under each", () => {
  // Prevents the call site being taken from the harness end of the trace.
  const frames = parseFrames(
    '  File "/m/models/resnet.py", line 135, in run_downsample_if_req\n' +
      "    ds_out = ttnn.conv2d(\n\n" +
      '  File "/m/models/resnet.py", line 314, in __call__\n' +
      "    ds_out = self.run_downsample_if_req(\n\n" +
      '\tFile "/m/tests/infra.py", line 317, in run\n' +
      "    self.output = self.model(\n",
  );
  assert.deepEqual(frames[0], {
    file: "/m/models/resnet.py",
    line: 135,
    function: "run_downsample_if_req",
    code: "ds_out = ttnn.conv2d(",
  });
  assert.deepEqual(frames.map((f) => f.function), ["run_downsample_if_req", "__call__", "run"]);
});

Deno.test("a source line is never borrowed from the next frame", () => {
  // Prevents a frame without source showing its neighbour's frame line as its code.
  const frames = parseFrames('File "/a.py", line 1, in f\n\nFile "/b.py", line 2, in g\n  x()\n');
  assert.equal(frames[0].code, null);
  assert.equal(frames[1].code, "x()");
});

Deno.test("a File line without a function, or with a quote in its path, is no frame", () => {
  // Prevents half-parsed frames with a wrong file or an empty function.
  assert.deepEqual(parseFrames('  File "/a.py", line 3\n  File "/a.py", line 3, in \n'), []);
  assert.deepEqual(parseFrames('  File "/a"b.py", line 3, in f\n'), []);
  assert.deepEqual(parseFrames("#0 0x00007f3a41c2d1e5 in ttnn::add() ()\n#1 0x1 in main ()"), []);
});

Deno.test("operation_provenance gives the arguments in table order with the call site", async () => {
  // Prevents the wrong frame being named as where the operation was called.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_provenance", { operation_id: 5 });
  assert.equal(a.name, "ttnn.conv2d");
  assert.equal(a.argument_count, 11);
  assert.deepEqual((a.arguments as Row[]).map((x) => x.name).slice(0, 4), [
    "input_tensor",
    "weight_tensor",
    "in_channels",
    "out_channels",
  ]);
  assert.deepEqual(a.call_site, {
    file: `${TINY}/tt/common.py`,
    line: 25,
    function: "conv_block",
    code: "x = ttnn.conv2d(",
  });
  assert.equal(a.call_site_status, "recorded");
  assert.deepEqual((a.frames as Row[]).map((f) => f.function), [
    "__call__",
    "run_model",
    "test_tiny_cnn",
    "pytest_pyfunc_call",
    "_multicall",
  ]);
  assert.equal(a.chain_length, 5);
  assert.equal(a.returned_frames, 5);
  assert.equal(a.caveat, undefined);
});

Deno.test("two operations from different helpers get different call sites", async () => {
  // Prevents one cached or shared call site being reported for every operation.
  const r = await loaded("w1_python_writer");
  const conv = await r.call("operation_provenance", { operation_id: 6 });
  const head = await r.call("operation_provenance", { operation_id: 9 });
  assert.equal((conv.call_site as Row).function, "conv_block");
  assert.deepEqual(head.call_site, {
    file: `${TINY}/tt/tiny_block.py`,
    line: 59,
    function: "mlp_head",
    code: "x = ttnn.softmax(",
  });
});

Deno.test("argument values past 500 characters are cut, say so, and are counted", async () => {
  // Prevents a 177,717-character tensor repr landing whole in an answer.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_provenance", { operation_id: 5 });
  const args = a.arguments as Row[];
  const conv = args.find((x) => x.name === "conv_config")!;
  assert.equal((conv.value as string).length, 500);
  assert.equal(conv.truncated, true);
  assert.ok((conv.full_length as number) > 500);
  assert.ok((conv.value as string).startsWith("Conv2dConfig(weights_dtype=DataType::BFLOAT16"));
  const short = args.find((x) => x.name === "in_channels")!;
  assert.deepEqual(short, { name: "in_channels", value: "64" });
  assert.equal(a.truncated_count, 3);
  assert.equal(a.value_cap_chars, 500);
});

Deno.test("a NULL argument value reads as not recorded, not an empty string", async () => {
  // Prevents an agent reading a missing bias as an empty one.
  const r = await loaded("w1_python_writer");
  const a = await r.call("operation_provenance", { operation_id: 5 });
  assert.deepEqual((a.arguments as Row[]).find((x) => x.name === "bias_tensor"), {
    name: "bias_tensor",
    value: null,
    recorded: false,
  });
});

Deno.test("a long outward chain is capped at limit and the call site is not counted", async () => {
  // Prevents a 30-frame harness trace swamping the answer.
  const frames = Array.from(
    { length: 30 },
    (_, i) => `  File "/m/f${i}.py", line ${i + 1}, in fn${i}\n    call${i}()\n`,
  ).join("\n");
  await using dir = await derived(
    "w1_python_writer",
    `UPDATE stack_traces SET stack_trace = '${frames}' WHERE operation_id = 9;`,
  );
  const r = await loaded(dir.path);
  const a = await r.call("operation_provenance", { operation_id: 9, limit: 5 });
  assert.equal((a.call_site as Row).function, "fn0");
  assert.deepEqual((a.frames as Row[]).map((f) => f.function), ["fn1", "fn2", "fn3", "fn4", "fn5"]);
  assert.equal(a.returned_frames, 5);
  assert.equal(a.chain_length, 29);
  const capped = await r.call("operation_provenance", { operation_id: 9, limit: 1000 });
  assert.equal(capped.returned_frames, 29);
});

Deno.test("no recorded trace and an unreadable trace are two different answers", async () => {
  // Prevents 'the call site is unknown' being reported as 'there is no call site'.
  const r = await loaded("w1_python_writer");
  for (const id of [3, 4]) { // a NULL trace, and no trace row at all
    const a = await r.call("operation_provenance", { operation_id: id });
    assert.equal(a.call_site, null);
    assert.equal(a.chain_length, 0);
    assert.equal(a.call_site_status, "no_trace_recorded");
    assert.match(String(a.caveat), /recorded no stack trace for this operation/);
    assert.ok((a.arguments as Row[]).length > 0, "arguments still answer");
  }
  const native = await loaded("w1_native_traces");
  const b = await native.call("operation_provenance", { operation_id: 5 });
  assert.equal(b.call_site, null);
  assert.equal(b.call_site_status, "trace_unreadable");
  assert.match(
    String(b.caveat),
    /holds no frame this tool could read \(it is a native C\+\+ backtrace\)/,
  );
  assert.match(String(b.caveat), /unknown rather than absent/);
  assert.doesNotMatch(String(b.caveat), /recorded no stack trace/);
});

Deno.test("an empty stack_traces table and an absent one both read as no trace", async () => {
  // Prevents a crash on captures that never recorded traces.
  const empty = await loaded("v2_no_traces_no_geometry");
  assert.equal(
    (await empty.call("operation_provenance", { operation_id: 5 })).call_site_status,
    "no_trace_recorded",
  );
  await using dir = await derived("w1_python_writer", "DROP TABLE stack_traces;");
  const absent = await loaded(dir.path);
  const a = await absent.call("operation_provenance", { operation_id: 5 });
  assert.equal(a.call_site_status, "no_trace_recorded");
  assert.equal(a.argument_count, 11);
});

Deno.test("an unknown operation id is refused, saying it is a profiler operation id", async () => {
  // Prevents an empty answer, and steers an agent that passed a top_ops row id.
  const r = await loaded("w1_python_writer");
  assert.match(
    await r.refusal("operation_provenance", { operation_id: 99 }),
    /^no operation 99 in this report \(a profiler operation_id; a top_ops row id is a different id space/,
  );
});

Deno.test("the argument list is capped at 100 with the count of all of them", async () => {
  // Prevents an operation with hundreds of positional arguments flooding the answer.
  const rows = Array.from({ length: 120 }, (_, i) => `(12, 'arg_${i}', '${i}')`).join(", ");
  await using dir = await derived(
    "w1_python_writer",
    `INSERT INTO operation_arguments VALUES ${rows};`,
  );
  const r = await loaded(dir.path);
  const a = await r.call("operation_provenance", { operation_id: 12 });
  assert.equal((a.arguments as Row[]).length, 100);
  assert.equal(a.argument_count, 121);
});
