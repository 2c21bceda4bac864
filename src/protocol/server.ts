/**
 * The MCP lifecycle over newline-delimited JSON-RPC: initialize with version negotiation,
 * ping, tools/list and tools/call, notifications (cancellation included) and the error
 * answers for frames that are not requests. Stdout carries protocol only; each tool call's
 * usage event goes to the recorder.
 *
 * @module
 */
import { z } from "zod";
import { classifyFrame, ErrorCode, errorFrame, resultFrame } from "./jsonrpc.ts";
import type { Request, RequestId, RpcError } from "./jsonrpc.ts";
import type { Frame } from "./line_reader.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { SERVER_NAME, SERVER_TITLE, VERSION } from "../kit/version.ts";
import { type CallOutcome, callTool } from "./tool_call.ts";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";
import { describePrompt, getPrompt, PROMPTS } from "./prompts.ts";
import { NO_PROGRESS, type Progress, ThrottledProgress } from "../kit/progress.ts";

/** Protocol revisions the server speaks, newest first. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** What the server needs from its surroundings. */
export interface ServerOptions {
  tools: Tool[];
  context: Omit<ToolEnvironment, "signal">;
  /** Sends one frame (a line without its newline) to the client. */
  send(frame: string): void;
  /** Records one completed tool call (its usage event). */
  recordCall(tool: string, outcome: string, ms: number): void;
}

/** A server bound to one client connection. */
export interface Server {
  /** Handles one frame from the client. Tool calls run in the background. */
  receive(frame: Frame): void;
  /** Resolves once every call in flight has answered. */
  idle(): Promise<void>;
}

