import assert from "node:assert/strict";
import { reasonsByTool } from "../_support/reasons.ts";
import { derived, loaded } from "./_fixtures.ts";

type Row = Record<string, unknown>;
const L1 = (a: Row) => (a.memory_by_buffer_type as Record<string, Row>).L1;

Deno.test("a multi-host report is read at rank 0 by default, and every answer says so", async () => {
  // Prevents figures of one rank being read as the job's.
  const r = await loaded("ranked_two_hosts");
  const calls: [string, Row][] = [
    ["find_operations", {}],
    ["operation_detail", { operation_id: 5 }],
    ["memory_profile", {}],
    ["tensor_flow", { tensor_id: 5 }],
    ["operation_provenance", { operation_id: 5 }],
  ];
  for (const [tool, args] of calls) {
    const a = await r.call(tool, args);
    assert.equal(a.multi_host, true, tool);
    assert.equal(a.rank, 0, tool);
    assert.match(String(a.caveat), /multi-host report read at rank 0 only \(it holds ranks 0, 1\)/);
    assert.match(String(a.caveat), /describe that rank rather than the job/);
  }
});

Deno.test("a requested rank reaches every table, the figures included", async () => {
  // Prevents the rank narrowing the operations but not the buffers or tensors read with them.
  const r = await loaded("ranked_two_hosts");
  const zero = await r.call("memory_profile", { buffer_type: "L1" });
  const one = await r.call("memory_profile", { buffer_type: "L1", rank: 1 });
  assert.equal(L1(zero).peak, 36864);
  assert.equal(L1(one).peak, 69632); // rank 1 ran twice the batch: 16,384 per shard
  assert.equal((zero.device as Row).devices, 1);
  assert.equal((one.device as Row).devices, 1);
  const d1 = await r.call("operation_detail", { operation_id: 5, rank: 1 });
  assert.equal(d1.rank, 1);
  assert.equal((d1.outputs as Row[])[0].size, 16384);
  assert.equal((d1.outputs as Row[])[0].shape, "Shape([1, 1, 6272, 64])");
  const t1 = await r.call("tensor_flow", { tensor_id: 5, rank: 1 });
  assert.equal((t1.tensor as Row).shape, "Shape([1, 1, 6272, 64])");
  assert.deepEqual(t1.producers, [{ operation_id: 5, name: "ttnn.conv2d" }]);
});

Deno.test("a rank the report has no rows for is refused, listing the ranks it holds", async () => {
  // Prevents 'no operations at rank 9' being read as a fact about the run.
  const r = await loaded("ranked_two_hosts");
  for (const tool of ["find_operations", "memory_profile"]) {
    assert.equal(await r.refusal(tool, { rank: 9 }), "this report has no rank 9; it holds 0, 1");
  }
  await using dir = await derived(
    "ranked_two_hosts",
    "UPDATE operations SET rank = rank + 10; UPDATE operations SET rank = rank - 9;",
  );
  const shifted = await loaded(dir.path);
  assert.match(
    await shifted.refusal("find_operations"),
    /^this report has no rank 0, the rank read by default; it holds 1, 2\. Pass one as rank$/,
  );
});

Deno.test("a rank is refused on a report with no rank column unless it is 0", async () => {
  // Prevents rank 7 of a single-host report being answered with rank 0's figures.
  const r = await loaded("w1_python_writer");
  assert.equal(
    await r.refusal("find_operations", { rank: 7 }),
    "this report has no rank column, so it holds rank 0 only; rank 7 cannot be read",
  );
  const a = await r.call("find_operations", { rank: 0 });
  assert.equal(a.rank, null);
  assert.equal(a.multi_host, false);
  assert.match(await r.refusal("find_operations", { rank: "x" }), /bad arguments.*rank/);
  assert.match(await r.refusal("find_operations", { rank: -1 }), /bad arguments.*rank/);
});

Deno.test("a single-host report carries no rank caveat", async () => {
  // Prevents noise that would train an agent to skip the caveat field.
  const r = await loaded("w1_python_writer");
  const a = await r.call("find_operations", {});
  assert.equal(a.caveat, undefined);
  assert.equal((await r.call("tensor_flow", { tensor_id: 8 })).caveat, undefined);
});

Deno.test("figures whose table carries no rank are refused on a multi-rank report, and load_report says so", async () => {
  // Prevents every rank's rows being summed and attributed to the rank asked for.
  const r = await loaded("mixed_rank_operations_only");
  const reasons = reasonsByTool(r.inventory);
  assert.match(
    String(reasons.memory_profile),
    /carries `rank` on `operations` but not on `buffers`, so no rank of 0, 1/,
  );
  assert.ok((r.inventory.answerable as string[]).includes("find_operations"));
  for (const rank of [0, 1]) {
    assert.equal(
      await r.refusal("memory_profile", { rank }),
      "this report carries `rank` on `operations` but not on `buffers`, so its rows span " +
        `ranks 0, 1 and cannot be attributed to rank ${rank}`,
    );
    assert.match(
      await r.refusal("operation_detail", { operation_id: 5, rank }),
      /not on `buffers`, `tensors`, `input_tensors`, `output_tensors`/,
    );
    assert.match(await r.refusal("tensor_flow", { tensor_id: 5, rank }), /not on `tensors`/);
    assert.match(
      await r.refusal("operation_provenance", { operation_id: 5, rank }),
      /not on `operation_arguments`, `stack_traces`/,
    );
  }
  assert.equal((await r.call("find_operations", { rank: 1 })).match_count, 12);
  assert.match(await r.refusal("find_operations", { called_from: "x" }), /not on `stack_traces`/);
});

Deno.test("a single-rank report with the same schema mix still answers", async () => {
  // Prevents refusing a report whose unranked rows can only belong to its one rank.
  await using dir = await derived(
    "mixed_rank_operations_only",
    "DELETE FROM operations WHERE rank = 1;",
  );
  const r = await loaded(dir.path);
  const a = await r.call("memory_profile", { buffer_type: "L1" });
  assert.equal(a.rank, 0);
  assert.ok((r.inventory.answerable as string[]).includes("memory_profile"));
});

Deno.test("a table absent from the report is not a reason to refuse a ranked read", async () => {
  // Prevents a missing optional table (stack_traces) blocking provenance on a ranked report.
  await using dir = await derived("ranked_two_hosts", "DROP TABLE stack_traces;");
  const r = await loaded(dir.path);
  const a = await r.call("operation_provenance", { operation_id: 5, rank: 1 });
  assert.equal(a.call_site_status, "no_trace_recorded");
});

Deno.test("a devices table without rank withholds only the device block and l1_pressure", async () => {
  // Prevents both ranks' devices standing for one rank's, and the whole answer being refused.
  await using dir = await derived(
    "ranked_two_hosts",
    "ALTER TABLE devices DROP COLUMN rank; INSERT INTO devices SELECT * FROM devices;",
  );
  const r = await loaded(dir.path);
  const a = await r.call("memory_profile", { buffer_type: "L1" });
  assert.equal(a.device, null);
  assert.equal(a.l1_pressure, null);
  assert.equal(L1(a).peak, 36864, "the footprints still answer");
  assert.match(String(a.caveat), /device is withheld: .*not on `devices`/);
  assert.match(String(a.caveat), /l1_pressure is withheld: .*not on `devices`/);
  const d = await r.call("operation_detail", { operation_id: 9, rank: 1 });
  assert.equal(d.l1_pressure, null);
  assert.ok(d.allocations);
});
