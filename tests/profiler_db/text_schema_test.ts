/**
 * Databases written with text where numbers belong (columns declared without a type, every
 * value bound as a string) and with NULL ids: a NULL operation id stays null (never 0), every
 * id find_operations lists opens in operation_detail, a buffers row whose operation id is not
 * a number is refused with that cause named, and a WAL-mode database too big to copy into
 * memory is refused with its size.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { tempDir } from "../_support/dirs.ts";
import { session } from "../_support/in_process.ts";
import { writeAllTextDb } from "../../scripts/make_adversarial_inputs.ts";
import { PROFILER_FIXTURES } from "./_fixtures.ts";

type Row = Record<string, unknown>;

async function allText(textIds = false) {
  const dir = await tempDir();
  writeAllTextDb(`${dir.path}/db.sqlite`, textIds);
  const s = session();
  const { handle } = await s.call("load_report", { profiler_path: dir.path });
  return { dir, s, handle };
}

Deno.test("a NULL operation id is listed as null, never as operation 0", async () => {
  // Prevents an unknown id reading as a real one (operation 0), which the agent would pass on.
  const { dir, s, handle } = await allText();
  await using _ = dir;
  const found = await s.call("find_operations", { handle, name_contains: "orphan" });
  assert.deepEqual(found.operations, [{ operation_id: null, name: "ttnn.orphan", duration: 0.5 }]);
});

Deno.test("every operation id find_operations lists from an all-text schema opens in operation_detail", async () => {
  // Prevents listing an operation (its id stored as text '7') that operation_detail, looking
  // for the number 7, then says does not exist.
  const { dir, s, handle } = await allText();
  await using _ = dir;
  const found = await s.call("find_operations", { handle });
  const ids = (found.operations as Row[]).map((o) => o.operation_id).filter((id) => id !== null);
  assert.deepEqual(ids.sort((a, b) => Number(a) - Number(b)), [7, 12]);
  for (const id of ids) {
    const detail = await s.call("operation_detail", { handle, operation_id: id });
    assert.equal(detail.operation_id, id);
  }
  assert.match(
    await s.refusal("operation_detail", { handle, operation_id: 8 }),
    /no operation 8 in this report/,
  );
});

Deno.test("a buffers row whose operation id is not a number is refused naming it, never an empty failure", async () => {
  // Prevents "memory_profile failed: " with nothing after it: the scan's internal restart
  // escaped with an empty message when two rows' ids were text that is not a number.
  const { dir, s, handle } = await allText(true);
  await using _ = dir;
  assert.match(
    await s.refusal("memory_profile", { handle }),
    /buffers table holds an operation_id that is not a number \("op"\)/,
  );
});

Deno.test("a database too big to copy into memory is refused with its size", async () => {
  // Prevents reading a multi-GB WAL-mode database whole into this process's memory.
  await using dir = await tempDir();
  const path = `${dir.path}/db.sqlite`;
  await Deno.copyFile(`${PROFILER_FIXTURES}w1_python_writer/db.sqlite`, path);
  const w = new DatabaseSync(path);
  w.exec("PRAGMA journal_mode = WAL");
  w.close();
  for (const e of Deno.readDirSync(dir.path)) {
    if (e.name !== "db.sqlite") Deno.removeSync(`${dir.path}/${e.name}`);
  }
  await Deno.truncate(path, (1 << 30) + (1 << 20)); // sparse: no disk, no time
  const a = await session().call("load_report", { profiler_path: dir.path });
  assert.match(
    String((a.profiler_database as Row).problem),
    /db\.sqlite is 1025 MiB: this server reads a database only through the descriptor it checked, copied into memory, and at most 1024 MiB/,
  );
});
