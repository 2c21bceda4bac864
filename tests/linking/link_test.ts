/**
 * The link on paired captures: the demo's profiler database and performance CSV come from one
 * operation sequence and link; each variant changes one thing and must give its exact status.
 * Demo rows: CSV line 2 is operation 1, lines 3 and 26 are signposts, lines 4–25 are
 * operations 2–23 and line 27 is operation 24.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { graphOf, pair, scope } from "./_pairs.ts";
import { editCsv } from "../_support/csv_edit.ts";
import { DEMO } from "../_support/dirs.ts";

type Row = Record<string, unknown>;
const fn = (name: string) => scope("function_start", name);
const end = (name: string, extra = {}) => scope("function_end", name, extra);

/** The demo's operation for each non-signpost CSV line. */
function demoOperationOf(line: number): number | null {
  if (line === 2) return 1;
  if (line >= 4 && line <= 25) return line - 2;
  if (line === 27) return 24;
  return null;
}

Deno.test("the paired demo links every row to the operation that launched it", async () => {
  // Prevents ids assigned by position in the wrong id space, or signposts taking an operation.
  await using p = await pair();
  const { link, ids } = await p.link();
  assert.deepEqual(link.status, "linked");
  assert.equal(link.rank, 0);
  assert.equal(link.matched_on, "function_start");
  assert.equal(link.matched_rows, 24);
  assert.equal(link.unlinked_row_count, 2);
  assert.deepEqual(link.unlinked_by_reason, { signpost: 2, host_op: 0, past_profiler_capture: 0 });
  assert.equal(link.first_past_profiler_capture_id, null);
  assert.match(String(link.note), /operation_id is the profiler database's operation id/);
  assert.equal(ids.size, 24);
  for (const [id, op] of ids) assert.equal(op, demoOperationOf(Number(id)), `row ${id}`);
});

Deno.test("a different run's profiler report is unlinked and guesses no id", async () => {
  // Prevents a mismatched pair pairing rows with operations that never launched them.
  await using p = await pair({
    sql: "UPDATE captured_graph SET captured_graph = replace(captured_graph, " +
      "'NLPCreateHeadsDecodeDeviceOperation', 'NLPCreateHeadsDeviceOperation');",
  });
  const { link, ids } = await p.link();
  assert.equal(link.status, "unlinked");
  assert.match(String(link.reason), /two different runs.*find_operations/s);
  for (const k of ["rank", "matched_on", "matched_rows", "unlinked_by_reason"]) {
    assert.equal(k in link, false, k);
  }
  assert.ok([...ids.values()].every((v) => v === null));
});

Deno.test("a performance capture that stopped early is unlinked", async () => {
  // Prevents a prefix of the operations being linked to a shorter performance capture.
  await using p = await pair({ csv: editCsv((_row, i) => i < 12) });
  assert.equal((await p.link()).link.status, "unlinked");
});

Deno.test("a profiler capture that stopped early links, counting the rows past it", async () => {
  // Prevents trailing rows failing the link, or being hidden among null ids.
  await using p = await pair({
    sql: "DELETE FROM operations WHERE operation_id > 20; " +
      "DELETE FROM captured_graph WHERE operation_id > 20;",
  });
  const { link, ids } = await p.link();
  assert.equal(link.status, "linked");
  assert.equal(link.matched_rows, 20);
  assert.deepEqual(link.unlinked_by_reason, { signpost: 2, host_op: 0, past_profiler_capture: 4 });
  assert.equal(link.unlinked_row_count, 6);
  assert.equal(link.first_past_profiler_capture_id, "23");
  assert.equal(ids.get("22"), 20);
  assert.equal(ids.get("23"), null);
  assert.equal(ids.get("27"), null);
});

Deno.test("a launch that threw is left out of the order, in both capture shapes", async () => {
  // Prevents a failed launch, which has no performance row, making a report with it unlinkable.
  const device = "NLPCreateHeadsDecodeDeviceOperation";
  const before = [fn("ttnn.fn"), fn(device), end(device)];
  for (
    const [shape, failed] of [
      ["aborted", [
        fn("ReshapeDeviceOperation"),
        end("ReshapeDeviceOperation", { aborted: "true" }),
      ]],
      ["unclosed", [fn("ReshapeDeviceOperation")]],
    ] as const
  ) {
    await using p = await pair({ sql: graphOf(4, [...before, ...failed, end("ttnn.fn")]) });
    const { link, ids } = await p.link();
    assert.equal(link.status, "linked", shape);
    assert.equal(ids.get("6"), 4, shape); // the device op that did run keeps its row
    assert.equal(ids.get("7"), 5, shape);
  }
  // The same launch completed would need a row of its own, so the pair no longer lines up.
  await using done = await pair({
    sql: graphOf(4, [...before, fn("ReshapeDeviceOperation"), end("ReshapeDeviceOperation")]),
  });
  assert.equal((await done.link()).link.status, "unlinked");
});

Deno.test("an unreadable graph makes the link unavailable, naming the operation", async () => {
  // Prevents a skipped graph shifting the order so rows pair with the wrong operations.
  for (const value of ["'{not json'", "'{}'", "x'5b5d'"]) {
    await using p = await pair({
      sql: `UPDATE captured_graph SET captured_graph = ${value} WHERE operation_id = 2;`,
    });
    const { link, ids } = await p.link();
    assert.equal(link.status, "unavailable");
    assert.match(String(link.reason), /^the captured graph for operation 2 cannot be read \(/);
    assert.ok([...ids.values()].every((v) => v === null));
  }
});

Deno.test("a capture without a captured graph is unavailable", async () => {
  // Prevents a capture that recorded no device operations being reported as a mismatch.
  await using p = await pair({ sql: "DROP TABLE captured_graph;" });
  const { link } = await p.link();
  assert.equal(link.status, "unavailable");
  assert.match(String(link.reason), /records no captured graph/);
});

// Rank 1 of the same job: operations gain a rank column (ids restart per rank).
const SECOND_RANK = "CREATE TABLE ranked AS SELECT *, 0 AS rank FROM operations; " +
  "DROP TABLE operations; ALTER TABLE ranked RENAME TO operations; " +
  "INSERT INTO operations SELECT operation_id, name, duration, 1 FROM operations;";

Deno.test("a multi-host report without rank on the graph or devices is unavailable", async () => {
  // Prevents rank 1's graphs being read into rank 0's order.
  await using p = await pair({ sql: SECOND_RANK });
  const { link } = await p.link();
  assert.equal(link.status, "unavailable");
  assert.match(String(link.reason), /not on `captured_graph`, `devices`.*rank 0/);
});

Deno.test("a multi-host report with ranks throughout links at rank 0 only", async () => {
  // Prevents another rank's device operations entering the order the CSV is matched against.
  await using p = await pair({
    sql: SECOND_RANK +
      "ALTER TABLE captured_graph ADD COLUMN rank int NOT NULL DEFAULT 0; " +
      "ALTER TABLE devices ADD COLUMN rank int NOT NULL DEFAULT 0; " +
      "INSERT INTO captured_graph SELECT operation_id, " +
      "replace(captured_graph, 'LayerNorm', 'Softmax'), 1 FROM captured_graph;",
  });
  const { link } = await p.link();
  assert.equal(link.status, "linked");
  assert.equal(link.rank, 0);
  assert.equal(link.matched_rows, 24);
});

/** Records every device operation once per device, as some mesh captures do. */
function perDevice(db: DatabaseSync): void {
  const graphs = db.prepare("SELECT operation_id, captured_graph FROM captured_graph").all() as {
    operation_id: number;
    captured_graph: string;
  }[];
  for (const g of graphs) {
    const nodes = JSON.parse(g.captured_graph) as { node_type: string; params: Row }[];
    const device = nodes[2]; // capture_start, the ttnn function, then its device operation
    const i = nodes.findIndex((n) =>
      n.node_type === "function_end" && n.params.name === device.params.name
    );
    nodes.splice(i + 1, 0, device, nodes[i]);
    db.prepare("UPDATE captured_graph SET captured_graph = ? WHERE operation_id = ?")
      .run(JSON.stringify(nodes), g.operation_id);
  }
}

Deno.test("a capture recording each op once per device links on the collapse, counting distinct devices", async () => {
  // Prevents a mesh capture never linking, and a duplicated device row being counted as two.
  await using mesh = await pair({
    sql: "INSERT INTO devices SELECT 1, num_y_cores, num_x_cores, num_y_compute_cores, " +
      "num_x_compute_cores, worker_l1_size, l1_num_banks, l1_bank_size, address_at_first_l1_bank, " +
      "address_at_first_l1_cb_buffer, num_banks_per_storage_core, num_compute_cores, " +
      "num_storage_cores, total_l1_memory, total_l1_for_tensors, " +
      "total_l1_for_interleaved_buffers, total_l1_for_sharded_buffers, cb_limit FROM devices;",
    db: perDevice,
  });
  const { link } = await mesh.link();
  assert.equal(link.status, "linked");
  assert.equal(link.matched_on, "function_start_collapsed");
  assert.equal(link.matched_rows, 24);
  await using twice = await pair({
    sql: "INSERT INTO devices SELECT * FROM devices;",
    db: perDevice,
  });
  assert.equal((await twice.link()).link.status, "unlinked");
});

Deno.test("a performance-only handle still answers, unavailable and without the note", async () => {
  // Prevents top_ops failing without a profiler report, or explaining ids it cannot have.
  await using p = await pair({ sides: ["performance"] });
  const { link, ids } = await p.link();
  assert.equal(link.status, "unavailable");
  assert.match(String(link.reason), /without a profiler_path/);
  assert.equal("note" in link, false);
  assert.equal(ids.size > 0, true);
});

Deno.test("a profiler directory without a database still answers, naming db.sqlite", async () => {
  // Prevents a missing database failing top_ops rather than costing only the link.
  await using p = await pair({ before: (paths) => Deno.remove(`${paths.profiler}/db.sqlite`) });
  const { link, ids } = await p.link();
  assert.equal(link.status, "unavailable");
  assert.match(String(link.reason), /^no db\.sqlite in /);
  assert.ok(ids.size > 0);
});

Deno.test("a performance report that cannot be read costs operation_detail only its perf_rows", async () => {
  // Prevents a broken CSV taking the profiler answer down with it, or rows listed from it.
  const csv = Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
  await using p = await pair({
    csv: csv.slice(0, csv.indexOf("{'compute_kernel_config'") + 20),
  });
  const a = await p.call("operation_detail", { operation_id: 3 });
  assert.equal(a.name, "ttnn.linear");
  assert.equal("perf_rows" in a, false);
  assert.equal((a.operation_link as Row).status, "unavailable");
  assert.match(
    String((a.operation_link as Row).reason),
    /^the performance report could not be read: .*line 5: the file ends inside this line/,
  );
});

Deno.test("a signpost range narrows the rows but the link describes the whole report", async () => {
  // Prevents a window starting the alignment mid-run, or window counts read as link counts.
  await using p = await pair();
  const ranged = await p.call("top_ops", { start_signpost: "PERF_DECODE", limit: 100 });
  const link = ranged.operation_link as Row;
  assert.equal(link.scope, "whole_report");
  assert.equal(link.matched_rows, 24);
  for (const row of ranged.ops as Row[]) {
    assert.equal(row.operation_id, demoOperationOf(Number(row.id)), `row ${row.id}`);
  }
  assert.equal("scope" in (await p.link()).link, false);
});

Deno.test("a link reads a database a writer holds locked as it stands, and keeps it", async () => {
  // Prevents a writer's lock (which the in-memory copy never takes part in) failing the link,
  // and a resolved link being read again per call.
  await using p = await pair();
  const writer = new DatabaseSync(`${p.paths.profiler}/db.sqlite`);
  try {
    writer.exec("BEGIN EXCLUSIVE");
    assert.equal((await p.link()).link.status, "linked");
    writer.exec("ROLLBACK");
    assert.equal((await p.link()).link.status, "linked"); // kept: the database is not read again
  } finally {
    writer.close();
  }
});

Deno.test("program_cache names each first repeat miss by its profiler operation too", async () => {
  // Prevents an agent passing the CSV row of a rebuild to operation_provenance.
  await using p = await pair();
  const a = await p.call("program_cache");
  const concat = (a.op_codes as Row[]).find((e) =>
    e.op_code === "NLPConcatHeadsDecodeDeviceOperation"
  )!;
  assert.equal(concat.first_repeat_miss_perf_id, "19");
  assert.equal(concat.first_repeat_miss_operation_id, 17);
  assert.equal((a.operation_link as Row).status, "linked");
  await using perfOnly = await pair({ sides: ["performance"] });
  const b = await perfOnly.call("program_cache");
  assert.equal("first_repeat_miss_operation_id" in (b.op_codes as Row[])[0], false);
  await using other = await pair({
    sql:
      "UPDATE captured_graph SET captured_graph = replace(captured_graph, 'Untilize', 'Tilize');",
  });
  const c = await other.call("program_cache");
  for (const e of c.op_codes as Row[]) assert.equal(e.first_repeat_miss_operation_id, null);
});

Deno.test("a host op row links to no operation and is counted as one", async () => {
  // Prevents a host op taking a device operation's place in the order, or being hidden.
  await using p = await pair({
    csv: editCsv((row, i) =>
      i === 3
        ? [{
          "OP CODE": "(torch) __getitem__",
          "OP TYPE": "python_fallback",
          "GLOBAL CALL COUNT": "1024",
          "HOST START TS": String(Number(row["HOST START TS"]) + 1),
          "OP TO OP LATENCY [ns]": "5000",
        }]
        : undefined
    ),
  });
  const { link, ids } = await p.link();
  assert.equal(link.status, "linked");
  assert.equal(link.matched_rows, 24);
  assert.deepEqual(link.unlinked_by_reason, { signpost: 2, host_op: 1, past_profiler_capture: 0 });
  assert.equal(link.unlinked_row_count, 3);
  const all = await p.call("top_ops", { by: "op_to_op_gap", limit: 100 });
  assert.equal(all.op_count, 27); // the canonical rows still hold the host op
  assert.equal(ids.get("5"), 3);
  assert.equal(ids.get("7"), 4); // the row after the host op takes the next operation
  const hostRow = (all.ops as Row[]).find((r) => r.id === "6")!;
  assert.match(String(hostRow.op_code), /\(torch\)/);
  assert.equal(hostRow.operation_id, null);
});
