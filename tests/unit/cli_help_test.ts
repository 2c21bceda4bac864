/** The command line's help, generated for every tool from the one tool list and its schema. */
import assert from "node:assert/strict";
import { z } from "zod";
import { loadTools } from "../../src/tools/registry.ts";
import { examples, toolHelpText, usageText } from "../../src/cli/tool_help.ts";
import { listText } from "../../src/cli/tool_list.ts";
import { argsFromWords, REPORT_ARGS } from "../../src/cli/tool_flags.ts";
import { parseArgs } from "../../src/cli/args.ts";

const TOOLS = await loadTools();

Deno.test("call TOOL --help gives every tool's description and every argument as a flag", () => {
  // Prevents a tool whose arguments a person can only learn by reading its source, and help
  // that drifts from the schema the server publishes.
  for (const tool of TOOLS) {
    const help = toolHelpText(tool, 80);
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
    for (const example of examples(tool)) {
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
  const usage = usageText(TOOLS, 80);
  assert.match(usage, /^ttnn-visualizer-mcp — a read-only MCP server over Tenstorrent TT-NN/);
  assert.match(usage, /^ {2}ttnn-visualizer-mcp \[serve\]/m);
  assert.match(usage, /^ {2}ttnn-visualizer-mcp call TOOL \[--FLAG VALUE\]/m);
  const examples = usage.slice(usage.indexOf("Examples")).split("\n")
    .filter((l) => l.startsWith("  ttnn-visualizer-mcp call "));
  assert.equal(examples.length, 3);
  for (const line of usage.split("\n")) assert.ok([...line].length <= 80, line);
});