/** Creates a server over the given tools. */
export function createServer(options: ServerOptions): Server {
  const { tools, send, recordCall } = options;
  const byName = new Map(tools.map((t) => [t.name, t]));
  /** The protocol revision initialize agreed on (the newest until a client says otherwise). */
  let revision = PROTOCOL_VERSIONS[0];
  const listings = new Map<string, Record<string, unknown>[]>();
  const listing = () => {
    let l = listings.get(revision);
    if (!l) listings.set(revision, l = tools.map((t) => describeTool(t, revision)));
    return l;
  };
  const inFlight = new Map<RequestId, AbortController>();
  const running = new Set<Promise<void>>();

  function reply(id: RequestId, result: unknown) {
    send(resultFrame(id, result));
  }
  function fail(id: RequestId | null, error: RpcError) {
    send(errorFrame(id, error));
  }

  function onRequest(req: Request) {
    switch (req.method) {
      case "initialize": {
        const result = initializeResult(req.params);
        revision = result.protocolVersion as string;
        return reply(req.id, result);
      }
      case "ping":
        return reply(req.id, {});
      case "tools/list":
        return reply(req.id, { tools: listing() });
      case "tools/call":
        return startCall(req);
      case "prompts/list":
        return reply(req.id, { prompts: PROMPTS.map(describePrompt) });
      case "prompts/get":
        return answerPrompt(req);
      default:
        return fail(req.id, {
          code: ErrorCode.MethodNotFound,
          message: `method not found: ${req.method}`,
        });
    }
  }

  function answerPrompt(req: Request) {
    const params = (req.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof params !== "object" || typeof params.name !== "string") {
      return fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: "invalid params: 'name' must be a string",
      });
    }
    const raw = params.arguments ?? {};
    const args: Record<string, string> = {};
    if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
      for (const [k, v] of Object.entries(raw)) if (typeof v === "string") args[k] = v;
    }
    const result = getPrompt(params.name, args);
    if (typeof result === "string") {
      return fail(req.id, { code: ErrorCode.InvalidParams, message: `invalid params: ${result}` });
    }
    reply(req.id, result);
  }

  /** A progress reporter for the call, when the client sent a progress token. */
  function progressFor(params: Record<string, unknown>): ThrottledProgress | null {
    const meta = params._meta as { progressToken?: unknown } | undefined;
    const token = meta?.progressToken;
    if (typeof token !== "string" && typeof token !== "number") return null;
    return new ThrottledProgress((u) =>
      send(JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: u.progress,
          ...(u.total === null ? {} : { total: u.total }),
          message: u.message,
        },
      }))
    );
  }

  function startCall(req: Request) {
    const params = req.params ?? {};
    if (typeof params !== "object" || Array.isArray(params)) {
      return fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: "invalid params: expected an object",
      });
    }
    const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string") {
      return fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: "invalid params: 'name' must be a string",
      });
    }
    const tool = byName.get(name);
    if (!tool) {
      return fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: `unknown tool '${name}'; tools: ${[...byName.keys()].join(", ")}`,
      });
    }
    if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) {
      return fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: "invalid params: 'arguments' must be an object",
      });
    }
    if (inFlight.has(req.id)) {
      return fail(req.id, {
        code: ErrorCode.InvalidRequest,
        message: `invalid request: id ${JSON.stringify(req.id)} is already in flight`,
      });
    }
    const controller = new AbortController();
    inFlight.set(req.id, controller);
    const started = performance.now();
    const progress = progressFor(params as Record<string, unknown>);
    const env = {
      ...options.context,
      signal: controller.signal,
      progress: (progress ?? NO_PROGRESS) as Progress,
    };
    const task = callTool(tool, args ?? {}, env)
      .then((outcome: CallOutcome) => {
        progress?.close();
        inFlight.delete(req.id);
        const ms = Math.round(performance.now() - started);
        // Usage outcomes are ok, refused or error only; a cancelled call is recorded as what it
        // came to, and its answer is not sent.
        recordCall(tool.name, outcome.outcome, ms);
        if (!controller.signal.aborted) reply(req.id, outcome.result);
      })
      .finally(() => running.delete(task));
    running.add(task);
  }

  function onNotification(method: string, params: unknown) {
    if (method === "notifications/cancelled" && typeof params === "object" && params !== null) {
      const id = (params as { requestId?: unknown }).requestId;
      if (typeof id === "string" || typeof id === "number") inFlight.get(id)?.abort();
    }
    // Every other notification (initialized, progress, roots changes …) needs nothing.
  }

  return {
    receive(frame) {
      if (frame.kind === "oversize") {
        return fail(null, {
          code: ErrorCode.InvalidRequest,
          message:
            `invalid request: a frame of ${frame.bytes} bytes exceeds the limit; it was skipped unread`,
        });
      }
      const c = classifyFrame(frame.bytes);
      if (c.kind === "invalid") return fail(c.id, c.error);
      if (c.kind === "notification") {
        return onNotification(c.notification.method, c.notification.params);
      }
      if (c.kind === "request") return onRequest(c.request);
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

/** Answers `initialize`: the client's revision when we speak it, else our newest. */
export function initializeResult(params: unknown): Record<string, unknown> {
  const asked = typeof params === "object" && params !== null
    ? (params as { protocolVersion?: unknown }).protocolVersion
    : undefined;
  const protocolVersion = typeof asked === "string" && PROTOCOL_VERSIONS.includes(asked)
    ? asked
    : PROTOCOL_VERSIONS[0];
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
    serverInfo: { name: SERVER_NAME, title: SERVER_TITLE, version: VERSION },
    instructions: INSTRUCTIONS,
  };
}

/** The first revision whose Tool has a top-level `title`. */
const TOOL_TITLE_REVISION = "2025-06-18";

/**
 * The `tools/list` entry of one tool for a client speaking `revision`: its title at the top
 * level from 2025-06-18 on, in its annotations before (where older clients look for it), and
 * the hints that it only reads and reaches nothing outside the report (a read-only tool's
 * destructiveHint and idempotentHint mean nothing, the spec says, so they are left out).
 */
export function describeTool(
  tool: Tool,
  revision: string = PROTOCOL_VERSIONS[0],
): Record<string, unknown> {
  const schema = compact(z.toJSONSchema(tool.input, { io: "input" })) as Record<string, unknown>;
  delete schema.$schema;
  // Unknown arguments are refused by name on a call; the listing need not say so 20 times.
  delete schema.additionalProperties;
  const titled = revision >= TOOL_TITLE_REVISION;
  return {
    name: tool.name,
    ...(titled ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: schema,
    annotations: {
      ...(titled ? {} : { title: tool.title }),
      readOnlyHint: true,
      openWorldHint: false,
    },
  };
}

/**
 * A JSON Schema without the bounds that only restate a safe integer's range (zod writes them
 * on every `.int()`), which an agent pays for on every listing and learns nothing from.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    out[k] = compact(v);
  }
  return out;
}
