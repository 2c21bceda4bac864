/**
 * JSON-RPC 2.0 message shapes and the classification of one decoded frame.
 *
 * @module
 */

/** Standard JSON-RPC error codes the server answers with. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** A request id: JSON-RPC allows strings and numbers. */
export type RequestId = string | number;

/** A frame that asks for an answer. */
export interface Request {
  id: RequestId;
  method: string;
  params: unknown;
}

/** A frame that asks for none. */
export interface Notification {
  method: string;
  params: unknown;
}

/** A JSON-RPC error object. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** What one frame turned out to be. */
export type Classified =
  | { kind: "request"; request: Request }
  | { kind: "notification"; notification: Notification }
  | { kind: "response" } // a client's answer to something we never ask: ignored
  | { kind: "invalid"; id: RequestId | null; error: RpcError };

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes and classifies one frame's bytes.
 *
 * @example
 * ```ts
 * import { classifyFrame } from "./jsonrpc.ts";
 * const c = classifyFrame(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
 * if (c.kind !== "request") throw new Error(c.kind);
 * ```
 */
export function classifyFrame(bytes: Uint8Array): Classified {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return invalid(null, ErrorCode.ParseError, "parse error: the frame is not valid UTF-8");
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (e) {
    return invalid(null, ErrorCode.ParseError, `parse error: ${(e as Error).message}`);
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    const what = Array.isArray(message) ? "an array (batches are not supported)" : typeof message;
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      `invalid request: expected a JSON object, got ${what}`,
    );
  }
  const m = message as Record<string, unknown>;
  const hasId = "id" in m;
  const idOk = typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
  const echoId = idOk ? (m.id as RequestId) : null;
  if (!("method" in m) && ("result" in m || "error" in m)) return { kind: "response" };
  if (m.jsonrpc !== "2.0") {
    return invalid(echoId, ErrorCode.InvalidRequest, `invalid request: "jsonrpc" must be "2.0"`);
  }
  if (typeof m.method !== "string") {
    return invalid(echoId, ErrorCode.InvalidRequest, "invalid request: 'method' must be a string");
  }
  if (hasId && !idOk) {
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      "invalid request: 'id' must be a string or a number",
    );
  }
  if (!hasId) return { kind: "notification", notification: { method: m.method, params: m.params } };
  return {
    kind: "request",
    request: { id: m.id as RequestId, method: m.method, params: m.params },
  };
}

function invalid(id: RequestId | null, code: number, message: string): Classified {
  return { kind: "invalid", id, error: { code, message } };
}

/** A success response frame. */
export function resultFrame(id: RequestId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

/** An error response frame. */
export function errorFrame(id: RequestId | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}
