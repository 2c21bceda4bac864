/**
 * The out-of-memory path in one pass, through the official MCP SDK client against the real
 * server on the failed-run fixtures: load_report counts the errors, errors lists the attached
 * one first and offers no operation id for the rest, operation_detail puts the failed
 * allocation beside the snapshot after it, l1_peak and memory_profile say where the run
 * failed — and every answer names the next tool, with arguments that work as given.
 */
import assert from "node:assert/strict";
import { callOk, connect } from "../_support/server.ts";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;

/** The answer's next steps, failing when it names none. */
function nextOf(answer: Row): { tool: string; why: string; arguments: Row }[] {
  const next = answer.next as { tool: string; why: string; arguments: Row }[] | undefined;
  assert.ok(next && next.length > 0, `names a next tool: ${JSON.stringify(answer).slice(0, 200)}`);
  return next;
}

Deno.test("an agent follows a failed run from load_report to the failed allocation, told the next tool each step", async () => {
  // Prevents the out-of-memory path breaking apart: an uncounted errors table, an unattached
  // error offered as an operation to open, two unlabelled free-block figures that contradict
  // each other, and a peak reported with no word that the run failed.
  const { client, close } = await connect();
  try {
    const load = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_failed_run`,
    });
    assert.equal(load.error_count, 6);
    assert.equal(load.errors_attached_to_an_operation, 1);
    const [toErrors] = nextOf(load);
    assert.equal(toErrors.tool, "errors");

    const errors = await callOk(client, "errors", toErrors.arguments);
    const listed = errors.errors as Row[];
    assert.deepEqual([listed[0].operation_id, listed[0].attached], [13, true]);
    for (const e of listed.slice(1)) {
      assert.equal(e.attached, false);
      assert.equal(typeof e.operation_id, "number", "an unattached error keeps its recorded id");
    }
    const [toDetail] = nextOf(errors);
    assert.equal(toDetail.tool, "operation_detail");
    assert.equal(toDetail.arguments.operation_id, 13);

    const detail = await callOk(client, "operation_detail", toDetail.arguments);
    const failed = detail.failed_allocation as Record<string, Row>;
    assert.equal(failed.at_failed_allocation.largest_free_block_bytes, 300_000);
    assert.equal(failed.at_failed_allocation.bytes_per_bank_needed, 819_200);
    assert.match(String(failed.at_failed_allocation.source), /error message/);
    assert.equal(
      failed.after_operation.largest_free_block_bytes,
      (detail.l1_pressure as Row).largest_free_block,
    );
    assert.match(String(failed.after_operation.source), /snapshot after the operation/);
    assert.match(String(failed.why_they_differ), /two instants/);
    const toPeak = nextOf(detail).find((n) => n.tool === "l1_peak")!;
    assert.ok(toPeak);

    const peak = await callOk(client, "l1_peak", toPeak.arguments);
    const runFailure = peak.run_failure as Row;
    assert.equal(runFailure.operation_id, 13);
    assert.deepEqual(runFailure.allocation_failure, {
      kind: "out_of_memory",
      buffer_type: "L1",
      bytes_per_bank: 819_200,
      largest_free_block_bytes: 300_000,
    });
    assert.equal(runFailure.operations_after, 3);
    assert.match(String(runFailure.note), /failed at operation 13 .*stop where it failed/);
    assert.equal(nextOf(peak)[0].tool, "operation_detail");

    const profile = await callOk(client, "memory_profile", toPeak.arguments);
    assert.equal((profile.run_failure as Row).operation_id, 13);
    assert.deepEqual(nextOf(profile).map((n) => n.tool), ["l1_peak", "operation_detail"]);
  } finally {
    await close();
  }
});

Deno.test("a run whose only error is unattached points to finding its operation, and claims no failure", async () => {
  // Prevents an error attached to no operation read as a failure at an operation id, or a run
  // with no attached failure told its figures stop at one.
  const { client, close } = await connect();
  try {
    const load = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_tensor_size`,
    });
    assert.equal(load.error_count, 1);
    assert.equal(load.errors_attached_to_an_operation, 0);
    const errors = await callOk(client, "errors", nextOf(load)[0].arguments);
    const [find] = nextOf(errors);
    assert.equal(find.tool, "find_operations");
    await callOk(client, "find_operations", find.arguments);
    const peak = await callOk(client, "l1_peak", { handle: load.handle });
    assert.equal(peak.run_failure, undefined);
    assert.equal(peak.next, undefined);
    const quiet = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}w1_python_writer`,
    });
    assert.equal(quiet.error_count, undefined, "no errors table: no count, not 0");
    assert.equal(quiet.next, undefined);
  } finally {
    await close();
  }
});
