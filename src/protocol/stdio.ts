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

/**
 * How many bytes of answers may wait to be written before the server stops reading requests:
 * a client that sends and never reads stdout then blocks on its own writes, instead of the
 * server holding every answer it will never read.
 */
export const OUTPUT_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * How many tool calls may run at once before the server stops reading requests: a client
 * that floods calls waits for some to answer (a cancellation it sends meanwhile is read when
 * one has), instead of the server holding every call it was sent.
 */
export const MAX_CALLS_IN_FLIGHT = 256;

/** A line writer: lines go out in order, each completely, and it says how much still waits. */
export interface LineWriter {
  send(line: string): void;
  /** Bytes sent but not yet written. */
  waitingBytes(): number;
  /** Resolves once at most `limit` bytes wait to be written. */
  below(limit: number): Promise<void>;
  flushed(): Promise<void>;
}

/** Writes lines to a stream one at a time, in order, each completely. */
export function lineWriter(sink: { write(p: Uint8Array): Promise<number> }): LineWriter {
  let chain = Promise.resolve();
  let broken = false;
  let waiting = 0;
  let wakers: { limit: number; wake: () => void }[] = [];
  return {
    send(line) {
      const bytes = encoder.encode(line + "\n");
      waiting += bytes.length;
      chain = chain.then(async () => {
        try {
          let at = 0;
          while (!broken && at < bytes.length) at += await sink.write(bytes.subarray(at));
        } catch {
          broken = true; // the client went away; nothing left to tell it
        } finally {
          waiting -= bytes.length;
          if (wakers.length > 0) {
            const ready = wakers.filter((w) => waiting <= w.limit);
            wakers = wakers.filter((w) => waiting > w.limit);
            for (const w of ready) w.wake();
          }
        }
      });
    },
    waitingBytes: () => waiting,
    below(limit) {
      if (waiting <= limit) return Promise.resolve();
      return new Promise((wake) => wakers.push({ limit, wake }));
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
  for await (const frame of readFrames(Deno.stdin.readable)) {
    server.receive(frame);
    // Backpressure: no further request is read while the answers already due wait unwritten,
    // or while as many calls run as the server takes at once.
    if (out.waitingBytes() > OUTPUT_LIMIT_BYTES) await out.below(OUTPUT_LIMIT_BYTES);
    if (server.callsInFlight() >= MAX_CALLS_IN_FLIGHT) {
      await server.fewerCallsThan(MAX_CALLS_IN_FLIGHT);
    }
  }
  await server.idle();
  await out.flushed();
}
