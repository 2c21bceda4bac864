/**
 * Long database reads in steps: a whole-table read is a rowid range at a time with the event
 * loop let in between two (so a ping is answered and a cancel honoured during a read of 10^6
 * rows), gives the rows of one read in the same order, and stops at the first pause after its
 * caller is cancelled. Steps and stops are counted, never timed.
 */
import assert from "node:assert/strict";
import { DatabaseSync, type SQLInputValue, StatementSync } from "node:sqlite";
import { tempDir } from "../_support/dirs.ts";
import { openFixtureDb } from "./_fixtures.ts";
import { rows } from "../../src/profiler_db/connection.ts";
import { rowsInSteps, STEP_ROWS, stepsOf } from "../../src/profiler_db/steps.ts";
import {
  dramFallbacks,
  inferFallbacks,
  JUDGED_PER_PAUSE,
} from "../../src/analysis/dram_fallbacks.ts";
import { rankScope } from "../../src/profiler_db/host_rank.ts";
import { writeDetailDb, writeGraphDb } from "../../scripts/make_large_profiler_db.ts";
import { session } from "../_support/in_process.ts";
import { callTool } from "../../src/protocol/tool_call.ts";
import { loadTools } from "../../src/tools/registry.ts";
import { HandleRegistry } from "../../src/session/handles.ts";
import { Roots } from "../../src/kit/roots.ts";

/** A database whose `t` has `n` rows, rowids with a gap and a value per row. */
function writeTable(path: string, n: number): void {
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE t (v int)");
  const ins = db.prepare("INSERT INTO t (rowid, v) VALUES (?, ?)");
  db.exec("BEGIN");
  for (let i = 1; i <= n; i++) ins.run(i < n / 2 ? i : i + 1_000_000, (i * 7919) % 1000);
  db.exec("COMMIT");
  db.close();
}

const noPause = () => Promise.resolve();

Deno.test("a table read in steps gives one read's rows, a pause between every two steps", async () => {
  // Prevents a long read held in one SQLite call (a ping waits for all of it) or one whose
  // steps drop, repeat or reorder rows.
  await using dir = await tempDir();
  const n = 3 * STEP_ROWS + 17;
  writeTable(`${dir.path}/db.sqlite`, n);
  using pdb = await openFixtureDb(dir.path);
  let pauses = 0;
  const stepped = await rowsInSteps<{ v: number }>(
    pdb,
    "t",
    "",
    (range) => `SELECT rowid AS r, v FROM t WHERE v % 3 <> 1${range} ORDER BY rowid`,
    [],
    () => (pauses++, Promise.resolve()),
  );
  const whole = rows(pdb, "SELECT rowid AS r, v FROM t WHERE v % 3 <> 1 ORDER BY rowid");
  assert.deepEqual(stepped, whole);
  assert.ok(pauses >= Math.ceil(n / STEP_ROWS), `${pauses} pauses for ${n} rows`);
  const sizes: number[] = [];
  for await (
    const part of stepsOf(pdb, "t", "", (r) => `SELECT v FROM t WHERE 1 = 1${r}`, [], noPause)
  ) sizes.push(part.length);
  assert.ok(sizes.every((s) => s <= STEP_ROWS), `steps of ${sizes.join(", ")} rows`);
  assert.equal(sizes.reduce((a, b) => a + b, 0), n);
});

Deno.test("a stepped read stops at the first pause that throws", async () => {
  // Prevents a cancelled read running on to the table's end.
  await using dir = await tempDir();
  writeTable(`${dir.path}/db.sqlite`, 4 * STEP_ROWS);
  using pdb = await openFixtureDb(dir.path);
  let pauses = 0;
  let read = 0;
  let steps = 0;
  const stop = new Error("stopped");
  await assert.rejects(async () => {
    for await (
      const part of stepsOf<unknown>(
        pdb,
        "t",
        "",
        (r) => `SELECT v FROM t WHERE 1 = 1${r}`,
        [],
        () => {
          if (++pauses > 2) throw stop;
          return Promise.resolve();
        },
      )
    ) (read += part.length, steps++);
  }, stop);
  assert.equal(steps, 2);
  assert.ok(read > STEP_ROWS && read <= 2 * STEP_ROWS, `${read} rows read`);
});

