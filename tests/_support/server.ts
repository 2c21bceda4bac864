/**
 * Test support: the server as a child process with the production permission flags, driven
 * either by the official MCP SDK client (as a real agent would) or by raw lines (to send
 * what no client would).
 */
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@1.32.2/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PERMISSION_FLAGS } from "../../src/kit/permissions.ts";

/** The repository root. */
export const REPO = new URL("../../", import.meta.url).pathname;

/** The command line that runs the server, exactly as `deno task mcp` does. */
export function serverArgs(
  extra: readonly string[] = [],
  moreFlags: readonly string[] = [],
): string[] {
  return ["run", ...PERMISSION_FLAGS, ...moreFlags, `${REPO}mod.ts`, ...extra];
}

/** An SDK client connected to a fresh server process (run under `wrapper`, e.g. strace). */
export async function connect(
  extra: readonly string[] = [],
  wrapper: readonly string[] = [],
): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: wrapper[0] ?? Deno.execPath(),
    args: wrapper.length > 0
      ? [...wrapper.slice(1), Deno.execPath(), ...serverArgs(extra)]
      : serverArgs(extra),
    cwd: REPO,
    stderr: "pipe",
    env: { NO_COLOR: "1", HOME: Deno.env.get("HOME") ?? "/root", PATH: Deno.env.get("PATH") ?? "" },
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "ttnn-visualizer-mcp-tests", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A tool call's structured answer, failing the test when the call was refused. */
export async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} refused: ${(result.content as { text: string }[])[0].text}`);
  }
  return result.structuredContent as Record<string, unknown>;
}

/** A tool call's refusal text, failing the test when the call was answered. */
export async function callRefused(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) {
    throw new Error(`${name} answered: ${JSON.stringify(result.structuredContent)}`);
  }
  return (result.content as { text: string }[])[0].text;
}

/** Deno's own cache directory, so a server run under another HOME does not create one there. */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`;
}

/** A server process spoken to in raw lines. */
export class RawServer {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;
  #stderr: Promise<string>;

  /**
   * `extra` are the server's arguments; `options.flags` adds Deno flags beyond the production
   * list (only tests of what a user may grant use it), `options.env` sets variables and
   * `options.shell` (e.g. `ulimit -n 256`) runs in `sh -c` before the server replaces it.
   */
  constructor(
    extra: readonly string[] = [],
    options: { flags?: readonly string[]; env?: Record<string, string>; shell?: string } = {},
  ) {
    const args = serverArgs(extra, options.flags);
    const quoted = [Deno.execPath(), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
    this.#child = new Deno.Command(options.shell ? "sh" : Deno.execPath(), {
      args: options.shell ? ["-c", `${options.shell}; exec ${quoted.join(" ")}`] : args,
      cwd: REPO,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // Deno keeps its module cache under HOME unless told; a test that moves HOME keeps it.
      env: { NO_COLOR: "1", DENO_DIR: denoDir(), ...options.env },
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = this.#child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())[
      Symbol.asyncIterator
    ]();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  /** The server's process id (the shell's, which the server replaced, under `shell`). */
  get pid(): number {
    return this.#child.pid;
  }

  /**
   * The server's peak resident memory so far, in MiB (Linux: VmHWM of /proc, read by `cat`:
   * Deno lets only a fully privileged process read another's /proc entries itself).
   */
  async peakMiB(): Promise<number> {
    const out = await new Deno.Command("cat", { args: [`/proc/${this.pid}/status`] }).output();
    const status = new TextDecoder().decode(out.stdout);
    return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
  }

  /**
   * Sends `initialize` for `revision`, reads its answer and sends `notifications/initialized`:
   * what a client does before anything else (the server refuses other requests before it).
   */
  async initialize(revision = "2025-11-25", id: number | string = "init"): Promise<void> {
    const r = await this.request(id, "initialize", {
      protocolVersion: revision,
      capabilities: {},
      clientInfo: { name: "ttnn-visualizer-mcp-tests", version: "0.0.0" },
    });
    if (!r.result) throw new Error(`initialize failed: ${JSON.stringify(r)}`);
    await this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** Calls a tool: its structured answer, or its refusal's text. */
  async call(
    id: number,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ ok: true; answer: Record<string, unknown> } | { ok: false; text: string }> {
    const m = await this.request(id, "tools/call", { name, arguments: args });
    const result = m.result as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    return result.isError
      ? { ok: false, text: result.content[0].text }
      : { ok: true, answer: result.structuredContent! };
  }

  /** Writes text as is (add the newline yourself). */
  async write(text: string | Uint8Array): Promise<void> {
    await this.#writer.write(typeof text === "string" ? new TextEncoder().encode(text) : text);
  }

  /** Writes one JSON-RPC message as a line. */
  send(message: unknown): Promise<void> {
    return this.write(JSON.stringify(message) + "\n");
  }

  /** The next line the server writes to stdout, parsed; fails if stdout ends first. */
  async next(): Promise<Record<string, unknown>> {
    return JSON.parse(await this.nextLine());
  }

  /** The next line the server writes to stdout, as written; fails if stdout ends first. */
  async nextLine(): Promise<string> {
    const { value, done } = await this.#lines.next();
    if (done) throw new Error("the server closed stdout");
    return value;
  }

  /** The server's resident memory now, in MiB (VmRSS of /proc, read as `peakMiB` does). */
  async rssMiB(): Promise<number> {
    const out = await new Deno.Command("cat", { args: [`/proc/${this.pid}/status`] }).output();
    const status = new TextDecoder().decode(out.stdout);
    return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
  }

  /** Kills the server (for a test that leaves it blocked) and waits for it to exit. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.#child.status;
    await this.#writer.abort().catch(() => {});
    // What it wrote before it died, read to the end so its pipe closes.
    while (!(await this.#lines.next()).done);
    await this.#stderr;
  }

  /** Sends a request and returns the next line. */
  async request(
    id: number | string,
    method: string,
    params?: unknown,
  ): Promise<Record<string, unknown>> {
    await this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return this.next();
  }

  /** Closes stdin and returns the exit code, everything else on stdout, and stderr. */
  async end(): Promise<{ code: number; rest: string[]; stderr: string }> {
    await this.#writer.close();
    const rest: string[] = [];
    while (true) {
      const { value, done } = await this.#lines.next();
      if (done) break;
      rest.push(value);
    }
    const { code } = await this.#child.status;
    return { code, rest, stderr: await this.#stderr };
  }
}

function splitLines(): TransformStream<string, string> {
  let buffered = "";
  return new TransformStream({
    transform(chunk, controller) {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) !== -1) {
        controller.enqueue(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    },
    flush(controller) {
      if (buffered) controller.enqueue(buffered);
    },
  });
}
