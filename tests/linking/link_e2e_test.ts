/**
 * The link end to end through the MCP SDK client against the real server: the demo pair links,
 * and the id-space trap — a performance row's id passed as an operation_id answers about a
 * different operation — is what the tools' descriptions and the right id avoid.
 */
import assert from "node:assert/strict";
import { callOk, connect } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { notesRead } from "../_support/notes.ts";

type Row = Record<string, unknown>;

Deno.test("top_ops rows carry the operation_id to pass on, and a row id passed instead answers about another operation", async () => {
  // Prevents an agent's row id silently describing the wrong operation, unnoticed.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
      profiler_path: `${DEMO}profiler`,
    });
    const top = await callOk(client, "top_ops", { handle, limit: 1 });
    const link = top.operation_link as Row;
    assert.equal(link.status, "linked");
    assert.equal(link.matched_rows, 24);
    const row = (top.ops as Row[])[0];
    assert.equal(row.id, "24"); // the second layer's up-projection matmul, CSV line 24
    assert.equal(row.operation_id, 22);
    const right = await callOk(client, "operation_detail", { handle, operation_id: 22 });
    assert.equal(right.name, "ttnn.linear");
    // The trap: the CSV line as an operation id is a valid, different operation — not refused.
    const wrong = await callOk(client, "operation_detail", { handle, operation_id: 24 });
    assert.equal(wrong.name, "ttnn.untilize");
    const cache = await callOk(client, "program_cache", { handle });
    const rebuilt = (cache.op_codes as Row[])[0];
    assert.equal(rebuilt.first_repeat_miss_perf_id, "19");
    assert.equal(rebuilt.first_repeat_miss_operation_id, 17);
  } finally {
    await close();
  }
});

Deno.test("the instructions and answers say which id each tool's fields belong to", async () => {
  // Prevents the two overlapping id spaces being left for the agent to guess.
  const { client, close } = await connect();
  try {
    assert.match(
      client.getInstructions() ?? "",
      /a performance row's id \(perf_id\) is its line in the performance CSV; a profiler operation_id is an operation in the database\. Never pass one for the other/,
    );
    const { handle } = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
      profiler_path: `${DEMO}profiler`,
    });
    const top = await callOk(client, "top_ops", { handle });
    assert.match(
      (await notesRead(client, top))["top_ops.rows"],
      /not a profiler id: pass its operation_id/,
    );
    const cache = await callOk(client, "program_cache", { handle });
    assert.match(
      (await notesRead(client, cache))["program_cache.calls"],
      /first_repeat_miss_operation_id, .* is the id to pass/,
    );
  } finally {
    await close();
  }
});
