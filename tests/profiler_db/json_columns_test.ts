/**
 * Large results handed over as JSON columns (`columnsOf`) where node:sqlite would hand over
 * a row object each: the values must be the driver's, or the caller must be told to read the
 * rows — never a value JSON rounded, nor one the driver would refuse.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { byColumn, columnsOf, type ProfilerDb } from "../../src/profiler_db/connection.ts";
import { Schema } from "../../src/profiler_db/schema.ts";

function db(values: string[]): ProfilerDb {
  const d = new DatabaseSync(":memory:");
  d.exec("CREATE TABLE t (k int, v)");
  values.forEach((v, i) => d.exec(`INSERT INTO t VALUES (${i}, ${v})`));
  return { db: d, schema: new Schema({}), memo: new Map() };
}

Deno.test("JSON columns are the rows' values, in the order asked", () => {
  // Prevents a text, a NULL or an integral number coming over as anything else.
  const pdb = db(["5", "'5'", "NULL", "-7", "' x '", "9007199254740991", "'é😀'"]);
  const sql = "SELECT k, v FROM t";
  const rows = pdb.db.prepare(`${sql} ORDER BY k DESC`).all() as Record<string, unknown>[];
  assert.deepEqual(columnsOf(pdb.db, sql, ["k", "v"], "k DESC"), byColumn(rows, ["k", "v"]));
});

Deno.test("a value JSON cannot carry as the driver hands it over sends the caller to the rows", () => {
  // Prevents a fraction rounded to 15 digits, an integer past 2^53 read where the driver
  // refuses it, or a BLOB failing the query.
  for (const v of ["0.1", "2.0", "-0.0", "9007199254740993", "1e300", "x'00'", "x'13'"]) {
    assert.equal(columnsOf(db([v]).db, "SELECT v FROM t", ["v"]), null, v);
  }
});
