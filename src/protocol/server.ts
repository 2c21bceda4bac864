/**
 * The MCP lifecycle over newline-delimited JSON-RPC, by the revision negotiated: initialize
 * first and once, ping, tools/list and tools/call, prompts, resources (the notes and the answer
 * schemas), notifications (cancellation included), batches where the revision has them, and
 * the error answers for frames that are not requests. Stdout carries protocol only; each tool
 * call's usage event goes to the recorder.
 *
 * @module
 */
import { z } from "zod";
import {
  classifyFrame,
  classifyText,
  ErrorCode,
  errorFrame,
  requestId,
  resultFrame,
} from "./jsonrpc.ts";
import type { Classified, Request, RequestId, RpcError } from "./jsonrpc.ts";
import { type Frame, MAX_FRAME_BYTES } from "./line_reader.ts";
import { idKey, idOfCutFrame, isIdText, objectMembers } from "./json_text.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { SERVER_NAME, SERVER_TITLE, VERSION } from "../kit/version.ts";
import { type CallOutcome, callTool } from "./tool_call.ts";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";
import { describePrompt, getPrompt, PROMPTS } from "./prompts.ts";
import { describeResource, readResource, RESOURCES } from "./resources.ts";
import { NO_PROGRESS, type Progress, ThrottledProgress } from "../kit/progress.ts";

/** Protocol revisions the server speaks, newest first. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/**
 * The one revision with JSON-RPC batches: 2025-03-26 added them (its base protocol: receiving
 * them is a MUST) and 2025-06-18 removed them.
 */
export const BATCH_REVISION = "2025-03-26";

/**
 * The most messages one batch may hold: every element is answered in one line, so a batch is
 * bounded like the output a single frame may cause.
 */
export const MAX_BATCH_MESSAGES = 64;

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
  /** How many tool calls are running. */
  callsInFlight(): number;
  /** Resolves once fewer than `limit` tool calls are running. */
  fewerCallsThan(limit: number): Promise<void>;
  /** Resolves once every call in flight has answered. */
  idle(): Promise<void>;
}

/** An answer: the frame to send (null for none), now or once a call ends. */
type Answer = string | null | Promise<string | null>;

