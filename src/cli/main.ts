/**
 * The program: parses the command line and runs the server, a one-shot call, the help or the
 * demo.
 *
 * @module
 */
import { invocation, parseArgs, usage } from "./args.ts";
import { runCall } from "./call.ts";
import { detectTerminal, viewOf } from "./terminal.ts";
import { Roots } from "../kit/roots.ts";
import { VERSION } from "../kit/version.ts";
import type { serveStdio } from "../protocol/stdio.ts";
import type { runDemo } from "./demo.ts";
import type * as Help from "./tool_help.ts";
import { loadTool, loadTools } from "../tools/registry.ts";

// The server, the demo and the help load every tool; a one-shot call loads only its own
// (`call.ts`). They are named by URL so that Deno does not load them before the program starts
// (see `src/tools/registry.ts`); `deno compile` embeds them (`LAZY_MODULES`,
// scripts/compile_plan.ts).
const SERVE = new URL("../protocol/stdio.ts", import.meta.url);
const DEMO = new URL("./demo.ts", import.meta.url);
const HELP = new URL("./tool_help.ts", import.meta.url);

const encoder = new TextEncoder();
const write = (stream: { writeSync(p: Uint8Array): number }) => (text: string) => {
  const bytes = encoder.encode(text);
  let at = 0;
  while (at < bytes.length) at += stream.writeSync(bytes.subarray(at));
};
const print = (stream: { writeSync(p: Uint8Array): number }) => (text: string) =>
  write(stream)(text + "\n");

/** Runs the program and returns its exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const out = print(Deno.stdout);
  const err = print(Deno.stderr);
  const command = parseArgs(argv);
  switch (command.kind) {
    case "version":
      out(VERSION);
      return 0;
    case "usage_error":
      err(`ttnn-visualizer-mcp: ${command.message}\n\n${usage()}`);
      return 2;
    case "help":
    case "list_tools":
    case "tool_help":
      return await help(command, out, err);
  }
  let roots: Roots;
  try {
    roots = await Roots.of(command.roots);
  } catch (e) {
    err(`ttnn-visualizer-mcp: ${(e as Error).message}`);
    return 2;
  }
  switch (command.kind) {
    case "serve": {
      const serve: { serveStdio: typeof serveStdio } = await import(SERVE.href);
      await serve.serveStdio(roots, command.appUrl);
      return 0;
    }
    case "call":
      return await runCall(command, roots, {
        out,
        err,
        errRaw: write(Deno.stderr),
        terminal: detectTerminal(),
      });
    case "demo": {
      const demo: { runDemo: typeof runDemo } = await import(DEMO.href);
      return await demo.runDemo(roots, out, err, viewOf(detectTerminal()));
    }
  }
}

/** `--help`, `call --list` and `call TOOL --help`, each generated from the tool list. */
async function help(
  command: { kind: "help" } | { kind: "list_tools" } | { kind: "tool_help"; tool: string },
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  const text: typeof Help = await import(HELP.href);
  const width = detectTerminal().width;
  if (command.kind === "help") out(text.usageText(await loadTools(), width));
  else if (command.kind === "list_tools") out(text.listText(await loadTools(), invocation().call));
  else {
    const tool = await loadTool(command.tool);
    if (tool === undefined) {
      err(`unknown tool '${command.tool}'; call --list lists the tools`);
      return 2;
    }
    out(text.toolHelpText(tool, width));
  }
  return 0;
}
