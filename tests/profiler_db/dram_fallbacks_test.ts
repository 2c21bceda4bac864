import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { derived, loaded } from "./_fixtures.ts";
import * as M from "./_allocation_messages.ts";

type Row = Record<string, unknown>;

const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
const config = (type: string) =>
  `MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::${type},` +
  "shard_spec=std::nullopt,nd_shard_spec=std::nullopt,created_with_nd_shard_spec=0)";

/** In v2_1_tensor_size, ttnn.linear (operation 8) asks for L1 and writes tensor 8. */
const LINEAR_OUTPUT_IN_DRAM = "UPDATE tensors SET buffer_type = 'DRAM', address = 3000000 " +
  "WHERE tensor_id = 8;";

/** An attached error on an operation. */
const error = (id: number, name: string, message: string) =>
  `INSERT INTO errors VALUES (${id}, ${q(name)}, 'RuntimeError', ${q(M.framed(message))}, '', '');`;

async function fallbacks(sql: string, args: Row = {}): Promise<Row> {
  await using dir = await derived("v2_1_tensor_size", sql);
  return await (await loaded(dir.path)).call("dram_fallbacks", args);
}

const ids = (a: Row) => (a.fallbacks as Row[]).map((f) => [f.operation_id, f.signal]);

Deno.test("an L1 request whose output landed in DRAM is an argument mismatch", async () => {
  // Prevents the main fallback signal being missed, or reported without its figures.
  const a = await fallbacks(LINEAR_OUTPUT_IN_DRAM);
  assert.deepEqual(a.fallbacks, [{
    operation_id: 8,
    operation_name: "ttnn.linear",
    signal: "argument_mismatch",
    requested_buffer_type: "L1",
    dram_output_count: 1,
    output_count: 1,
    summary: "Asked for L1; 1 of 1 output is in DRAM.",
  }]);
  assert.equal(a.fallback_count, 1);
  assert.equal(a.argument_mismatch_count, 1);
  assert.match(String(a.note), /inferred/);
  assert.equal(a.caveat, undefined);
});

Deno.test("the fixture as generated has no fallback", async () => {
  // Prevents flagging operations whose L1 requests were honoured, or DRAM requests.
  const a = await (await loaded("v2_1_tensor_size")).call("dram_fallbacks");
  assert.deepEqual(a.fallbacks, []);
  assert.equal(a.operations_read, 12);
  assert.equal(a.retry_signal_checked, true);
});

Deno.test("an output at a DRAM input's address on the same device is a view, not a fallback", async () => {
  // Prevents a reshape-style alias of a DRAM input counting as a DRAM allocation.
  const alias = "UPDATE tensors SET buffer_type = 'DRAM', address = 1928224 WHERE tensor_id = 8;";
  assert.deepEqual(ids(await fallbacks(alias)), []);
  const otherDevice = alias + "UPDATE tensors SET device_id = 1 WHERE tensor_id = 8;";
  assert.deepEqual(ids(await fallbacks(otherDevice)), [[8, "argument_mismatch"]]);
});

Deno.test("an operation counts only when every output it allocated itself is in DRAM", async () => {
  // Prevents an operation with one output in L1 and one in DRAM read as having fallen back,
  // or a view beside a DRAM output hiding one that did.
  const second = (address: number, type: string) =>
    "INSERT INTO output_tensors VALUES (8, 1, 200);" +
    "INSERT INTO tensors (tensor_id, device_id, address, buffer_type) VALUES " +
    `(200, 0, ${address}, '${type}');`;
  assert.deepEqual(ids(await fallbacks(LINEAR_OUTPUT_IN_DRAM + second(1400000, "L1"))), []);
  const a = await fallbacks(LINEAR_OUTPUT_IN_DRAM + second(1928224, "DRAM"));
  const [f] = a.fallbacks as Row[];
  assert.deepEqual([f.dram_output_count, f.output_count], [1, 2]);
  assert.equal(f.summary, "Asked for L1; 1 of 2 outputs are in DRAM.");
  assert.deepEqual(ids(await fallbacks(second(3100000, "DRAM"))), []);
});

