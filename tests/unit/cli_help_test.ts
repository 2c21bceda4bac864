/** The command line's help, generated for every tool from the one tool list and its schema. */
import assert from "node:assert/strict";
import { z } from "zod";
import { loadTools } from "../../src/tools/registry.ts";
import { examples, toolHelpText, usageText } from "../../src/cli/tool_help.ts";
import { listText } from "../../src/cli/tool_list.ts";
import { argsFromWords, REPORT_ARGS } from "../../src/cli/tool_flags.ts";
import { AS_BINARY, invocation, parseArgs } from "../../src/cli/args.ts";
import { argSpecs } from "../../src/cli/tool_flags.ts";

const TOOLS = await loadTools();

Deno.test("call TOOL --help gives every tool's description and every argument as a flag", () => {
  // Prevents a tool whose arguments a person can only learn by reading its source, and help
  // that drifts from the schema the server publishes.
  for (const tool of TOOLS) {
    const help = toolHelpText(tool, 80, AS_BINARY);
    assert.ok(help.startsWith(`${tool.name} — ${tool.title}\n`), tool.name);
    // The description, however it is wrapped.
    assert.ok(help.replace(/\s+/g, " ").includes(tool.description.replace(/\s+/g, " ")), tool.name);
    const schema = z.toJSONSchema(tool.input, { io: "input" }) as {
      properties: Record<
        string,
        { enum?: string[]; default?: unknown; items?: { enum?: string[] } }
      >;
    };
    for (const [name, p] of Object.entries(schema.properties)) {
      if (REPORT_ARGS.includes(name)) continue;
      const flag = `--${name.replaceAll("_", "-")}`;
      assert.match(help, new RegExp(`^  ${flag}\\b`, "m"), `${tool.name} ${flag}`);
      for (const value of p.enum ?? p.items?.enum ?? []) {
        assert.ok(help.includes(value), `${tool.name} ${flag} names ${value}`);
      }
      if (p.default !== undefined) {
        assert.ok(
          help.includes(`default ${JSON.stringify(p.default)}`) ||
            help.includes(`${p.default} (default)`),
          `${tool.name} ${flag} names its default`,
        );
      }
    }
    assert.match(help, /Examples:\n {2}ttnn-visualizer-mcp call /, tool.name);
    for (const line of help.split("\n").filter((l) => !l.startsWith("  ttnn-visualizer-mcp"))) {
      assert.ok([...line].length <= 80, `${tool.name}: ${line}`);
    }
  }
});

Deno.test("every tool's help examples are command lines the call accepts", () => {
  // Prevents an example that fails when a person copies it.
  for (const tool of TOOLS) {
    for (const example of examples(tool, AS_BINARY)) {
      const words = example.match(/'[^']*'|\S+/g)!.map((w) => w.replace(/^'(.*)'$/, "$1"));
      const command = parseArgs(words.slice(1));
      assert.equal(command.kind, "call", example);
      if (command.kind !== "call") continue;
      const read = argsFromWords(tool, command.words);
      assert.ok(read.ok, `${example}: ${!read.ok && read.message}`);
      if (tool.name !== "load_report") {
        assert.ok(command.performance.length + command.profiler.length > 0, example);
      }
    }
  }
});

Deno.test("call --list and --help name every tool with its title", () => {
  // Prevents a tool the server offers from being missing from what a person is shown.
  const list = listText(TOOLS);
  const usage = usageText(TOOLS, 80);
  for (const tool of TOOLS) {
    const line = new RegExp(`^  ${tool.name} +${tool.title.replace(/[()]/g, "\\$&")}$`, "m");
    assert.match(list, line, tool.name);
    assert.match(usage, line, tool.name);
  }
});

Deno.test("the binary's --help says what it is, its two commands and three examples", () => {
  // Prevents a first-time user from being shown a usage line with no way in.
  const usage = usageText(TOOLS, 80, AS_BINARY);
  assert.match(usage, /^ttnn-visualizer-mcp — a read-only MCP server over Tenstorrent TT-NN/);
  assert.match(usage, /^ {2}ttnn-visualizer-mcp \[serve\]/m);
  assert.match(usage, /^ {2}ttnn-visualizer-mcp call TOOL \[--FLAG VALUE\]/m);
  const examples = usage.slice(usage.indexOf("Examples")).split("\n")
    .filter((l) => l.startsWith("  ttnn-visualizer-mcp call "));
  assert.equal(examples.length, 3);
  for (const line of usage.split("\n")) assert.ok([...line].length <= 80, line);
});

Deno.test("usage and help name the commands as this process was started", () => {
  // Prevents a reader of `deno task call --help` being told to run a binary they do not have.
  const tasks = invocation("/root/.npm/bin/deno");
  const usage = usageText(TOOLS, 80, tasks);
  assert.match(usage, /^ {2}deno task mcp \[serve\]/m);
  assert.match(usage, /^ {2}deno task call TOOL \[--FLAG VALUE\]/m);
  assert.match(usage, /^ {2}deno task call top_ops --performance/m);
  assert.ok(!/^ {2}ttnn-visualizer-mcp call/m.test(usage), "no binary's command line");
  assert.match(toolHelpText(TOOLS[1], 80, tasks), /^ {2}deno task call top_ops /m);
  assert.match(listText(TOOLS, tasks.call), /deno task call TOOL --help/);
  assert.equal(invocation("C:\\bin\\ttnn-visualizer-mcp.exe").call, "ttnn-visualizer-mcp call");
});

Deno.test("every flag of every tool says what it is for, and a limit says its cap", () => {
  // Prevents a flag listed with its type alone (--start-signpost had no words at all), and a
  // --limit that does not say how many it can list.
  for (const tool of TOOLS) {
    for (const spec of argSpecs(tool)) {
      const words = (spec.help ?? spec.description ?? "").trim();
      assert.ok(words.length > 0, `${tool.name} ${spec.flag} has no description`);
      if (spec.name === "limit") assert.match(words, /[Aa]t most \d+/, `${tool.name} --limit`);
    }
  }
});

Deno.test("a shared flag's help is the one for its tool's kind, not every kind's", () => {
  // Prevents top_ops --help describing --device for device-log tools and performance-CSV tools
  // at once, and --op-code as a core_* tool's "instead of one row".
  const csvTools = ["top_ops", "op_breakdown", "lower_bounds", "diff_reports"];
  for (const tool of TOOLS) {
    for (const spec of argSpecs(tool)) {
      const words = spec.help ?? spec.description ?? "";
      assert.ok(!/\(a [\w-]+ tool:/.test(words), `${tool.name} ${spec.flag}: ${words}`);
      if (!csvTools.includes(tool.name)) continue;
      if (spec.name === "device") assert.match(words, /^Only this device's .* rows, unmerged/);
      if (spec.name === "op_code") assert.match(words, /^Only the rows of this op code/);
    }
  }
  const coreUtil = TOOLS.find((t) => t.name === "core_utilisation")!;
  const device = argSpecs(coreUtil).find((s) => s.name === "device")!;
  assert.match(device.help ?? "", /device-log records/);
});
