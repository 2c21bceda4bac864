/**
 * What a tool is: a name, a title, a description that keeps only what is particular to it,
 * a zod input schema (whose JSON Schema `tools/list` publishes), a handler, and the rule
 * saying whether it can answer for a loaded report.
 *
 * @module
 */
import type { z } from "zod";
import type { HandleRegistry } from "../session/registry.ts";
import type { Artifact, Inventory } from "../session/inventory.ts";
import type { Roots } from "../kit/roots.ts";

/** Everything a handler may use besides its arguments. */
export interface ToolContext {
  registry: HandleRegistry;
  roots: Roots;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** A running TT-NN Visualizer's base URL (`--app-url`), when given. */
  appUrl?: string | null;
}

/** A JSON object answer. */
export type Answer = Record<string, unknown>;

/** One tool of the server. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  handler(args: z.infer<S>, ctx: ToolContext): Answer | Promise<Answer>;
  /**
   * Why this tool cannot answer for a loaded report, or `null` when it can. Tools without it
   * (load_report) are never listed in an inventory.
   */
  cannotAnswer?(inventory: Inventory): string | null;
  /** The report artifacts this tool reads. */
  reads?: readonly Artifact[];
}

/** Declares a tool with its argument types inferred from its schema. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool {
  return tool as unknown as Tool;
}
