/**
 * Search strings on the wire, against the real server: a NUL or another control character in
 * find_operations' name_contains or called_from is searched for literally, never read as the
 * end of the pattern (SQLite's LIKE stops at a NUL) or trimmed into a blank search.
 */
import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { derived } from "../profiler_db/_fixtures.ts";

type Op = { operation_id: number };

Deno.test("a NUL, a tab or a newline in a search string matches only the operations holding it", async () => {
  // Prevents name_contains "\u0000" (or "\n") matching every operation of the report.
  await using dir = await derived(
    "w1_python_writer",
    "INSERT INTO operations VALUES (1000, 'ttnn.nul' || char(0) || 'Named', 0.001), " +
      "(1001, 'ttnn.tab' || char(9) || 'named', 0.001);",
  );
  const s = new RawServer();
  await s.initialize();
  const load = await s.call(1, "load_report", { profiler_path: dir.path });
  assert.ok(load.ok, load.ok ? "" : load.text);
  let id = 2;
  const find = async (args: Record<string, unknown>) => {
    const r = await s.call(id++, "find_operations", { handle: load.answer.handle, ...args });
    assert.ok(r.ok, r.ok ? "" : r.text);
    return (r.answer.operations as Op[]).map((o) => o.operation_id);
  };
  assert.deepEqual(await find({ name_contains: "\u0000" }), [1000]);
  assert.deepEqual(await find({ name_contains: "NUL\u0000n" }), [1000]);
  assert.deepEqual(await find({ name_contains: "\t" }), [1001]);
  assert.deepEqual(await find({ name_contains: "\n" }), []);
  assert.deepEqual(await find({ called_from: "\u0000" }), []);
  // Spaces around a search are still trimmed, and a blank name still means every name.
  assert.deepEqual(await find({ name_contains: " \tnamed " }), [1001]);
  assert.equal((await find({ name_contains: "  ", limit: 100 })).length, 14);
  assert.equal((await s.end()).code, 0);
});
