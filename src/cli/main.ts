/**
 * The program: parses the command line and runs the server, a one-shot call or the demo.
 *
 * @module
 */
import { parseArgs, USAGE } from "./args.ts";
import { runCall } from "./call.ts";
import { Roots } from "../kit/roots.ts";
import { VERSION } from "../kit/version.ts";
import type { serveStdio } from "../protocol/stdio.ts";
import type { runDemo } from "./demo.ts";

// The server and the demo load every tool; a one-shot call loads only its own (`call.ts`).
// They are named by URL so that Deno does not load them before the program starts (see
// `src/tools/modules.ts`); `deno compile` embeds them (`LAZY_MODULES`, scripts/compile_plan.ts).
const SERVE = new URL("../protocol/stdio.ts", import.meta.url);
const DEMO = new URL("./demo.ts", import.meta.url);

const encoder = new TextEncoder();
const print = (stream: { writeSync(p: Uint8Array): number }) => (text: string) => {
  const bytes = encoder.encode(text + "\n");
  let at = 0;
  while (at < bytes.length) at += stream.writeSync(bytes.subarray(at));
};

/** Runs the program and returns its exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const out = print(Deno.stdout);
  const err = print(Deno.stderr);
  const command = parseArgs(argv);
  switch (command.kind) {
    case "version":
      out(VERSION);
      return 0;
    case "help":
      out(USAGE);
      return 0;
    case "usage_error":
      err(`ttnn-visualizer-mcp: ${command.message}\n\n${USAGE}`);
      return 2;
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
      return await runCall(command, roots, { out, err, pretty: Deno.stdout.isTerminal() });
    case "demo": {
      const demo: { runDemo: typeof runDemo } = await import(DEMO.href);
      return await demo.runDemo(roots, out, err);
    }
  }
}
