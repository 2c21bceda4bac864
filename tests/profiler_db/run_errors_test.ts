import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { derived, loaded } from "./_fixtures.ts";
import * as M from "./_allocation_messages.ts";

type Row = Record<string, unknown>;

/** A SQL string literal. */
const q = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** Marks operation 5's Conv2d launch aborted, as a newer capture records a launch that threw. */
const ABORT_CONV2D = `UPDATE captured_graph SET captured_graph = replace(captured_graph, ` +
  `'{"name":"Conv2d"}', '{"name":"Conv2d","aborted":"true","abort_reason":"Out of Memory"}') ` +
  "WHERE operation_id = 5;";

/** The fixture's unattached incomplete operation, then four more rows. */
const ERRORS = ABORT_CONV2D +
  `INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', ${q(M.framed(M.B))}, '', '');` +
  "INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', 'second', '', '');" +
  "INSERT INTO errors VALUES (6, '', 'TypeError', 'no name', '', '');" +
  "INSERT INTO errors VALUES (10, 'ttnn.matmul', 'RuntimeError', 'elsewhere', '', '');";

Deno.test("an error matching an operation's id and name is attached, with its figures and failed launch", async () => {
  // Prevents an allocation failure shown without its operation, figures, diagnosis or launch.
  await using dir = await derived("v2_1_tensor_size", ERRORS);
  const r = await loaded(dir.path);
  const a = await r.call("errors");
  const errors = a.errors as Row[];
  // Attached errors come first.
  const oom = errors[0];
  assert.equal(oom.operation_id, 5);
  assert.equal(oom.attached, true);
  assert.equal((oom.allocation_failure as Row).kind, "out_of_memory");
  assert.equal((oom.allocation_failure as Row).bytes_per_bank, 819200);
  assert.equal((oom.diagnosis as Row).reason, "not_enough_free_space");
  assert.deepEqual(oom.failed_device_operations, ["Conv2d"]);
  assert.equal(oom.failed_device_operation_count, 1);
  assert.equal(a.multi_host, false);
  assert.equal(a.rank, null);
  assert.match(String(a.note), /bytes per bank except requested_bytes/);
});

Deno.test("errors the report cannot place are unattached, and the caveat warns off their ids", async () => {
  // Prevents a base-id, duplicate-key, nameless or misnamed error being pinned on an operation.
  await using dir = await derived("v2_1_tensor_size", ERRORS);
  const r = await loaded(dir.path);
  const a = await r.call("errors");
  const errors = a.errors as Row[];
  // Attached first; an unattached error keeps the id its row records, with attached false.
  assert.deepEqual(errors.map((e) => [e.operation_id, e.attached]), [
    [5, true],
    [0, false],
    [5, false],
    [6, false],
    [10, false],
  ]);
  assert.ok(errors.every((e) => !("recorded_operation_id" in e)), "the seed's one id field");
  assert.equal(errors[2].error_message, "second");
  assert.deepEqual(
    [a.error_count, a.attached_count, a.unattached_count, a.incomplete_operation_count],
    [5, 1, 4, 1],
  );
  assert.match(
    String(a.caveat),
    /4 errors are not attached.*not one to open with app_link_template/,
  );
  assert.equal(errors[1].failed_device_operations, null);
  assert.match(String(errors[1].failed_device_operations_unavailable), /not attached/);
  assert.equal(errors[1].error_type, "incomplete_operation");
});

Deno.test("a report that predates the errors table says so rather than reporting no errors", async () => {
  // Prevents an older capture read as a run with no errors.
  const r = await loaded("w1_python_writer");
  assert.ok((r.inventory.answerable as string[]).includes("errors"));
  const a = await r.call("errors");
  assert.equal(a.errors, null);
  assert.equal(a.error_count, null);
  assert.equal(a.errors_table, false);
  assert.match(String(a.caveat), /predates the errors table.*not evidence of none/);
});

Deno.test("an errors table with no rows is a real zero with no caveat", async () => {
  // Prevents an empty table being hedged like a missing one.
  await using dir = await derived("v2_1_tensor_size", "DELETE FROM errors;");
  const a = await (await loaded(dir.path)).call("errors");
  assert.deepEqual(a.errors, []);
  assert.equal(a.error_count, 0);
  assert.equal(a.caveat, undefined);
});

