/**
 * operation_detail's perf_rows on paired captures: the rows an operation launched, their
 * device time and share of the report's, the operation's own figures over every row it
 * launched, and exactly when the list is withheld.
 */
import assert from "node:assert/strict";
import { graphOf, pair, scope } from "./_pairs.ts";
import { editCsv } from "../_support/csv_edit.ts";

type Row = Record<string, unknown>;
const KERNEL = "DEVICE KERNEL DURATION [ns]";

Deno.test("an operation lists the rows it launched with their share of the report's device time", async () => {
  // Prevents device time read as host seconds, or shares of the wrong total.
  await using p = await pair();
  const a = await p.call("operation_detail", { operation_id: 22 });
  assert.equal(a.duration_unit, "host_seconds");
  assert.equal(a.device_time_unit, "us");
  assert.equal(a.perf_row_count, 1);
  const [row] = a.perf_rows as Row[];
  assert.equal(row.id, "24");
  assert.match(String(row.op_code), /^Matmul /);
  const top = await p.call("top_ops", { limit: 100 });
  const same = (top.ops as Row[]).find((r) => r.id === "24")!;
  assert.equal(row.device_time, same.device_time);
  // Signposts carry no device time, so the report total is top_ops's device_time_total here.
  assert.equal(a.report_device_time_total, top.device_time_total);
  const share = Number(((row.device_time as number) / (top.device_time_total as number) * 100)
    .toPrecision(3));
  assert.equal(row.device_time_share_percent, share);
  assert.equal(a.device_time, row.device_time);
  assert.equal(a.device_time_share_percent, share);
  assert.equal(a.slowest_perf_id, "24");
  assert.deepEqual(a.operation_link, {
    status: "linked",
    rank: 0,
    matched_on: "function_start",
    matched_rows: 24,
  });
});

/** A pair where operation 1 launched `n` Embeddings rows and nothing else ran on the device. */
function manyRows(n: number, edit: (row: Record<string, string>, i: number) => void) {
  const launches = Array.from({ length: n }, () => [
    scope("function_start", "Embeddings"),
    scope("function_end", "Embeddings"),
  ]).flat();
  let i = 0;
  return pair({
    sql: "DELETE FROM captured_graph WHERE operation_id > 1;" +
      graphOf(1, [
        scope("function_start", "ttnn.embedding"),
        ...launches,
        scope("function_end", "ttnn.embedding"),
      ]),
    csv: editCsv((row) => {
      if (row["OP CODE"] !== "Embeddings") return false;
      edit(row, i++);
    }, { repeat: n }),
  });
}

Deno.test("the operation's figures cover every row it launched, even past the cap", async () => {
  // Prevents the slowest row or the total silently shrinking to the rows listed.
  await using p = await manyRows(30, (row, i) => {
    row[KERNEL] = String(i === 29 ? 999_000 : 1_000 + i);
  });
  const a = await p.call("operation_detail", { operation_id: 1, include: ["cache"] });
  assert.equal((a.perf_rows as Row[]).length, 25);
  assert.equal(a.perf_row_count, 30);
  assert.equal(a.slowest_perf_id, "31");
  assert.ok(!(a.perf_rows as Row[]).some((r) => r.id === "31"));
  assert.equal(a.device_time, a.report_device_time_total);
  assert.equal(a.device_time_share_percent, 100);
  assert.ok("program_hash" in (a.perf_rows as Row[])[0]);
  const plain = await p.call("operation_detail", { operation_id: 1 });
  assert.equal((plain.perf_rows as Row[]).length, 30);
  // An operation on a linked pair that launched nothing has an empty list.
  const none = await p.call("operation_detail", { operation_id: 2 });
  assert.deepEqual(none.perf_rows, []);
  assert.equal(none.perf_row_count, 0);
  assert.equal("device_time" in none, false);
});

Deno.test("a blank device time has a null share and stays out of the totals", async () => {
  // Prevents a blank cell read as zero time, or every share computed against a skewed total.
  await using p = await manyRows(3, (row, i) => {
    row[KERNEL] = i === 1 ? "" : "2000";
  });
  const a = await p.call("operation_detail", { operation_id: 1 });
  const rows = a.perf_rows as Row[];
  assert.equal(rows[1].device_time, null);
  assert.equal(rows[1].device_time_share_percent, null);
  assert.equal(rows[0].device_time_share_percent, 50);
  assert.equal(a.device_time, a.report_device_time_total);
  await using blank = await manyRows(2, (row) => {
    row[KERNEL] = "";
  });
  const b = await blank.call("operation_detail", { operation_id: 1 });
  assert.equal(b.perf_row_count, 2);
  for (const k of ["device_time", "device_time_share_percent", "slowest_perf_id"]) {
    assert.equal(k in b, false, k);
  }
});

Deno.test("without a link there are no perf_rows, and operation_link says why", async () => {
  // Prevents rows listed for an operation the performance report was never matched to.
  await using profilerOnly = await pair({ sides: ["profiler"] });
  const a = await profilerOnly.call("operation_detail", { operation_id: 3 });
  assert.equal("perf_rows" in a, false);
  assert.equal((a.operation_link as Row).status, "unavailable");
  assert.match(String((a.operation_link as Row).reason), /without a performance_path/);
  assert.equal(a.name, "ttnn.linear"); // the rest of the answer is still there
  await using other = await pair({
    sql:
      "UPDATE captured_graph SET captured_graph = replace(captured_graph, 'Untilize', 'Tilize');",
  });
  const b = await other.call("operation_detail", { operation_id: 3 });
  assert.equal("perf_rows" in b, false);
  assert.equal((b.operation_link as Row).status, "unlinked");
  for (const k of ["note", "unlinked_by_reason"]) {
    assert.equal(k in (b.operation_link as Row), false);
  }
});

Deno.test("an operation read at another rank than the linked one gets no perf_rows", async () => {
  // Prevents rank 1's operation 3 being shown rank 0's rows because ids restart per rank.
  const ranked = [
    "buffers",
    "tensors",
    "input_tensors",
    "output_tensors",
    "captured_graph",
    "devices",
  ]
    .map((t) => `ALTER TABLE ${t} ADD COLUMN rank int NOT NULL DEFAULT 0;`).join(" ");
  await using p = await pair({
    sql: "CREATE TABLE ranked AS SELECT *, 0 AS rank FROM operations; " +
      "DROP TABLE operations; ALTER TABLE ranked RENAME TO operations; " +
      "INSERT INTO operations SELECT operation_id, name, duration, 1 FROM operations; " + ranked,
  });
  const atZero = await p.call("operation_detail", { operation_id: 3 });
  assert.equal((atZero.perf_rows as Row[])[0].id, "5");
  const atOne = await p.call("operation_detail", { operation_id: 3, rank: 1 });
  assert.equal("perf_rows" in atOne, false);
  assert.deepEqual(atOne.operation_link, {
    status: "unavailable",
    reason: "performance rows are linked to rank 0 only; this operation was read at rank 1",
  });
});

Deno.test("shares over rows on several sub-devices carry the sub-device caveat", async () => {
  // Prevents a share of summed device time read as a share of elapsed time.
  await using p = await pair({
    csv: editCsv((row, i) => {
      row["SUB DEVICE ID"] = row["OP TYPE"] === "signpost" ? "" : String(i % 2);
    }),
  });
  const a = await p.call("operation_detail", { operation_id: 3 });
  assert.match(String(a.caveat), /span 2 sub-devices/);
  await using plain = await pair();
  const b = await plain.call("operation_detail", { operation_id: 3 });
  assert.doesNotMatch(String(b.caveat), /sub-devices/);
});
