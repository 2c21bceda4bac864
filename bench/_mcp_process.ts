/**
 * Bench support: a server process (production flags, optionally under a shell prefix such as
 * `ulimit -n 256`) spoken to in raw JSON-RPC lines, with its resident memory read from /proc.
 *
 * @module
 */
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";

type Message = Record<string, unknown>;

/** One server process. */
export class McpProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting = new Map<number, (m: Message) => void>();
  #next = 1;
  readonly closed: Promise<void>;

  /** Starts `repo`'s mod.ts; `shell` (e.g. `ulimit -n 256`) runs first in `sh -c`. */
  constructor(repo: string, options: { shell?: string; args?: string[] } = {}) {
    const argv = [
      Deno.execPath(),
      "run",
      ...PERMISSION_FLAGS,
      `${repo}/mod.ts`,
      ...(options.args ?? []),
    ];
    const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    this.#child = new Deno.Command(options.shell ? "sh" : argv[0], {
      args: options.shell ? ["-c", `${options.shell}; exec ${quoted}`] : argv.slice(1),
      cwd: repo,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      env: { NO_COLOR: "1" },
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const stdout = this.#child.stdout;
    this.closed = (async () => {
      let buf = "";
      for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const m = JSON.parse(buf.slice(0, nl)) as Message;
          buf = buf.slice(nl + 1);
          this.#waiting.get(m.id as number)?.(m);
          this.#waiting.delete(m.id as number);
        }
      }
    })();
  }

  get pid(): number {
    return this.#child.pid;
  }

  /** Sends a request; resolves with its answer line. */
  request(method: string, params?: unknown): { id: number; done: Promise<Message> } {
    const id = this.#next++;
    const done = new Promise<Message>((r) => this.#waiting.set(id, r));
    this.#writer.write(
      new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
    ).catch(() => {});
    return { id, done };
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    this.#writer.write(
      new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n"),
    ).catch(() => {});
  }

  async initialize(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    }).done;
    this.notify("notifications/initialized");
  }

  /** A tool call: its text and whether it was an error. */
  async call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ isError: boolean; text: string; structured: Message }> {
    const m = await this.request("tools/call", { name, arguments: args }).done;
    const result = m.result as { isError?: boolean; content: { text: string }[] } & Message;
    return {
      isError: result?.isError === true,
      text: result?.content?.[0]?.text ?? JSON.stringify(m.error),
      structured: (result?.structuredContent ?? {}) as Message,
    };
  }

  /** VmRSS and VmHWM in MiB, or null when the process is gone. */
  memory(): { rss: number; peak: number } | null {
    try {
      const status = Deno.readTextFileSync(`/proc/${this.pid}/status`);
      const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
      return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
    } catch {
      return null;
    }
  }

  /** Kills the process (if alive) and waits for it. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.#child.status;
    await this.closed.catch(() => {});
  }

  /** Closes stdin and waits for the exit. */
  async end(): Promise<number> {
    await this.#writer.close().catch(() => {});
    return (await this.#child.status).code;
  }
}

/** Resolves with `p`, or with "timeout" after `ms`. */
export function within<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms))),
  ]).finally(() => clearTimeout(timer));
}
