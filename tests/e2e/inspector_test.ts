import assert from "node:assert/strict";
import { REPO, serverArgs } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";

// The MCP Inspector CLI is a client nobody in this project wrote. `.ci/run` installs it from
// npm and points INSPECTOR_BIN at it; without it this test says so and is skipped.
const inspector = Deno.env.get("INSPECTOR_BIN");
if (!inspector) {
  console.error("skipped: INSPECTOR_BIN not set (the MCP Inspector CLI is not installed)");
}

async function inspect(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const { code, stdout, stderr } = await new Deno.Command(inspector!, {
    args: ["--cli", "--format", "json", Deno.execPath(), ...serverArgs(), ...args],
    cwd: REPO,
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (!text.trim()) {
    throw new Error(`inspector printed nothing: ${new TextDecoder().decode(stderr)}`);
  }
  return { code, json: JSON.parse(text) };
}

Deno.test({
  name: "the MCP Inspector CLI lists the tools and passes its portability lint",
  ignore: !inspector,
  async fn() {
    // Prevents a server that only our own harness can talk to.
    const { code, json } = await inspect(["--method", "tools/list", "--strict"]);
    assert.equal(code, 0);
    const tools = (json.result as { tools: { name: string }[] }).tools;
    assert.equal(tools[0].name, "load_report");
  },
});

Deno.test({
  name: "the MCP Inspector CLI calls load_report and reads the structured answer",
  ignore: !inspector,
  async fn() {
    // Prevents a tool answer that a generic client cannot parse.
    const args = JSON.stringify({ performance_path: `${DEMO}performance` });
    const { code, json } = await inspect([
      "--method",
      "tools/call",
      "--tool-name",
      "load_report",
      "--tool-args-json",
      args,
    ]);
    assert.equal(code, 0);
    const result = json.result as { structuredContent: { handle: string } };
    assert.equal(result.structuredContent.handle, "report-1");
  },
});
