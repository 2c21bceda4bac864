/**
 * Runs one tool call and turns whatever happens into an MCP tool result: the answer as
 * compact JSON text plus `structuredContent`, or `isError: true` with a message naming the
 * problem. Nothing a handler throws escapes as a protocol error.
 *
 * @module
 */
import type { z } from "zod";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";
import { Refusal } from "../kit/refusal.ts";

/** How a call ended, for the usage line. */
export type Outcome = "ok" | "refused" | "error";

/** A tool result and how it ended. */
export interface CallOutcome {
  outcome: Outcome;
  result: Record<string, unknown>;
}

/** Validates `args` against the tool's schema and runs its handler. */
export async function callTool(
  tool: Tool,
  args: unknown,
  env: ToolEnvironment,
): Promise<CallOutcome> {
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    return refused(`bad arguments for ${tool.name}: ${describeIssues(parsed.error)}`);
  }
  try {
    const answer = await tool.run(parsed.data, env);
    return {
      outcome: "ok",
      result: {
        content: [{ type: "text", text: JSON.stringify(answer) }],
        structuredContent: answer,
      },
    };
  } catch (e) {
    if (e instanceof Refusal) return refused(e.message);
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      return refused(
        `${tool.name} cannot read a file this server is not permitted to read: ${messageOf(e)}`,
      );
    }
    return {
      outcome: "error",
      result: errorResult(`${tool.name} failed: ${messageOf(e)}`),
    };
  }
}

function refused(message: string): CallOutcome {
  return { outcome: "refused", result: errorResult(message) };
}

function errorResult(message: string): Record<string, unknown> {
  return { content: [{ type: "text", text: message }], isError: true };
}

function messageOf(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  // Never an empty message: at least what kind of failure it was, and where.
  if (text.trim() === "") {
    const where = e instanceof Error ? e.stack?.split("\n").find((l) => /^\s+at /.test(l)) : null;
    const kind = e instanceof Error ? e.name || e.constructor.name : typeof e;
    return `an internal ${kind} with no message${where ? ` (${where.trim()})` : ""}; ` +
      "please report it with the report that caused it";
  }
  // Deno appends a hint about its own command-line flags; the agent cannot act on it.
  return text.replace(/, run again with the --allow-\w+ flag$/, "");
}

/**
 * One line per schema issue, `path: message`, with the valid choices where the schema has
 * them.
 */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "arguments";
    if (issue.code === "unrecognized_keys") {
      return `unknown argument${issue.keys.length > 1 ? "s" : ""} ${
        issue.keys.map((k) => `'${k}'`).join(", ")
      }`;
    }
    return `${where}: ${issue.message}`;
  }).join("; ");
}
