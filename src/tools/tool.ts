/**
 * What a tool is, and what the framework does for every tool so that no tool repeats it: the
 * handler is given its own name and, when its input takes a `handle`, the loaded report behind
 * it (looked up and checked for staleness before the handler runs); it returns a typed answer
 * built as one object; and the answer-level parts every tool may carry (caveats, assumptions,
 * cut lists, next steps) are collected on the context and added to the answer in one place,
 * which also keeps the answer within its size budget by cutting the list the tool names.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { reportTool } from "./tool.ts";
 * import { handleArg } from "./args.ts";
 * interface CountAnswer {
 *   handle: string;
 *   op_count: number;
 * }
 * const countOps = reportTool({
 *   name: "count_ops",
 *   title: "Count the operations",
 *   summary: "How many rows the performance report has.",
 *   description: "How many rows the performance report has.",
 *   input: z.strictObject({ handle: handleArg }),
 *   handler: (args, ctx): CountAnswer => ({
 *     handle: args.handle,
 *     op_count: ctx.report.inventory.performance?.whole?.rows.length ?? 0,
 *   }),
 * });
 * if (countOps.name !== "count_ops") throw new Error();
 * ```
 *
 * @module
 */
import type { z } from "zod";
import type { HandleRegistry, LoadedReport, ReportCall } from "../session/handles.ts";
import type { Artifact, Inventory } from "../session/inventory.ts";
import type { Roots } from "../kit/roots.ts";
import { AnswerParts, type ListField, type PartsWriter } from "./answer_parts.ts";
import { NO_PROGRESS, type Progress } from "../kit/progress.ts";
import { prepareProfilerDb } from "../session/profiler_db.ts";
import { pause } from "../kit/work_clock.ts";
import { dropUnanswerableNext } from "./_next.ts";

/** What the caller of a tool provides (the server, the one-shot call, a test). */
export interface ToolEnvironment {
  registry: HandleRegistry;
  roots: Roots;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** A running TT-NN Visualizer's base URL (`--app-url`), when given. */
  appUrl?: string | null;
  /** Where long work says how far it is (a client's progress token, a terminal's line). */
  progress?: Progress;
}

/** Everything a handler may use besides its arguments. */
export interface CallContext extends ToolEnvironment {
  /** The tool's own name, for the messages it writes. */
  readonly tool: string;
  /** The answer-level parts (caveats, assumptions, cuts, next steps) added to the answer. */
  readonly parts: PartsWriter;
  /** Where long work says how far it is; nothing is sent unless someone asked. */
  readonly progress: Progress;
}

/** The context of a tool that takes a `handle`: the report behind it, checked fresh. */
export interface ReportContext extends CallContext, ReportCall {
  readonly report: LoadedReport;
  readonly signal: AbortSignal;
  readonly progress: Progress;
}

/** The call context its handler is given: its parts may cut the lists of its answer `A`. */
export interface AnswerContext<A extends object> extends CallContext {
  readonly parts: AnswerParts<A>;
}

/** The report context its handler is given: its parts may cut the lists of its answer `A`. */
export interface ReportAnswerContext<A extends object> extends ReportContext {
  readonly parts: AnswerParts<A>;
}

/** A JSON object answer. */
export type Answer = object;

/** One tool of the server. */
export interface Tool {
  readonly name: string;
  readonly title: string;
  /** One line (at most 150 characters): what it answers, for the README and `call --list`. */
  readonly summary: string;
  readonly description: string;
  /** The zod input schema, whose JSON Schema `tools/list` publishes. */
  readonly input: z.ZodType;
  /**
   * Why this tool cannot answer for a loaded report, or `null` when it can. Tools without it
   * (load_report) are never listed in an inventory.
   */
  readonly cannotAnswer?: (inventory: Inventory) => string | null;
  /** The report artifacts this tool reads. */
  readonly reads?: readonly Artifact[];
  /** Runs the tool on arguments its schema has already accepted. */
  run(args: unknown, env: ToolEnvironment): Promise<Answer>;
}

/** What every tool declares besides its handler; `A` is its answer. */
interface Declaration<S extends z.ZodType, A extends object> {
  name: string;
  title: string;
  summary: string;
  description: string;
  input: S;
  cannotAnswer?: (inventory: Inventory) => string | null;
  reads?: readonly Artifact[];
  /**
   * The answer's main list: when the answer's text would pass the size budget, its entries are
   * cut from the end to fit and the cut is said (`cut`). Without it the answer is not cut.
   */
  fitList?: ListField<A>;
}

/** The answer with its parts added, fitted to the budget when the tool names its list. */
function finish<A extends object>(parts: AnswerParts<A>, answer: A, fitList?: ListField<A>): A {
  return fitList === undefined ? parts.addTo(answer) : parts.fit(answer, fitList);
}

/** A tool whose handler takes the call context as it is (load_report, diff_reports). */
export function defineTool<S extends z.ZodType, A extends Answer>(
  spec: Declaration<S, A> & {
    handler(args: z.infer<S>, ctx: AnswerContext<A>): A | Promise<A>;
  },
): Tool {
  const { handler, ...declaration } = spec;
  return {
    ...declaration,
    async run(args, env) {
      const ctx: AnswerContext<A> = {
        ...env,
        tool: spec.name,
        parts: new AnswerParts<A>(),
        progress: env.progress ?? NO_PROGRESS,
      };
      return finish(ctx.parts, await handler(args as z.infer<S>, ctx), spec.fitList);
    },
  };
}

/**
 * A tool on one loaded report: its input takes `handle`, and the handler is given the report,
 * looked up and checked unchanged (an unknown or stale handle is refused before it runs).
 */
export function reportTool<S extends z.ZodType<{ handle: string }>, A extends Answer>(
  spec: Declaration<S, A> & {
    handler(args: z.infer<S>, ctx: ReportAnswerContext<A>): A | Promise<A>;
  },
): Tool {
  const { handler, ...declaration } = spec;
  return {
    ...declaration,
    async run(args, env) {
      // Held for the call: what it reads from (its database connection) stays open meanwhile.
      const lease = await env.registry.lease((args as { handle: string }).handle);
      try {
        const ctx: ReportAnswerContext<A> = {
          ...env,
          tool: spec.name,
          parts: new AnswerParts<A>(),
          progress: env.progress ?? NO_PROGRESS,
          report: lease.report,
        };
        await prepareProfilerDb(ctx);
        // Calls that resume together here (one open awaited, or many sent at once) each start
        // their work in a turn of their own, so input is read between two (kit/work_clock.ts).
        await pause();
        const answer = await handler(args as z.infer<S>, ctx);
        dropUnanswerableNext(ctx.parts, lease.report.inventory);
        return finish(ctx.parts, answer, spec.fitList);
      } finally {
        lease.release();
      }
    },
  };
}