Deno.test("a stepped read sizes its steps by the clock, between its least and most rows", async () => {
  // Prevents a fixed step that holds the loop longer on a loaded machine (issue 30: a ping
  // waited 463 ms during dram_fallbacks at load 2-7): a step past its time halves the next.
  await using dir = await tempDir();
  writeTable(`${dir.path}/db.sqlite`, 40 * STEP_ROWS);
  using pdb = await openFixtureDb(dir.path);
  const sizes = async (targetMs: number) => {
    const out: number[] = [];
    const plan = { minRows: 512, maxRows: STEP_ROWS, targetMs };
    const query = (r: string) => `SELECT v FROM t WHERE 1 = 1${r}`;
    for await (const part of stepsOf(pdb, "t", "", query, [], noPause, plan)) {
      out.push(part.length);
    }
    return out;
  };
  // Every step takes longer than twice no time, and less than half of forever.
  const slow = await sizes(0);
  assert.deepEqual(slow.slice(0, 5), [STEP_ROWS, STEP_ROWS / 2, STEP_ROWS / 4, 512, 512]);
  assert.equal(slow.reduce((a, b) => a + b, 0), 40 * STEP_ROWS);
  // At most: every step but the one before the table's gap of rowids and its last.
  const fast = await sizes(Infinity);
  assert.ok(
    fast.filter((n) => n === STEP_ROWS).length >= fast.length - 2,
    `steps of ${fast.join(", ")} rows`,
  );
});

