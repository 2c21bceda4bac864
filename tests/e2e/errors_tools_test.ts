import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;

Deno.test("from a failed run to its allocation failure and the retry that spilled to DRAM, over stdio", async () => {
  // Prevents the out-of-memory path an agent follows — errors, then dram_fallbacks — breaking
  // on the wire: schemas, structured answers and load_report's listing.
  const { client, close } = await connect();
  try {
    const { tools } = await client.listTools();
    for (const name of ["errors", "dram_fallbacks"]) {
      const t = tools.find((x) => x.name === name);
      const schema = t?.inputSchema as { properties: Row; required: string[] };
      assert.ok(schema, `${name} is listed`);
      assert.ok("rank" in schema.properties && "limit" in schema.properties, name);
      assert.deepEqual(schema.required, ["handle"]);
    }
    assert.match(tools.find((x) => x.name === "errors")!.description!, /out-of-memory/);
    const a = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_failed_run`,
    });
    assert.ok((a.answerable as string[]).includes("errors"));
    assert.ok((a.answerable as string[]).includes("dram_fallbacks"));
    const e = await callOk(client, "errors", { handle: a.handle });
    const oom = (e.errors as Row[]).find((x) => x.attached)!;
    assert.equal(oom.operation_id, 13);
    assert.equal((oom.diagnosis as Row).reason, "not_enough_free_space");
    assert.match(String(e.caveat), /app_link_template/);
    const d = await callOk(client, "dram_fallbacks", { handle: a.handle });
    assert.deepEqual(
      (d.fallbacks as Row[]).map((f) => [f.operation_id, f.signal, f.failed_operation_id]),
      [[14, "retry_after_failure", 13], [15, "argument_mismatch", undefined]],
    );
    assert.match(await callRefused(client, "errors", { handle: a.handle, rank: 3 }), /rank 3/);
  } finally {
    await close();
  }
});

Deno.test("a report with no errors table or tensors is listed truthfully over stdio", async () => {
  // Prevents load_report advertising dram_fallbacks on a truncated capture, or errors there
  // reading as no errors.
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}w1_truncated_operations_only`,
    });
    assert.ok((a.answerable as string[]).includes("errors"));
    assert.ok((a.unanswerable as string[]).includes("dram_fallbacks"));
    const e = await callOk(client, "errors", { handle: a.handle });
    assert.equal(e.errors, null);
    assert.match(String(e.caveat), /predates the errors table/);
    assert.match(
      await callRefused(client, "dram_fallbacks", { handle: a.handle }),
      /no `operation_arguments`/,
    );
  } finally {
    await close();
  }
});

Deno.test("operation_detail carries the operation's attached error, as errors reports it", async () => {
  // Prevents an agent opening the failed operation and seeing no sign of its failure.
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_failed_run`,
    });
    const failed = await callOk(client, "operation_detail", { handle: a.handle, operation_id: 13 });
    const error = failed.error as Row;
    assert.equal(error.operation_id, 13);
    assert.equal((error.diagnosis as Row).reason, "not_enough_free_space");
    const fine = await callOk(client, "operation_detail", { handle: a.handle, operation_id: 15 });
    assert.equal(fine.error, null);
    const old = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}w1_python_writer`,
    });
    const before = await callOk(client, "operation_detail", {
      handle: old.handle,
      operation_id: 1,
    });
    assert.equal(before.error, null);
    assert.match(String(before.caveat), /predates the errors table/);
  } finally {
    await close();
  }
});
