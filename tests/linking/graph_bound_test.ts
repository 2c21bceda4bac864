/**
 * The bound on how much captured graph the link reads, measured before any graph is loaded
 * and only at the rank the link reads.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MAX_GRAPH_CHARS, operationLink } from "../../src/analysis/operation_link.ts";
import { pair } from "./_pairs.ts";

/** The demo pair (changed by `sql`) and its loaded report, for calling the link directly. */
async function loadedPair(sql?: string) {
  const p = await pair({ sql });
  return { p, report: await p.report() };
}

Deno.test("a captured graph past the bound is not read", async () => {
  // Prevents a runaway capture being parsed whole into memory.
  const { p, report } = await loadedPair();
  await using _ = p;
  const link = await operationLink({ tool: "test", report }, 10);
  assert.equal(link.status, "unavailable");
  assert.match(
    link.status === "unavailable" ? link.reason : "",
    /^this capture holds [\d,]+ characters of captured graph, past the 10 the link will read$/,
  );
});

Deno.test("the bound counts only the rank the link reads", async () => {
  // Prevents another rank's graphs refusing a link that reads none of them.
  const { p, report } = await loadedPair(
    "CREATE TABLE ranked AS SELECT *, 0 AS rank FROM operations; " +
      "DROP TABLE operations; ALTER TABLE ranked RENAME TO operations; " +
      "INSERT INTO operations SELECT operation_id, name, duration, 1 FROM operations; " +
      "ALTER TABLE captured_graph ADD COLUMN rank int NOT NULL DEFAULT 0; " +
      "ALTER TABLE devices ADD COLUMN rank int NOT NULL DEFAULT 0; " +
      "INSERT INTO captured_graph SELECT operation_id, " +
      "captured_graph || printf('%.100000c', ' '), 1 FROM captured_graph;",
  );
  await using _ = p;
  const db = new DatabaseSync(`${p.paths.profiler}/db.sqlite`, { readOnly: true });
  const atZero = (db.prepare(
    "SELECT SUM(LENGTH(captured_graph)) AS n FROM captured_graph WHERE rank = 0",
  ).get() as { n: number }).n;
  db.close();
  assert.equal((await operationLink({ tool: "test", report }, atZero)).status, "linked");
});

Deno.test("the bound is far past any real capture", () => {
  // Prevents a real report being refused by a bound set for tests.
  assert.equal(MAX_GRAPH_CHARS, 2 ** 30);
});
