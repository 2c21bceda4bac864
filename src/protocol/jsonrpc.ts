/**
 * JSON-RPC 2.0 message shapes and the classification of one decoded frame.
 *
 * @module
 */
import { arrayElements, idKey, isIdText, objectMembers } from "./json_text.ts";

/** Standard JSON-RPC error codes the server answers with. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP's code for a `resources/read` of a uri the server has no resource for. */
  ResourceNotFound: -32002,
} as const;

/**
 * A request id as the client wrote it: answers echo its text byte for byte (an integer of
 * 2^64 stays 18446744073709551616), and calls in flight are told apart by its key.
 */
export interface RequestId {
  /** The id's JSON text, exactly as sent. */
  raw: string;
  /** What identifies it among calls in flight (see `idKey`). */
  key: string;
}

/** A frame that asks for an answer. */
export interface Request {
  id: RequestId;
  method: string;
  params: unknown;
  /** The params' JSON text as sent, when there are params. */
  paramsText: string | undefined;
}

/** A frame that asks for none. */
export interface Notification {
  method: string;
  params: unknown;
  paramsText: string | undefined;
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
  | { kind: "batch"; elements: string[] } // a JSON array: each element's text
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
  return classifyText(text);
}

/** Classifies one message's JSON text (a frame, or one element of a batch). */
export function classifyText(text: string): Classified {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (e) {
    return invalid(null, ErrorCode.ParseError, `parse error: ${(e as Error).message}`);
  }
  if (Array.isArray(message)) return { kind: "batch", elements: arrayElements(text) };
  if (typeof message !== "object" || message === null) {
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      `invalid request: expected a JSON object, got ${typeof message}`,
    );
  }
  const m = message as Record<string, unknown>;
  const members = objectMembers(text);
  const idText = members.get("id");
  const idOk = idText !== undefined && isIdText(idText);
  const echoId = idOk ? requestId(idText) : null;
  if (!("method" in m) && ("result" in m || "error" in m)) return { kind: "response" };
  if (m.jsonrpc !== "2.0") {
    return invalid(echoId, ErrorCode.InvalidRequest, `invalid request: "jsonrpc" must be "2.0"`);
  }
  if (typeof m.method !== "string") {
    return invalid(echoId, ErrorCode.InvalidRequest, "invalid request: 'method' must be a string");
  }
  if (idText !== undefined && !idOk) {
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      "invalid request: 'id' must be a string or a number",
    );
  }
  const paramsText = members.get("params");
  if (echoId === null) {
    return {
      kind: "notification",
      notification: { method: m.method, params: m.params, paramsText },
    };
  }
  return {
    kind: "request",
    request: { id: echoId, method: m.method, params: m.params, paramsText },
  };
}

/** The id whose JSON text is `raw` (a string or a number, as `isIdText` checks). */
export function requestId(raw: string): RequestId {
  return { raw, key: idKey(raw) };
}

function invalid(id: RequestId | null, code: number, message: string): Classified {
  return { kind: "invalid", id, error: { code, message } };
}

/** A success response frame. */
export function resultFrame(id: RequestId, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${id.raw},"result":${JSON.stringify(result)}}`;
}

/** An error response frame. */
export function errorFrame(id: RequestId | null, error: RpcError): string {
  return `{"jsonrpc":"2.0","id":${id === null ? "null" : id.raw},"error":${JSON.stringify(error)}}`;
}
