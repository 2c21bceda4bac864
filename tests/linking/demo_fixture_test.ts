/** The demo pair (fixtures/demo/) is generated, not hand-edited: its generator reproduces it. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DEMO, tempDir } from "../_support/dirs.ts";

const GENERATOR = new URL("../../scripts/make_demo_fixture.ts", import.meta.url).pathname;

/** Every table's rows. */
function dump(path: string): Record<string, unknown> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name",
    )
      .all() as { name: string; sql: string }[];
    return Object.fromEntries(
      tables.map((
        { name, sql },
      ) => [name, { sql, rows: db.prepare(`SELECT * FROM ${name}`).all() }]),
    );
  } finally {
    db.close();
  }
}

Deno.test("the committed demo pair is exactly what its generator writes", async () => {
  // Prevents link tests passing against a hand-edited demo the generator no longer produces.
  await using dir = await tempDir();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", GENERATOR, `${dir.path}/`],
    stderr: "null",
  }).output();
  assert.equal(out.code, 0);
  for (
    const file of ["performance/ops_perf_results_demo.csv", "performance/profile_log_device.csv"]
  ) {
    assert.equal(
      await Deno.readTextFile(`${dir.path}/${file}`),
      await Deno.readTextFile(`${DEMO}${file}`),
      file,
    );
  }
  assert.deepEqual(dump(`${dir.path}/profiler/db.sqlite`), dump(`${DEMO}profiler/db.sqlite`));
});