Deno.test("a limit past the cap returns the cap, with every error counted", async () => {
  // Prevents an unbounded answer, or a count that stops at the page.
  const rows = Array.from({ length: 150 }, (_, i) => `(${i + 100}, 'x', 'E', 'm', '', '')`);
  await using dir = await derived("v2_1_tensor_size", `INSERT INTO errors VALUES ${rows};`);
  const r = await loaded(dir.path);
  const a = await r.call("errors", { limit: 1000 });
  assert.equal(a.returned, 25);
  assert.equal((a.errors as Row[]).length, 25);
  assert.equal(a.error_count, 151);
  assert.equal((await r.call("errors")).returned, 10);
});

Deno.test("a long message is cut but its figures are still read past the cut", async () => {
  // Prevents a message filling the answer, or a long header hiding its allocation figures.
  const long = M.framed(`${"context line\n".repeat(100)}${M.E}`);
  await using dir = await derived(
    "v2_1_tensor_size",
    `INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', ${q(long)}, '', '');`,
  );
  const e = ((await (await loaded(dir.path)).call("errors")).errors as Row[])[0];
  assert.equal(String(e.error_message).length, 500);
  assert.equal(e.error_message_truncated, true);
  assert.equal(e.error_message_full_length, long.length);
  assert.equal((e.diagnosis as Row).reason, "fragmented");
});

Deno.test("an unreadable graph withholds the failed launches while the error still answers", async () => {
  // Prevents a damaged graph reported as no failed launch, or failing the whole call.
  await using dir = await derived(
    "v2_1_tensor_size",
    ERRORS + "UPDATE captured_graph SET captured_graph = '[{' WHERE operation_id = 5;",
  );
  const a = await (await loaded(dir.path)).call("errors");
  const oom = (a.errors as Row[])[0];
  assert.equal(oom.failed_device_operations, null);
  assert.match(String(oom.failed_device_operations_unavailable), /withheld: .*does not parse/);
  assert.equal((oom.allocation_failure as Row).kind, "out_of_memory");
  assert.match(String(a.caveat), /failed_device_operations is withheld/);
});

Deno.test("an operation with no captured graph has its failed launches absent, not withheld", async () => {
  // Prevents a missing graph read as a damaged one, or as a launch that succeeded.
  await using dir = await derived(
    "v2_1_tensor_size",
    ERRORS + "DELETE FROM captured_graph WHERE operation_id = 5;",
  );
  const a = await (await loaded(dir.path)).call("errors");
  const oom = (a.errors as Row[])[0];
  assert.equal(oom.failed_device_operations, null);
  assert.match(String(oom.failed_device_operations_unavailable), /no captured graph for this/);
  assert.doesNotMatch(String(a.caveat), /withheld/);
});

Deno.test("a multi-host report's errors are read at one rank", async () => {
  // Prevents rank 1's error appearing at rank 0, or attached to rank 0's operation.
  await using dir = await derived(
    "ranked_two_hosts",
    `INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', ${q(M.G)}, '', '', 1);`,
  );
  const r = await loaded(dir.path);
  const zero = await r.call("errors");
  assert.equal(zero.rank, 0);
  assert.equal(zero.error_count, 1);
  assert.match(String(zero.caveat), /read at rank 0 only/);
  const one = await r.call("errors", { rank: 1 });
  const e = (one.errors as Row[])[0];
  assert.equal(e.attached, true);
  assert.equal((e.diagnosis as Row).overrun_bytes, 100864);
  assert.match(await r.refusal("errors", { rank: 9 }), /has no rank 9/);
});

Deno.test("a multi-rank report whose errors carry no rank is refused, and load_report says so", async () => {
  // Prevents every rank's errors attributed to the rank asked for.
  const r = await loaded("mixed_rank_operations_only");
  assert.match(
    String(reasonsByTool(r.inventory).errors),
    /not on `errors`, so no rank of 0, 1/,
  );
  assert.match(await r.refusal("errors", { rank: 1 }), /not on `errors`, so its rows span/);
});

Deno.test("a captured graph with no rank on a multi-rank report withholds only the failed launches", async () => {
  // Prevents another rank's launches named as this rank's failure.
  await using dir = await derived(
    "ranked_two_hosts",
    "ALTER TABLE captured_graph DROP COLUMN rank;" +
      `INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', ${q(M.F)}, '', '', 0);`,
  );
  const a = await (await loaded(dir.path)).call("errors");
  const e = (a.errors as Row[])[0];
  assert.equal(e.attached, true);
  assert.equal(e.failed_device_operations, null);
  assert.match(String(e.failed_device_operations_unavailable), /withheld: .*`captured_graph`/);
  assert.equal((e.diagnosis as Row).overlap_bytes, 21568);
});

