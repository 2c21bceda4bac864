/**
 * A tool call that fails (not a refusal) is answered `isError` with a message that names the
 * failure — never an empty one, even when what was thrown carried no message.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { callTool } from "../../src/protocol/tool_call.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { HandleRegistry } from "../../src/session/handles.ts";
import { Roots } from "../../src/kit/roots.ts";

const env = {
  registry: new HandleRegistry(),
  roots: Roots.any(),
  signal: new AbortController().signal,
};

/** A tool whose handler throws `thrown`. */
function failing(thrown: unknown) {
  return defineTool({
    name: "failing",
    title: "Failing",
    summary: "Throws.",
    description: "Throws what it is given.",
    input: z.strictObject({}),
    handler(): never {
      throw thrown;
    },
  });
}

Deno.test("a failure thrown without a message is still named by its kind and where it came from", async () => {
  // Prevents "memory_profile failed: " with nothing after it, which tells the agent nothing.
  class NotGrouped extends Error {}
  for (const thrown of [new NotGrouped(), new RangeError(""), ""]) {
    const r = await callTool(failing(thrown), {}, env);
    assert.equal(r.outcome, "error");
    const text = (r.result.content as { text: string }[])[0].text;
    assert.match(text, /^failing failed: an internal \w+ with no message/, text);
  }
  const r = await callTool(failing(new NotGrouped()), {}, env);
  assert.match((r.result.content as { text: string }[])[0].text, /\(at .*tool_failures_test\.ts/);
});

Deno.test("a failure with a message keeps it", async () => {
  // Prevents the guard above replacing a real cause.
  const r = await callTool(failing(new Error("the disk went away")), {}, env);
  assert.equal(
    (r.result.content as { text: string }[])[0].text,
    "failing failed: the disk went away",
  );
});
