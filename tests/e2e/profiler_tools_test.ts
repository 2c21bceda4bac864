import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { tempDir } from "../_support/dirs.ts";
import { DatabaseSync } from "node:sqlite";
import { PROFILER_FIXTURES } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;
const DB_TOOLS = [
  "find_operations",
  "operation_detail",
  "memory_profile",
  "tensor_flow",
  "operation_provenance",
];

Deno.test("tools/list publishes the database tools with their arguments", async () => {
  // Prevents a tool an agent cannot discover, or one whose schema hides rank or limit.
  const { client, close } = await connect();
  try {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of DB_TOOLS) {
      const schema = byName.get(name)?.inputSchema as { properties: Row; required: string[] };
      assert.ok(schema, `${name} is listed`);
      assert.ok("rank" in schema.properties, `${name} takes rank`);
      assert.ok(schema.required.includes("handle"), `${name} requires handle`);
    }
    const mp = byName.get("memory_profile")!;
    assert.match(mp.description!, /a floor, not the peak/);
    assert.match(mp.description!, /out-of-memory, l1_peak/);
  } finally {
    await close();
  }
});

Deno.test("from a helper's name to an operation's call site and arguments, over stdio", async () => {
  // Prevents the find → provenance path an agent follows from breaking on the wire.
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}w1_python_writer`,
    });
    for (const name of DB_TOOLS) {
      assert.ok((a.answerable as string[]).includes(name), name);
    }
    const found = await callOk(client, "find_operations", {
      handle: a.handle,
      called_from: "common.py",
      name_contains: "conv",
    });
    assert.equal(found.duration_unit, "host_seconds");
    const [op] = found.operations as Row[];
    assert.equal(op.name, "ttnn.conv2d");
    const p = await callOk(client, "operation_provenance", {
      handle: a.handle,
      operation_id: op.operation_id,
      limit: 1,
    });
    assert.equal((p.call_site as Row).code, "x = ttnn.conv2d(");
    assert.equal(p.returned_frames, 1);
    assert.equal(p.truncated_count, 3);
  } finally {
    await close();
  }
});

Deno.test("operation_detail and tensor_flow over stdio, with units and stated absences", async () => {
  // Prevents units or the per-bank absences being lost between handler and client.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_1_tensor_size`,
    });
    const d = await callOk(client, "operation_detail", { handle, operation_id: 9 });
    assert.equal(d.duration_unit, "host_seconds");
    assert.equal(d.tensor_size_unit, "bytes");
    assert.equal(d.allocation_size_unit, "bytes_per_bank");
    assert.match(String((d.stated_absences as Row).whole_device_figure), /cannot be derived/);
    assert.match(String((d.stated_absences as Row).dram_capacity), /no DRAM capacity/);
    assert.equal((d.l1_pressure as Row).free_space_precision, "upper_bound");
    const outputId = (d.outputs as Row[])[0].tensor_id;
    const t = await callOk(client, "tensor_flow", { handle, tensor_id: outputId });
    assert.deepEqual(t.producers, [{ operation_id: 9, name: "ttnn.softmax" }]);
    assert.deepEqual((t.consumers as Row[]).map((c) => c.operation_id), [10, 11]);
  } finally {
    await close();
  }
});

Deno.test("memory_profile over stdio: per type, a floor, with l1_pressure and the geometry", async () => {
  // Prevents the floor caveat, the geometry or the pressure ranking being dropped on the wire.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}v2_mesh_two_devices`,
    });
    const m = await callOk(client, "memory_profile", { handle, limit: 1 });
    assert.match(String(m.note), /floor, not the peak/);
    assert.equal((m.device as Row).devices, 2);
    const ranking = (m.l1_pressure as Row).ranking as Row[];
    assert.deepEqual([ranking[0].operation_id, ranking[0].device_id], [9, 1]);
    assert.match(String((m.stated_absences as Row).dram_capacity), /no DRAM capacity/);
  } finally {
    await close();
  }
});

Deno.test("rank refusals and the attribution guard reach the client as refusals", async () => {
  // Prevents a wrong-rank answer, or a protocol error where a readable refusal belongs.
  const { client, close } = await connect();
  try {
    const ranked = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}ranked_two_hosts`,
    });
    assert.match(
      await callRefused(client, "find_operations", { handle: ranked.handle, rank: 4 }),
      /no rank 4; it holds 0, 1/,
    );
    const one = await callOk(client, "find_operations", { handle: ranked.handle, rank: 1 });
    assert.equal(one.rank, 1);
    // load_report names the ranks up front, so an agent need not find them by refusal.
    assert.deepEqual((ranked.profiler_database as Record<string, unknown>).ranks, [0, 1]);
    const mixed = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}mixed_rank_operations_only`,
    });
    assert.match(
      await callRefused(client, "memory_profile", { handle: mixed.handle }),
      /cannot be attributed to rank 0/,
    );
  } finally {
    await close();
  }
});

Deno.test("a database rewritten after loading is refused as stale, even with a connection open", async () => {
  // Prevents answering from an open connection to a file that is no longer the loaded capture.
  await using dir = await tempDir();
  for (const e of Deno.readDirSync(`${PROFILER_FIXTURES}w1_python_writer`)) {
    await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/${e.name}`, `${dir.path}/${e.name}`);
  }
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", { profiler_path: dir.path });
    assert.equal((await callOk(client, "find_operations", { handle })).match_count, 12);
    await Deno.copyFile(
      `${PROFILER_FIXTURES}v2_mesh_two_devices/db.sqlite`,
      `${dir.path}/db.sqlite`,
    );
    assert.match(
      await callRefused(client, "find_operations", { handle }),
      /is stale: .*db\.sqlite was rewritten.*load_report again/,
    );
  } finally {
    await close();
  }
});

Deno.test("a locked database is read as it stands, and stale once its writer commits", async () => {
  // Prevents a crash on a locked capture, and an answer mixing the copy read before a commit
  // with the file after it.
  await using dir = await tempDir();
  for (const e of Deno.readDirSync(`${PROFILER_FIXTURES}w1_python_writer`)) {
    await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/${e.name}`, `${dir.path}/${e.name}`);
  }
  const { client, close } = await connect();
  const writer = new DatabaseSync(`${dir.path}/db.sqlite`);
  try {
    writer.exec("BEGIN EXCLUSIVE");
    const { handle } = await callOk(client, "load_report", { profiler_path: dir.path });
    assert.equal(((await callOk(client, "memory_profile", { handle })).device as Row).devices, 1);
    writer.exec("INSERT INTO operations VALUES (99, 'ttnn.late', 0.1)");
    writer.exec("COMMIT");
    const late = { handle, name_contains: "ttnn.late" };
    assert.match(await callRefused(client, "find_operations", late), /is stale/);
    const after = await callOk(client, "load_report", { profiler_path: dir.path });
    const found = await callOk(client, "find_operations", { ...late, handle: after.handle });
    assert.equal(found.match_count, 1);
  } finally {
    writer.close();
    await close();
  }
});

Deno.test("a search text past the cap is refused by the schema", async () => {
  // Prevents a huge needle reaching SQLite and being reported as a database problem.
  const { client, close } = await connect();
  try {
    const { handle } = await callOk(client, "load_report", {
      profiler_path: `${PROFILER_FIXTURES}w1_python_writer`,
    });
    assert.match(
      await callRefused(client, "find_operations", { handle, called_from: "x".repeat(5000) }),
      /bad arguments for find_operations: called_from/,
    );
  } finally {
    await close();
  }
});