Deno.test("an errors table without operation ids cannot answer, and load_report says why", async () => {
  // Prevents errors listed with no operation to attach them to.
  await using dir = await derived(
    "v2_1_tensor_size",
    "DROP TABLE errors; CREATE TABLE errors (error_type text, error_message text);",
  );
  const r = await loaded(dir.path);
  assert.match(
    String(reasonsByTool(r.inventory).errors),
    /`errors` in db.sqlite has no `operation_id` column/,
  );
  assert.match(await r.refusal("errors"), /no `operation_id` column/);
});

Deno.test("a W2a errors table names the operation in error_operation", async () => {
  // Prevents the oldest errors schema leaving every error unattached.
  await using dir = await derived(
    "v2_1_tensor_size",
    "DROP TABLE errors; CREATE TABLE errors (operation_id int, error_type text, " +
      "error_message text, error_operation text);" +
      `INSERT INTO errors VALUES (8, 'RuntimeError', ${q(M.C)}, 'ttnn.linear');`,
  );
  const e = ((await (await loaded(dir.path)).call("errors")).errors as Row[])[0];
  assert.equal(e.operation_name, "ttnn.linear");
  assert.equal(e.attached, true);
  assert.equal((e.allocation_failure as Row).kind, "out_of_memory_after_dependencies");
});

Deno.test("at most 20 failed launches are named, and all of them counted", async () => {
  // Prevents a mesh of failed launches filling the answer, or a count that stops at the cap.
  const nodes = [{ node_type: "function_start", params: { name: "ttnn.conv2d" } }];
  for (let i = 0; i < 25; i++) {
    nodes.push({ node_type: "function_start", params: { name: `Conv2d${i}` } });
  }
  await using dir = await derived(
    "v2_1_tensor_size",
    ERRORS + `UPDATE captured_graph SET captured_graph = ${q(JSON.stringify(nodes))} ` +
      "WHERE operation_id = 5;",
  );
  const oom = ((await (await loaded(dir.path)).call("errors")).errors as Row[])[0];
  assert.equal((oom.failed_device_operations as string[]).length, 20);
  assert.equal((oom.failed_device_operations as string[])[0], "Conv2d0");
  assert.equal(oom.failed_device_operation_count, 25);
});

Deno.test("an errors answer at the cap stays within 256 KB with every field at its cap", async () => {
  // Prevents an answer a client refuses as too large: 120 attached circular-buffer failures,
  // each with a 2,000-character core range and 25 failed launches of 300-character names.
  const range = "[(x=0,y=0) - (x=7,y=7)], ".repeat(80);
  const message = M.framed(
    `Statically allocated circular buffers on core range {${range}} grow to 1600000 B which ` +
      "is beyond max L1 size of 1499136 B",
  );
  const graph = JSON.stringify([
    { node_type: "function_start", params: { name: "ttnn.op" } },
    ...Array.from({ length: 25 }, (_, i) => ({
      node_type: "function_start",
      params: { name: `VeryLongNamespaceFreeDeviceOperationNameNumber${i}`.padEnd(300, "X") },
    })),
  ]);
  const ids = Array.from({ length: 120 }, (_, i) => 2000 + i);
  const sql = `INSERT INTO operations VALUES ${ids.map((id) => `(${id}, 'ttnn.op', 0.001)`)};` +
    `INSERT INTO errors VALUES ${
      ids.map((id) => `(${id}, 'ttnn.op', 'RuntimeError', ${q(message)}, '', '')`)
    };` +
    `INSERT INTO captured_graph VALUES ${ids.map((id) => `(${id}, ${q(graph)})`)};`;
  await using dir = await derived("v2_1_tensor_size", sql);
  const a = await (await loaded(dir.path)).call("errors", { limit: 1000 });
  assert.equal(a.returned, 25);
  const first = (a.errors as Row[])[0];
  assert.equal((first.failed_device_operations as string[])[0].length, 200);
  assert.equal(String((first.allocation_failure as Row).core_range).length, 500);
  const bytes = new TextEncoder().encode(JSON.stringify(a)).length;
  assert.ok(bytes <= 256 * 1024, `${bytes} bytes`);
});