Deno.test("a DRAM output with no address counts, typed by its memory config", async () => {
  // Prevents a deallocated output (address null, stored type unreliable) hiding a fallback.
  const a = await fallbacks(
    `UPDATE tensors SET address = NULL, buffer_type = 1, memory_config = ${
      q(config("DRAM"))
    } WHERE tensor_id = 8;`,
  );
  assert.deepEqual(ids(a), [[8, "argument_mismatch"]]);
});

Deno.test("only memory configs that all ask for L1 are an L1 request", async () => {
  // Prevents a mixed, typeless or absent request read as asking for L1.
  const add = (name: string, value: string) =>
    LINEAR_OUTPUT_IN_DRAM +
    `INSERT INTO operation_arguments VALUES (8, ${q(name)}, ${q(value)});`;
  assert.deepEqual(ids(await fallbacks(add("output_config", config("DRAM")))), []);
  assert.deepEqual(ids(await fallbacks(add("cfg", "MemoryConfig(memory_layout=X)"))), []);
  assert.deepEqual(
    ids(await fallbacks(add("intermediate_memory_config", config("DRAM")))),
    [[8, "argument_mismatch"]],
  );
  assert.deepEqual(ids(await fallbacks(add("note", `see ${config("DRAM")}`))), [[
    8,
    "argument_mismatch",
  ]]);
  assert.deepEqual(
    ids(
      await fallbacks(
        LINEAR_OUTPUT_IN_DRAM + "DELETE FROM operation_arguments WHERE " +
          "operation_id = 8 AND value LIKE 'MemoryConfig%';",
      ),
    ),
    [],
  );
});

Deno.test("an L1_SMALL request counts, and the first request is the one reported", async () => {
  // Prevents L1_SMALL missed as an L1 request, or a later config named instead of the first.
  const a = await fallbacks(
    LINEAR_OUTPUT_IN_DRAM +
      `UPDATE operation_arguments SET value = ${q(config("L1_SMALL"))} WHERE operation_id = 8 ` +
      "AND value LIKE 'MemoryConfig%';" +
      `INSERT INTO operation_arguments VALUES (8, '5', ${q(config("L1"))});`,
  );
  assert.equal((a.fallbacks as Row[])[0].requested_buffer_type, "L1_SMALL");
});

/** ttnn.add (operation 10, two after ttnn.linear) renamed so it retries it; its output is DRAM. */
const RETRY = "UPDATE operations SET name = 'ttnn.linear' WHERE operation_id = 10;";

Deno.test("the same-named operation after an L1 allocation failure, in DRAM, is a retry", async () => {
  // Prevents the retry signal missed, or credited to the wrong failure.
  const a = await fallbacks(RETRY + error(8, "ttnn.linear", M.B));
  assert.deepEqual(a.fallbacks, [{
    operation_id: 10,
    operation_name: "ttnn.linear",
    signal: "retry_after_failure",
    failed_operation_id: 8,
    failed_operation_name: "ttnn.linear",
    dram_output_count: 1,
    output_count: 1,
    summary: "Retries operation 8 (ttnn.linear), which failed to allocate L1; 1 of 1 output " +
      "is in DRAM.",
  }]);
  assert.equal(a.retry_after_failure_count, 1);
});

Deno.test("a retry counts within three operations of the failure and not four", async () => {
  // Prevents an off-by-one widening or narrowing the retry window.
  const relu = (id: number) =>
    `UPDATE operations SET name = 'ttnn.relu' WHERE operation_id = ${id};`;
  const failure = error(6, "ttnn.relu", M.F);
  assert.deepEqual(
    ids(await fallbacks(relu(9) + failure + LINEAR_OUTPUT_IN_DRAM.replace("8;", "9;"))),
    [[
      9,
      "retry_after_failure",
    ]],
  );
  assert.deepEqual(ids(await fallbacks(relu(10) + failure)), []);
});

