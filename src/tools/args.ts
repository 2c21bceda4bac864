/**
 * The arguments several tools take, each defined once: the handle, the capped limit, the
 * signpost range, a performance row's id, a device, an op code, a rank and a profiler
 * operation id. A tool that needs a different wording of one says so with `.describe()` on
 * the shared definition, never with a second definition.
 *
 * @module
 */
import { z } from "zod";
import { FIRST_ROW_ID } from "../perf_report/mod.ts";
import { INCLUDE_GROUPS } from "../analysis/include_groups.ts";

/** The most rows or groups any performance answer lists. */
export const MAX_LIMIT = 100;

/**
 * What a flag means to a person at a shell (`call TOOL --help`), kept out of the JSON Schema
 * that tools/list publishes, where the instructions already say it once.
 */
export const flagHelp: z.core.$ZodRegistry<{ help: string }> = z.registry<{ help: string }>();

/** `schema`, with its help for the command line. */
export function helped<T extends z.ZodType>(schema: T, help: string): T {
  flagHelp.add(schema, { help });
  return schema;
}

/**
 * The command-line help of `schema`, or of the schema it wraps (`.optional()`, `.default()`).
 *
 * @example
 * ```ts
 * import { helpOf, rangeArgs } from "./args.ts";
 * if (!helpOf(rangeArgs.start_signpost)?.includes("signpost")) throw new Error();
 * ```
 */
export function helpOf(schema: z.ZodType): string | undefined {
  for (let s: z.ZodType | undefined = schema; s !== undefined;) {
    const found = flagHelp.get(s);
    if (found !== undefined) return found.help;
    s = (s._zod.def as { innerType?: z.ZodType }).innerType;
  }
  return undefined;
}

/** A handle argument (the instructions say where handles come from). */
export const handleArg = z.string();

/**
 * A limit argument: a whole number of at least 1; more than the cap returns the cap. The
 * instructions give the usual cap of 100; a tool with another says so.
 */
export function limitArg(what: string, fallback = 10, cap = MAX_LIMIT) {
  const limit = helped(
    z.number().int().min(1).default(fallback),
    `${what} to list, at most ${cap} (a larger limit lists ${cap}).`,
  );
  return cap === MAX_LIMIT ? limit : limit.describe(`At most ${cap}.`);
}

/** The limit actually applied. */
export function capped(limit: number, cap = MAX_LIMIT): number {
  return Math.min(limit, cap);
}

/**
 * The rows a ranged tool reads, as the instructions say: a signpost range, one pass (load_report
 * lists them) or a row range (CSV lines). Bounds are checked where they are resolved
 * (`analysis/performance.ts`), which refuses with the valid range.
 */
export const rangeArgs = {
  start_signpost: helped(
    z.string().optional(),
    "Read only the rows after this signpost (its earliest occurrence by host start time).",
  ),
  end_signpost: helped(
    z.string().optional(),
    "Read only the rows before this signpost (naming the start signpost means its second " +
      "occurrence).",
  ),
  start_occurrence: helped(
    z.number().int().min(1).optional(),
    "Which occurrence of the start signpost opens the window (1 is the earliest).",
  ),
  pass: helped(
    z.number().int().optional(),
    "One pass (1-based) of a capture that repeats its operation sequence (load_report lists them).",
  ),
  start_row: helped(z.number().int().optional(), "The first CSV line to read."),
  end_row: helped(z.number().int().optional(), "The last CSV line to read."),
};

/** The range arguments a ranged tool takes. */
export interface RangeArgs {
  start_signpost?: string;
  end_signpost?: string;
  start_occurrence?: number;
  pass?: number;
  start_row?: number;
  end_row?: number;
}

/**
 * The range and device arguments given, to pass on as they are in a next step's arguments (so
 * the next call reads the same rows).
 */
export function viewArgsOf(args: RangeArgs & { device?: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [...Object.keys(rangeArgs), "device"] as (keyof typeof args)[]) {
    if (args[k] !== undefined) out[k] = args[k];
  }
  return out;
}

/** The range a ranged tool's arguments ask for (only what was given). */
export function rangeOf(args: RangeArgs): RangeArgs {
  const out: RangeArgs = {
    start_signpost: args.start_signpost,
    end_signpost: args.end_signpost,
  };
  for (const k of ["start_occurrence", "pass", "start_row", "end_row"] as const) {
    if (args[k] !== undefined) out[k] = args[k];
  }
  return out;
}

/**
 * One performance row's id: its line in the CSV, a number or digits in a string (as top_ops
 * gives ids), at least the first data line.
 */
export const perfIdArg = helped(
  z.union([
    z.number().int().min(FIRST_ROW_ID),
    z.string().regex(/^\s*\d+\s*$/),
  ]).optional(),
  "One operation, by the row id top_ops prints.",
);

/** The device (PCIe slot) whose device log an answer reads (default the lowest). */
export const deviceArg = helped(
  z.number().int().optional(),
  "The device (PCIe slot) whose device-log records to read; default the lowest in the report.",
);

/** The device (PCIe slot) whose performance-CSV rows alone to read, unmerged. */
export const csvDeviceArg = helped(
  z.number().int().optional(),
  "Only this device's (PCIe slot's) rows, unmerged; default every device's, merged as " +
    "tt-perf-report merges them.",
);

/** Every instance of one op code. */
export const opCodeArg = helped(
  z.string().min(1).optional(),
  "Every instance of one op code (as top_ops prints it), instead of one row.",
);

/** Only the rows of one op code. */
export const opCodeFilterArg = helped(
  z.string().min(1).optional(),
  "Only the rows of this op code (as top_ops prints it: a matmul or conv with its sizes, or " +
    "the bare op code for all of them).",
);

/** The rank of a multi-host report to read (default 0). */
export const rankArg = helped(
  z.number().int().min(0).optional(),
  "The host of a multi-host report to read; default 0.",
);

/** A profiler operation id, never a performance row id. */
export const operationIdArg = helped(
  z.number().int(),
  "A profiler operation id (find_operations gives them), never a performance row id.",
);

/** The groups of fields a row can add (include_groups.ts says what each holds). */
export const includeArg = helped(
  z.array(z.enum(INCLUDE_GROUPS)).optional(),
  "Groups of fields to add to each row (lists then stop at 25 rows).",
);
