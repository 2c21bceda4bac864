/**
 * The users' two workflows as MCP prompts, through the SDK client: listed with their
 * arguments, each walking the tools by name, and an unknown prompt or a missing argument
 * answered with an error naming it.
 */
import assert from "node:assert/strict";
import { connect } from "../_support/server.ts";
import { TOOL_NAMES } from "../../src/tools/registry.ts";

Deno.test("prompts/list gives the step-time and out-of-memory workflows with their arguments", async () => {
  // Prevents the users' method living only in the README, out of an agent's reach.
  const { client, close } = await connect();
  try {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), [
      "investigate_step_time",
      "diagnose_out_of_memory",
    ]);
    const step = prompts[0];
    assert.deepEqual(
      step.arguments?.map((a) => [a.name, a.required]),
      [
        ["performance_path", true],
        ["profiler_path", false],
        ["start_signpost", false],
        ["end_signpost", false],
        ["wall_time_us", false],
      ],
    );
    assert.deepEqual(prompts[1].arguments?.map((a) => [a.name, a.required]), [
      ["profiler_path", true],
    ]);
  } finally {
    await close();
  }
});

Deno.test("each prompt walks the tools by name, in the method's order, with the arguments given", async () => {
  // Prevents a prompt naming a tool the server does not have, or steps out of order.
  const { client, close } = await connect();
  try {
    const step = await client.getPrompt({
      name: "investigate_step_time",
      arguments: {
        performance_path: "/data/run1",
        start_signpost: "PERF_DECODE",
        end_signpost: "PERF_DECODE_END",
        wall_time_us: "27000",
      },
    });
    const text = (step.messages[0].content as { text: string }).text;
    assert.equal(step.messages[0].role, "user");
    const order = [
      "load_report",
      "device_timeline",
      "op_breakdown",
      "top_ops",
      "lower_bounds",
      "core_utilisation",
      "core_spread",
      "core_states",
      "perf_counters",
    ];
    const at = order.map((t) => text.indexOf(t));
    assert.ok(at.every((i) => i >= 0), `every step named: ${at}`);
    assert.deepEqual(at, [...at].sort((a, b) => a - b), "in the method's order");
    assert.match(text, /"\/data\/run1"/);
    assert.match(text, /start_signpost "PERF_DECODE" and end_signpost "PERF_DECODE_END"/);
    assert.match(text, /wall_time_us 27000/);
    assert.match(text, /never by ratio/);
    const oom = await client.getPrompt({
      name: "diagnose_out_of_memory",
      arguments: { profiler_path: "/data/ttnn/run1" },
    });
    const oomText = (oom.messages[0].content as { text: string }).text;
    const path = ["load_report", "errors", "l1_peak", "operation_detail", "dram_fallbacks"];
    const pos = path.map((t) => oomText.indexOf(t));
    assert.deepEqual(pos, [...pos].sort((a, b) => a - b));
    for (const t of [...order, ...path]) assert.ok(TOOL_NAMES.includes(t), `${t} is a tool`);
  } finally {
    await close();
  }
});

Deno.test("an unknown prompt or a missing required argument is an error naming it", async () => {
  // Prevents a silent empty prompt, or one with a hole where the report's path belongs.
  const { client, close } = await connect();
  try {
    await assert.rejects(
      client.getPrompt({ name: "speed_up", arguments: {} }),
      /unknown prompt 'speed_up'; prompts: investigate_step_time, diagnose_out_of_memory/,
    );
    await assert.rejects(
      client.getPrompt({ name: "investigate_step_time", arguments: {} }),
      /needs argument performance_path/,
    );
  } finally {
    await close();
  }
});
