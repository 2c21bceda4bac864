/**
 * Every performance answer names its next step, and the step runs as given: through the SDK
 * client on the demo (with a device log) and the shared captures, each answer's `next` is
 * called with its own arguments and answers. A next step never names a tool the handle cannot
 * answer: on a failed run without captured graphs the out-of-memory path offers memory_profile
 * instead of l1_peak and says how to capture the graphs.
 */
import assert from "node:assert/strict";
import { callOk, connect } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { CAPTURES_DIR, capturesPresent } from "../perf_report/_golden.ts";
import { derived } from "../profiler_db/_fixtures.ts";

type Row = Record<string, unknown>;
type Step = { tool: string; why: string; arguments: Row };

/** The performance tools and arguments that answer on a handle with a device log. */
const CALLS: [string, Row][] = [
  ["top_ops", {}],
  ["top_ops", { by: "cores", order: "ascending" }],
  ["op_breakdown", {}],
  ["op_breakdown", { group_by: "op_category" }],
  ["program_cache", {}],
  ["lower_bounds", {}],
  ["zone_timings", {}],
  ["core_spread", {}],
  ["device_timeline", {}],
  ["core_utilisation", {}],
  ["core_utilisation", { op_code: "Matmul" }],
  ["core_states", { op_code: "Matmul" }],
];

/** Calls each answer's next steps as given; fails on an answer without one or a refused step. */
async function followEveryNext(
  client: Awaited<ReturnType<typeof connect>>["client"],
  handle: string,
  answerable: readonly string[],
): Promise<number> {
  let followed = 0;
  for (const [tool, args] of CALLS) {
    if (!answerable.includes(tool)) continue;
    const a = await callOk(client, tool, { handle, ...args });
    const next = a.next as Step[] | undefined;
    assert.ok(next && next.length > 0, `${tool} ${JSON.stringify(args)} names a next step`);
    for (const step of next) {
      assert.ok(answerable.includes(step.tool), `${tool} names ${step.tool}, which can answer`);
      await callOk(client, step.tool, step.arguments);
      followed++;
    }
  }
  return followed;
}

Deno.test("every performance answer on the demo names a next step that runs as given", async () => {
  // Prevents answers that leave the agent without a next call, or send it to one refused.
  const { client, close } = await connect();
  try {
    const loaded = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    const followed = await followEveryNext(
      client,
      loaded.handle as string,
      loaded.answerable as string[],
    );
    assert.ok(followed >= CALLS.length);
  } finally {
    await close();
  }
});

Deno.test({
  name: "on the shared captures every CSV answer's next step runs as given",
  ignore: !capturesPresent(),
  async fn() {
    // Prevents a next step naming a device-log tool on a capture without a device log.
    const { client, close } = await connect();
    try {
      for (const capture of ["wh_clip_encoder_2", "bh_8xp150_deepseek_v3_d_p"]) {
        const loaded = await callOk(client, "load_report", {
          performance_path: `${CAPTURES_DIR}${capture}`,
        });
        const answerable = loaded.answerable as string[];
        assert.ok(!answerable.includes("core_spread"), "no device log here");
        await followEveryNext(client, loaded.handle as string, answerable);
        const d = await callOk(client, "diff_reports", {
          handle_a: loaded.handle,
          handle_b: loaded.handle,
        });
        for (const step of d.next as Step[]) await callOk(client, step.tool, step.arguments);
      }
    } finally {
      await close();
    }
  },
});

Deno.test("without captured graphs the out-of-memory path names memory_profile, not l1_peak, with the recipe", async () => {
  // Prevents errors and operation_detail sending the agent to l1_peak, which load_report has
  // already said cannot answer, with no word on how to capture what it needs.
  await using dir = await derived("v2_1_failed_run", "DROP TABLE captured_graph;");
  const { client, close } = await connect();
  try {
    const loaded = await callOk(client, "load_report", { profiler_path: dir.path });
    assert.ok((loaded.unanswerable as string[]).includes("l1_peak"));
    const errors = await callOk(client, "errors", { handle: loaded.handle });
    const detailStep = (errors.next as Step[]).find((s) => s.tool === "operation_detail")!;
    for (const a of [errors, await callOk(client, "operation_detail", detailStep.arguments)]) {
      const tools = (a.next as Step[]).map((s) => s.tool);
      assert.ok(!tools.includes("l1_peak"), `names ${tools.join(", ")}`);
      assert.ok(tools.includes("memory_profile"));
      assert.match(
        String(a.caveat),
        /l1_peak would be the next step .*"enable_graph_report": true/,
      );
      for (const step of a.next as Step[]) await callOk(client, step.tool, step.arguments);
    }
  } finally {
    await close();
  }
});