Deno.test("a DRAM allocation failure, or an unattached one, earns no retry credit", async () => {
  // Prevents a DRAM shortfall or a misplaced error read as an L1 fallback.
  assert.deepEqual(ids(await fallbacks(RETRY + error(8, "ttnn.linear", M.C))), []);
  assert.deepEqual(ids(await fallbacks(RETRY + error(8, "ttnn.matmul", M.B))), []);
  assert.deepEqual(ids(await fallbacks(RETRY + error(8, "ttnn.linear", "Shape mismatch"))), []);
});

Deno.test("only the first same-named operation in the window is the retry", async () => {
  // Prevents a later spill credited when the retry itself stayed in L1.
  const stayedInL1 = RETRY + "UPDATE operations SET name = 'ttnn.linear' WHERE operation_id = 9;";
  assert.deepEqual(ids(await fallbacks(stayedInL1 + error(8, "ttnn.linear", M.B))), []);
});

Deno.test("a retry outranks an argument mismatch on the same operation", async () => {
  // Prevents one operation listed twice, or under the weaker signal.
  const asksL1 = `UPDATE operation_arguments SET value = ${q(config("L1"))} WHERE ` +
    "operation_id = 10 AND value LIKE 'MemoryConfig%';";
  assert.deepEqual(ids(await fallbacks(asksL1)), [[10, "argument_mismatch"]]);
  assert.deepEqual(ids(await fallbacks(asksL1 + RETRY + error(8, "ttnn.linear", M.G))), [[
    10,
    "retry_after_failure",
  ]]);
});

Deno.test("a report without an errors table says the retry signal was not looked for", async () => {
  // Prevents "no retries" read as a finding on a capture that records no failures.
  const a = await (await loaded("w1_python_writer")).call("dram_fallbacks");
  assert.equal(a.retry_signal_checked, false);
  assert.match(String(a.caveat), /not looked for.*no errors table/);
});

Deno.test("a limit past the cap returns the cap, with every fallback counted", async () => {
  // Prevents an unbounded answer, or a count that stops at the page.
  const n = 120;
  const range = Array.from({ length: n }, (_, i) => 1000 + i);
  const sql = `INSERT INTO operations VALUES ${range.map((id) => `(${id}, 'ttnn.x', 0.001)`)};` +
    `INSERT INTO operation_arguments VALUES ${
      range.map((id) => `(${id}, 'memory_config', ${q(config("L1"))})`)
    };` +
    `INSERT INTO output_tensors VALUES ${range.map((id) => `(${id}, 0, ${id})`)};` +
    `INSERT INTO tensors (tensor_id, device_id, address, buffer_type) VALUES ${
      range.map((id) => `(${id}, 0, ${id * 64}, 'DRAM')`)
    };`;
  const a = await fallbacks(sql, { limit: 500 });
  assert.equal(a.returned, 100);
  assert.equal(a.fallback_count, n);
});

Deno.test("a multi-host report is read at one rank, and one without ranks on its tensors is refused", async () => {
  // Prevents rank 1's fallback reported at rank 0, or unattributable rows answered.
  await using dir = await derived(
    "ranked_two_hosts",
    "UPDATE tensors SET buffer_type = 0, address = 3000000 WHERE tensor_id = 8 AND rank = 1;",
  );
  const r = await loaded(dir.path);
  assert.deepEqual(ids(await r.call("dram_fallbacks")), []);
  const one = await r.call("dram_fallbacks", { rank: 1 });
  assert.deepEqual(ids(one), [[8, "argument_mismatch"]]);
  assert.match(String(one.caveat), /rank 1 only/);
  const mixed = await loaded("mixed_rank_operations_only");
  assert.match(
    String(reasonsByTool(mixed.inventory).dram_fallbacks),
    /not on `operation_arguments`/,
  );
  assert.match(await mixed.refusal("dram_fallbacks"), /cannot be attributed to rank 0/);
});

Deno.test("a capture cut short before its tensors cannot answer, and load_report says why", async () => {
  // Prevents a truncated capture advertised as answering, then failing.
  const r = await loaded("w1_truncated_operations_only");
  assert.match(
    String(reasonsByTool(r.inventory).dram_fallbacks),
    /no `operation_arguments`, `input_tensors`, `output_tensors`, `tensors` tables/,
  );
  assert.match(await r.refusal("dram_fallbacks"), /cannot answer for this capture/);
});