Deno.test("a stepped read finds its table's ends without an aggregate over the whole table", async () => {
  // Prevents the bounds read as one min/max query, which SQLite answers by scanning every
  // row (100 ms held on a 10^6-row table before the first step).
  await using dir = await tempDir();
  writeTable(`${dir.path}/db.sqlite`, 2 * STEP_ROWS);
  const prepared: string[] = [];
  const record = (db: DatabaseSync) =>
    new Proxy(db, {
      get(target, key) {
        if (key === "prepare") {
          return (sql: string): StatementSync => (prepared.push(sql), target.prepare(sql));
        }
        const v = Reflect.get(target, key);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  using pdb = await openFixtureDb(dir.path, record);
  const read = await rowsInSteps(
    pdb,
    "t",
    "",
    (r) => `SELECT v FROM t WHERE 1 = 1${r}`,
    [],
    noPause,
  );
  assert.equal(read.length, 2 * STEP_ROWS);
  const aggregates = prepared.filter((sql) => /\b(min|max)\s*\(/i.test(sql));
  assert.deepEqual(aggregates, []);
});

/** A generated 20,000-operation database (operation_detail's shape) under a temp dir. */
async function largeReport(graphs: boolean) {
  const dir = await tempDir();
  writeDetailDb(`${dir.path}/db.sqlite`, 20_000, graphs);
  return dir;
}

Deno.test("dram_fallbacks cancelled mid-inference stops reading and is forgotten", async () => {
  // Prevents the whole-report inference ignoring a cancel (issue 30: a cancel sent at 1 s was
  // ignored) or keeping a cut-short result for the next call.
  await using dir = await largeReport(false);
  let statements = 0;
  const count = (db: DatabaseSync) =>
    new Proxy(db, {
      get(target, key) {
        if (key === "prepare") {
          return (sql: string): StatementSync => (statements++, target.prepare(sql));
        }
        const v = Reflect.get(target, key);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  using pdb = await openFixtureDb(dir.path, count);
  const scope = rankScope(pdb, undefined);
  const full = await dramFallbacks(pdb, scope);
  pdb.memo.clear();
  const whole = statements;
  statements = 0;
  const ac = new AbortController();
  const call = dramFallbacks(pdb, scope, ac.signal);
  let settled = false;
  call.then(() => (settled = true), () => (settled = true));
  // Cancelled once the inference has read a few steps; an inference that reads in fewer
  // statements, or settles first, is waited for a bounded number of turns, never for ever.
  for (let turn = 0; statements < 6 && !settled && turn < 1_000; turn++) {
    await new Promise((r) => setTimeout(r, 0));
  }
  ac.abort(new Error("cancelled"));
  assert.ok(
    statements >= 6 && !settled,
    `at the cancel: ${statements} statements, ${settled ? "" : "not "}settled`,
  );
  await assert.rejects(call, /cancelled/);
  const atCancel = statements;
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  assert.ok(statements <= atCancel + 2, `${statements - atCancel} statements after the cancel`);
  assert.ok(atCancel < whole / 2, `${atCancel} of ${whole} statements before the cancel`);
  assert.equal(pdb.memo.has("dram-fallbacks-null"), false, "the stopped work is forgotten");
  assert.deepEqual(await dramFallbacks(pdb, scope), full, "the next call reads afresh");
});

Deno.test("dram_fallbacks judges at most 256 operations between two pauses", async () => {
  // Prevents the verdicts over every operation running 4,096 between two pauses: some 200 ms
  // of the loop held on a 10^6-operation database (issue 30: a ping waited 573 ms at load 6).
  await using dir = await largeReport(false);
  using pdb = await openFixtureDb(dir.path);
  // Statements run, counted; each pause notes how many ran since the one before.
  const all = StatementSync.prototype.all;
  let runs = 0;
  StatementSync.prototype.all = function (this: StatementSync, ...a: SQLInputValue[]) {
    runs++;
    return Reflect.apply(all, this, a);
  } as typeof all;
  const between: number[] = [];
  let last = 0;
  const pause = () => {
    between.push(runs - last);
    last = runs;
    return Promise.resolve();
  };
  let answer;
  try {
    answer = await inferFallbacks(pdb, rankScope(pdb, undefined), pause);
  } finally {
    StatementSync.prototype.all = all;
  }
  // The pauses after the last read are the verdicts' alone.
  let verdictPauses = 0;
  while (between.at(-1 - verdictPauses) === 0) verdictPauses++;
  assert.equal(answer.operationCount, 20_000);
  assert.ok(
    verdictPauses >= 20_000 / JUDGED_PER_PAUSE - 1,
    `${verdictPauses} pauses while 20,000 operations were judged`,
  );
});

/** A tool call in its own session and registry with `signal`, after load_report. */
async function callCancelled(dir: string, tool: string, args: Record<string, unknown>) {
  const tools = await loadTools();
  const registry = new HandleRegistry();
  const env = (signal: AbortSignal) => ({ registry, roots: Roots.any(), signal });
  const load = await callTool(
    tools.find((t) => t.name === "load_report")!,
    { profiler_path: dir },
    env(new AbortController().signal),
  );
  const handle = (load.result.structuredContent as { handle: string }).handle;
  const ac = new AbortController();
  const call = callTool(tools.find((t) => t.name === tool)!, { handle, ...args }, env(ac.signal));
  // Cancelled at the first turn of the event loop after the call started: a call that yields
  // sees it; one that runs to its end in one piece answers.
  let turns = 0;
  let answered = false;
  call.then(() => (answered = true));
  while (!answered && turns < 3) {
    await new Promise((r) => setTimeout(r, 0));
    turns++;
  }
  ac.abort(new Error("cancelled"));
  return await call;
}

for (
  const [tool, args, graphs] of [
    ["dram_fallbacks", { limit: 5 }, false],
    ["operation_detail", { operation_id: 10_000 }, true],
  ] as const
) {
  Deno.test(`${tool} on a 20,000-operation database lets the loop in and honours a cancel`, async () => {
    // Prevents a long database step blocking every other request (issue 30: a ping waited
    // 7.98 s on dram_fallbacks, 2.5 s on operation_detail) and a cancel being ignored.
    await using dir = await largeReport(graphs);
    const cancelled = await callCancelled(dir.path, tool, args);
    assert.notEqual(cancelled.outcome, "ok", "a cancelled call gives no answer");
    const s = session();
    const { handle } = await s.call("load_report", { profiler_path: dir.path });
    const answer = await s.call(tool, { handle, ...args });
    assert.equal(answer.handle, handle);
  });
}

Deno.test("l1_peak on a 5,000-graph database lets the loop in and honours a cancel", async () => {
  // Prevents the graph replay blocking every other request (issue 30: a ping waited 2.35 s on
  // l1_peak over a 360 MB graph) and a cancel being ignored.
  await using dir = await tempDir();
  writeGraphDb(`${dir.path}/db.sqlite`, 5_000);
  const cancelled = await callCancelled(dir.path, "l1_peak", {});
  assert.notEqual(cancelled.outcome, "ok", "a cancelled call gives no answer");
  const s = session();
  const { handle } = await s.call("load_report", { profiler_path: dir.path });
  const answer = await s.call("l1_peak", { handle });
  assert.equal(answer.handle, handle);
});
