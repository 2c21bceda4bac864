/**
 * The error and DRAM fallback of one operation, as operation_detail will carry them
 * (operationErrorField, dramFallbackField): the same answer errors and dram_fallbacks give, and
 * a caveat wherever null is not a finding.
 */
import assert from "node:assert/strict";
import { derived, openFixtureDb, PROFILER_FIXTURES } from "./_fixtures.ts";
import * as M from "./_allocation_messages.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import { operationErrorField } from "../../src/analysis/run_errors.ts";
import { dramFallbackField } from "../../src/analysis/dram_fallbacks.ts";

const q = (s: string) => `'${s.replaceAll("'", "''")}'`;

Deno.test("an operation's error is the attached one, and null on an operation without one", async () => {
  // Prevents operation_detail showing a different error from the errors list, or none.
  await using dir = await derived(
    "v2_1_tensor_size",
    `INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', ${q(M.framed(M.B))}, '', '');` +
      "INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', 'second', '', '');",
  );
  using pdb = await openFixtureDb(dir.path);
  const scope = rankScope(pdb, undefined);
  const five = operationErrorField(pdb, scope, 5);
  assert.equal(five.error?.error_message?.startsWith("TT_FATAL"), true);
  assert.equal(five.error?.diagnosis?.reason, "not_enough_free_space");
  assert.equal(five.caveat, null);
  assert.deepEqual(operationErrorField(pdb, scope, 0), { error: null, caveat: null });
  assert.deepEqual(operationErrorField(pdb, scope, 6), { error: null, caveat: null });
});

Deno.test("an operation's error on a report without the table, or unattributable, says why it is null", async () => {
  // Prevents "no error" read off a capture that could not have recorded one, or another rank's.
  using old = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  const none = operationErrorField(old, rankScope(old, undefined), 5);
  assert.equal(none.error, null);
  assert.match(String(none.caveat), /predates the errors table/);
  await using dir = await derived(
    "mixed_rank_operations_only",
    `INSERT INTO errors VALUES (5, 'ttnn.conv2d', 'RuntimeError', ${q(M.G)}, '', '');`,
  );
  using mixed = await openFixtureDb(dir.path);
  const withheld = operationErrorField(mixed, rankScope(mixed, 1), 5);
  assert.equal(withheld.error, null);
  assert.match(String(withheld.caveat), /error is withheld: .*not on `errors`/);
});

Deno.test("an operation's DRAM fallback is the one dram_fallbacks lists", async () => {
  // Prevents operation_detail and dram_fallbacks disagreeing about one operation.
  await using dir = await derived(
    "v2_1_tensor_size",
    "UPDATE tensors SET buffer_type = 'DRAM', address = 3000000 WHERE tensor_id = 8;",
  );
  using pdb = await openFixtureDb(dir.path);
  const scope = rankScope(pdb, undefined);
  assert.equal((await dramFallbackField(pdb, scope, 8)).dram_fallback?.signal, "argument_mismatch");
  assert.deepEqual(await dramFallbackField(pdb, scope, 9), { dram_fallback: null, caveat: null });
});

Deno.test("an operation's DRAM fallback says when it was not, or only partly, inferred", async () => {
  // Prevents a null fallback read as a finding where the inference could not run in full.
  using old = await openFixtureDb(`${PROFILER_FIXTURES}w1_python_writer`);
  assert.match(
    String((await dramFallbackField(old, rankScope(old, undefined), 8)).caveat),
    /argument mismatch only: .*no errors table/,
  );
  using cut = await openFixtureDb(`${PROFILER_FIXTURES}w1_truncated_operations_only`);
  assert.match(
    String((await dramFallbackField(cut, rankScope(cut, undefined), 8)).caveat),
    /not inferred: db.sqlite has no `operation_arguments`/,
  );
  using mixed = await openFixtureDb(`${PROFILER_FIXTURES}mixed_rank_operations_only`);
  assert.match(
    String((await dramFallbackField(mixed, rankScope(mixed, 0), 8)).caveat),
    /withheld: .*not on `operation_arguments`/,
  );
});
