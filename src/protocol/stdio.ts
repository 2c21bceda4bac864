/**
 * Serves MCP on stdin/stdout until stdin ends: frames in, one answer line per request out,
 * diagnostics on stderr.
 *
 * @module
 */
import { readFrames } from "./line_reader.ts";
import { createServer } from "./server.ts";
import { loadTools } from "../tools/registry.ts";
import { HandleRegistry } from "../session/handles.ts";
import type { Roots } from "../kit/roots.ts";
import { SERVER_NAME, VERSION } from "../kit/version.ts";
import { processUsageRecorder } from "./usage.ts";

const encoder = new TextEncoder();

/** Writes lines to a stream one at a time, in order, each completely. */
export function lineWriter(sink: { write(p: Uint8Array): Promise<number> }): {
  send(line: string): void;
  flushed(): Promise<void>;
} {
  let chain = Promise.resolve();
  let broken = false;
  return {
    send(line) {
      const bytes = encoder.encode(line + "\n");
      chain = chain.then(async () => {
        if (broken) return;
        try {
          let at = 0;
          while (at < bytes.length) at += await sink.write(bytes.subarray(at));
        } catch {
          broken = true; // the client went away; nothing left to tell it
        }
      });
    },
    flushed: () => chain,
  };
}

/** Writes one line to stderr. */
export function logLine(line: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // stderr closed: diagnostics are best effort
  }
}

/** Runs the server over this process's stdio; resolves when stdin ends and every call answered. */
export async function serveStdio(roots: Roots, appUrl: string | null = null): Promise<void> {
  const out = lineWriter(Deno.stdout);
  const usage = processUsageRecorder(logLine);
  const server = createServer({
    tools: await loadTools(),
    context: { registry: new HandleRegistry(), roots, appUrl },
    send: out.send,
    recordCall: usage.record,
  });
  logLine(
    `${SERVER_NAME} ${VERSION} serving MCP on stdio` +
      (roots.confined ? `; reports confined to ${roots.dirs.join(", ")}` : ""),
  );
  logLine(usage.startupLine);
  for await (const frame of readFrames(Deno.stdin.readable)) server.receive(frame);
  await server.idle();
  await out.flushed();
}
