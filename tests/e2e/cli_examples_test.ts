/**
 * Every example a person is shown — in each tool's `--help`, the binary's `--help` and the
 * README's shell block — run as given on the bundled demo capture, its folders in place of the
 * placeholders.
 */
import assert from "node:assert/strict";
import { REPO, serverArgs } from "../_support/server.ts";
import { DEMO } from "../_support/dirs.ts";
import { loadTools } from "../../src/tools/registry.ts";
import { examples, usageText } from "../../src/cli/tool_help.ts";
import { AS_BINARY } from "../../src/cli/args.ts";

const PERF = `${DEMO}performance`;
const DB = `${DEMO}profiler`;

/** An example's words after the program's, placeholders filled, quotes taken off. */
function wordsOf(line: string): string[] {
  const filled = line.replace(/\s*\|.*$/, "").replace(/#.*$/, "")
    .replaceAll("$PERF", PERF).replaceAll("$DB", DB)
    .replace(/--performance (DIR|BEFORE|AFTER|\/data\/\S+)/g, `--performance ${PERF}`)
    .replace(/--profiler DIR/g, `--profiler ${DB}`)
    .replaceAll("/data/reports/run1", PERF);
  const words = filled.match(/'[^']*'|\S+/g)!.map((w) => w.replace(/^'(.*)'$/, "$1"));
  // `ttnn-visualizer-mcp call …` or `deno task call …`: what follows the command is the same.
  return words[0] === "deno" ? ["call", ...words.slice(3)] : words.slice(1);
}

async function run(words: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: serverArgs(words),
    cwd: REPO,
    stdin: "null",
    stdout: "null",
    env: { NO_COLOR: "1" },
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

/**
 * A refusal that accepted the command line and says only what the demo capture lacks: a tool
 * load_report lists as unanswerable for it (no counters captured), or an id it does not hold
 * (it records no tensors). An argument the tool refuses is not one of these.
 */
function forWhatTheDemoLacks(r: { code: number; stderr: string }): boolean {
  return r.code === 1 &&
    (/^perf_counters cannot answer for report-1: .*no performance-counter rows/.test(r.stderr) ||
      /^no tensor \d+ in this report/.test(r.stderr));
}

/** The README's shell examples that call a tool. */
async function readmeExamples(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.flatMap((b) => b.split("\n"))
    .filter((l) => /^(ttnn-visualizer-mcp|deno task) call /.test(l));
}

Deno.test("every example in help and the README runs as given on the demo capture", async () => {
  // Prevents an example a person copies being refused (core_utilisation's `--perf-id 12
  // --op-code TEXT` was: the two exclude each other, and TEXT names no op code).
  const tools = await loadTools();
  const usage = usageText(tools, 100, AS_BINARY).split("\n")
    .filter((l) => l.startsWith("  ttnn-visualizer-mcp call ") && !l.includes(" TOOL "))
    .map((l) => l.trim());
  const lines = [
    ...tools.flatMap((t) => examples(t, AS_BINARY)),
    ...usage,
    ...(await readmeExamples()),
  ];
  assert.ok(lines.length > 2 * tools.length, `${lines.length} examples`);
  const failed: string[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const batch = lines.slice(i, i + 2);
    const results = await Promise.all(batch.map((l) => run(wordsOf(l))));
    results.forEach((r, j) => {
      if (r.code !== 0 && !forWhatTheDemoLacks(r)) {
        failed.push(`${batch[j]} → exit ${r.code}: ${r.stderr.trim().slice(0, 300)}`);
      }
    });
  }
  assert.deepEqual(failed, []);
});