/** Creates a server over the given tools. */
export function createServer(options: ServerOptions): Server {
  const { tools, send, recordCall } = options;
  const byName = new Map(tools.map((t) => [t.name, t]));
  /** The protocol revision initialize agreed on; null until initialize is answered. */
  let revision: string | null = null;
  const listings = new Map<string, Record<string, unknown>[]>();
  const listing = (at: string) => {
    let l = listings.get(at);
    if (!l) listings.set(at, l = tools.map((t) => describeTool(t, at)));
    return l;
  };
  /** Calls in flight by their id's key. */
  const inFlight = new Map<string, AbortController>();
  const running = new Set<Promise<unknown>>();

  const reply = (id: RequestId, result: unknown) => resultFrame(id, result);
  const fail = (id: RequestId | null, error: RpcError) => errorFrame(id, error);
  const invalidRequest = (id: RequestId | null, message: string) =>
    fail(id, { code: ErrorCode.InvalidRequest, message: `invalid request: ${message}` });

  function onRequest(req: Request, inBatch: boolean): Answer {
    if (req.method === "initialize") {
      if (inBatch) {
        return invalidRequest(
          req.id,
          "initialize must not be part of a batch; send it alone, as the session's first request",
        );
      }
      if (revision !== null) {
        return invalidRequest(
          req.id,
          `initialize was already answered (revision ${revision}); a session keeps the revision ` +
            "it negotiated: start a new server process to negotiate another",
        );
      }
      const result = initializeResult(req.params);
      revision = result.protocolVersion as string;
      return reply(req.id, result);
    }
    if (req.method === "ping") return reply(req.id, {});
    if (revision === null) {
      // The lifecycle: nothing but a ping before initialize has been answered.
      return invalidRequest(
        req.id,
        `'${req.method}' before initialize; send initialize first (only ping may precede it)`,
      );
    }
    switch (req.method) {
      case "tools/list":
        return reply(req.id, { tools: listing(revision) });
      case "tools/call":
        return startCall(req);
      case "prompts/list":
        return reply(req.id, { prompts: PROMPTS.map(describePrompt) });
      case "prompts/get":
        return answerPrompt(req);
      case "resources/list":
        return reply(req.id, { resources: RESOURCES.map(describeResource) });
      case "resources/templates/list":
        return reply(req.id, { resourceTemplates: [] });
      case "resources/read":
        return answerRead(req);
      default:
        return fail(req.id, {
          code: ErrorCode.MethodNotFound,
          message: `method not found: ${req.method}`,
        });
    }
  }

  async function answerRead(req: Request): Promise<string> {
    const params = (req.params ?? {}) as { uri?: unknown };
    if (typeof params !== "object" || typeof params.uri !== "string") {
      return fail(req.id, {
        code: ErrorCode.InvalidParams,
        message: "invalid params: 'uri' must be a string",
      });
    }
    const result = await readResource(params.uri);
    if (result === undefined) {
      return fail(req.id, {
        code: ErrorCode.ResourceNotFound,
        message: `resource not found: ${params.uri}; resources/list gives the uris`,
        data: { uri: params.uri },
      });
    }
    return reply(req.id, result);
  }

  function answerPrompt(req: Request): Answer {
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
    return reply(req.id, result);
  }

  /**
   * A progress reporter for the call, when the client sent a progress token (echoed as it
   * was written, like an id).
   */
  function progressFor(req: Request): ThrottledProgress | null {
    const meta = req.paramsText === undefined
      ? undefined
      : objectMembers(req.paramsText).get("_meta");
    const token = meta === undefined ? undefined : objectMembers(meta).get("progressToken");
    if (token === undefined || !isIdText(token)) return null;
    return new ThrottledProgress((u) =>
      send(
        `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},` +
          JSON.stringify({
            progress: u.progress,
            ...(u.total === null ? {} : { total: u.total }),
            message: u.message,
          }).slice(1) + "}",
      )
    );
  }

  function startCall(req: Request): Answer {
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
    if (inFlight.has(req.id.key)) {
      return invalidRequest(req.id, `id ${req.id.raw} is already in flight`);
    }
    const controller = new AbortController();
    inFlight.set(req.id.key, controller);
    const started = performance.now();
    const progress = progressFor(req);
    const env = {
      ...options.context,
      signal: controller.signal,
      progress: (progress ?? NO_PROGRESS) as Progress,
    };
    const task = callTool(tool, args ?? {}, env)
      .then((outcome: CallOutcome) => {
        progress?.close();
        inFlight.delete(req.id.key);
        const ms = Math.round(performance.now() - started);
        // Usage outcomes are ok, refused or error only; a cancelled call is recorded as what it
        // came to, and its answer is not sent.
        recordCall(tool.name, outcome.outcome, ms);
        return controller.signal.aborted ? null : reply(req.id, outcome.result);
      })
      .finally(() => running.delete(task));
    running.add(task);
    return task;
  }

  function onNotification(method: string, paramsText: string | undefined) {
    if (method === "notifications/cancelled" && paramsText !== undefined) {
      const id = objectMembers(paramsText).get("requestId");
      if (id !== undefined && isIdText(id)) inFlight.get(idKey(id))?.abort();
    }
    // Every other notification (initialized, progress, roots changes …) needs nothing.
  }

  /** The answer to one message (a frame, or one element of a batch). */
  function answer(c: Classified, inBatch: boolean): Answer {
    switch (c.kind) {
      case "invalid":
        return fail(c.id, c.error);
      case "notification":
        onNotification(c.notification.method, c.notification.paramsText);
        return null;
      case "request":
        return onRequest(c.request, inBatch);
      case "response":
        return null;
      case "batch":
        return inBatch
          ? invalidRequest(null, "a batch inside a batch; each element must be one message")
          : answerBatch(c.elements);
    }
  }

  /** A batch: refused unless the revision has batches, else one array of its answers. */
  function answerBatch(elements: string[]): Answer {
    if (revision !== BATCH_REVISION) {
      const why = revision === null
        ? "before initialize (which must come alone)"
        : `under revision ${revision}; JSON-RPC batches exist only in ${BATCH_REVISION}`;
      return invalidRequest(null, `a batch ${why}; send each message as its own line`);
    }
    if (elements.length === 0) return invalidRequest(null, "an empty batch");
    if (elements.length > MAX_BATCH_MESSAGES) {
      return invalidRequest(
        null,
        `a batch of ${elements.length} messages is over the limit of ${MAX_BATCH_MESSAGES}; ` +
          "split it",
      );
    }
    const answers = elements.map((text) => answer(classifyText(text), true));
    const join = (lines: (string | null)[]) => {
      const sent = lines.filter((l) => l !== null);
      // A batch of notifications alone is answered with nothing at all.
      return sent.length === 0 ? null : `[${sent.join(",")}]`;
    };
    if (answers.every((a) => !(a instanceof Promise))) return join(answers as (string | null)[]);
    const all = Promise.all(answers).then(join).finally(() => running.delete(all));
    running.add(all);
    return all;
  }

  function deliver(a: Answer) {
    if (a instanceof Promise) a.then((line) => line !== null && send(line));
    else if (a !== null) send(a);
  }

  return {
    receive(frame) {
      if (frame.kind === "oversize") {
        const raw = idOfCutFrame(frame.head, frame.tail);
        return deliver(invalidRequest(
          raw === null ? null : requestId(raw),
          `a frame of ${frame.bytes} bytes is over the limit of ${MAX_FRAME_BYTES} bytes; it ` +
            "was skipped unread: send a smaller request",
        ));
      }
      deliver(answer(classifyFrame(frame.bytes), false));
    },
    callsInFlight: () => inFlight.size,
    async fewerCallsThan(limit) {
      while (inFlight.size >= limit && running.size > 0) await Promise.race(running);
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
    capabilities: {
      tools: { listChanged: false },
      prompts: { listChanged: false },
      resources: { listChanged: false, subscribe: false },
    },
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
