/**
 * operation_detail's dram_fallback reads one operation's neighbourhood rather than the whole
 * report: its verdict must be the whole-report dram_fallbacks answer for that operation, on
 * every generated capture and on the retry windows where the two readings could part.
 */
import assert from "node:assert/strict";
import { derived, type FixtureName, openFixtureDb, PROFILER_FIXTURES } from "./_fixtures.ts";
import { framed } from "./_allocation_messages.ts";
import { FLAVOURS } from "../../scripts/make_profiler_fixtures.ts";
import { rows } from "../../src/profiler_db/connection.ts";
import { rankScope, ranksOf } from "../../src/profiler_db/host_rank.ts";
import {
  DRAM_FALLBACK_NEEDS,
  dramFallbackField,
  dramFallbacks,
} from "../../src/analysis/dram_fallbacks.ts";

/** Every operation's per-operation verdict next to the whole report's; how many were flagged. */
async function compare(dir: string): Promise<number> {
  using whole = await openFixtureDb(dir);
  if (whole.schema.unmet(DRAM_FALLBACK_NEEDS) !== null) return 0;
  let flagged = 0;
  const ranks = whole.schema.hasColumn("operations", "rank") ? ranksOf(whole) : [undefined];
  for (const rank of ranks) {
    using one = await openFixtureDb(dir);
    const scope = rankScope(whole, rank);
    const field = (id: number) => dramFallbackField(one, rankScope(one, rank), id);
    if ((await field(1)).caveat?.includes("withheld")) continue;
    const listed = (await dramFallbacks(whole, scope)).fallbacks;
    const ids = rows<{ id: number }>(
      whole,
      `SELECT operation_id AS id FROM operations${
        rank === undefined ? "" : ` WHERE rank = ${rank}`
      }`,
    ).map((r) => Number(r.id));
    for (const id of ids) {
      const expected = listed.find((f) => f.operation_id === id) ?? null;
      assert.deepEqual(
        (await field(id)).dram_fallback,
        expected,
        `${dir} rank ${rank} operation ${id}`,
      );
      if (expected) flagged++;
    }
  }
  return flagged;
}

Deno.test("the per-operation verdict is the whole report's on every generated capture", async () => {
  // Prevents the fast path operation_detail uses drifting from what dram_fallbacks lists.
  let flagged = 0;
  for (const f of FLAVOURS) flagged += await compare(`${PROFILER_FIXTURES}${f.name}`);
  assert.ok(flagged >= 2, "some capture holds a fallback to compare");
});

const L1_FAILURE = framed(
  "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each " +
    "bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: " +
    "382720 B, largest free block: 300000 B)",
);
const DRAM_FAILURE = framed(
  "Out of Memory: Not enough space to allocate 3276800 B DRAM buffer across 12 banks, where " +
    "each bank needs to store 273408 B, but bank size is 1073741792 B",
);

/** Operations 17.. of the failed run: name, output buffer type (or none), failure message. */
const PASS: [string, "DRAM" | "L1" | null, string | null][] = [
  ["ttnn.matmul", null, L1_FAILURE], // 17 fails L1
  ["ttnn.matmul", "L1", null], //       18 first same-named retry stayed in L1
  ["ttnn.matmul", "DRAM", null], //     19 a later one spilled: not credited
  ["ttnn.add", null, L1_FAILURE], //    20 fails L1
  ["ttnn.exp", "L1", null], //          21
  ["ttnn.exp", "L1", null], //          22
  ["ttnn.exp", "L1", null], //          23
  ["ttnn.add", "DRAM", null], //        24 four after the failure: outside the window
  ["ttnn.mul", null, L1_FAILURE], //    25 fails L1
  ["ttnn.relu", null, L1_FAILURE], //   26 fails L1, another name
  ["ttnn.mul", null, L1_FAILURE], //    27 fails L1 again: the nearer failure
  ["ttnn.mul", "DRAM", null], //        28 credited to 27, not 25
  ["ttnn.gelu", null, DRAM_FAILURE], // 29 fails on DRAM: no retry credit
  ["ttnn.gelu", "DRAM", null], //       30
  ["ttnn.relu", "DRAM", null], //       31 five after 26: outside the window
];

function passSql(): string {
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  return PASS.map(([name, out, failure], i) => {
    const id = 17 + i;
    let sql = `INSERT INTO operations VALUES (${id}, ${q(name)}, 0.01);`;
    if (out !== null) {
      const tensor = 200 + i;
      sql += `INSERT INTO output_tensors VALUES (${id}, 0, ${tensor});` +
        "INSERT INTO tensors (tensor_id, shape, dtype, layout, memory_config, device_id, address, " +
        `buffer_type, size) VALUES (${tensor}, 'Shape([1, 64])', 'DataType.BFLOAT16', ` +
        `'Layout.TILE', NULL, 0, ${3000000 + 65536 * i}, ${q(out)}, 4096);`;
    }
    if (failure !== null) {
      sql += `INSERT INTO errors VALUES (${id}, ${q(name)}, 'RuntimeError', ${
        q(failure)
      }, '', '');`;
    }
    return sql;
  }).join("");
}

Deno.test("retry windows are read the same way per operation as over the whole report", async () => {
  // Prevents the neighbourhood reading crediting a retry the whole report would not (a later
  // spill, one past the window, a DRAM failure) or naming a farther failure than the nearest.
  await using dir = await derived("v2_1_failed_run" as FixtureName, passSql());
  assert.ok(await compare(dir.path) >= 3);
  using pdb = await openFixtureDb(dir.path);
  const scope = rankScope(pdb, undefined);
  const at = async (id: number) => (await dramFallbackField(pdb, scope, id)).dram_fallback;
  assert.equal(await at(19), null);
  assert.equal(await at(24), null);
  assert.equal((await at(28))?.signal, "retry_after_failure");
  assert.equal((await at(28))?.failed_operation_id, 27);
  assert.equal(await at(30), null);
  assert.equal(await at(31), null);
  assert.equal((await at(14))?.failed_operation_id, 13);
});
