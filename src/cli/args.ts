/**
 * The command line: `[--root DIR]… [serve]`, `call TOOL [--FLAG VALUE]… [JSON] [--profiler
 * DIR] [--performance DIR] [--json] [--explain]`, `call --list`, `call TOOL --help`, `demo`,
 * `--version`, `--help`. The options every command shares are read here, wherever they stand; the words
 * after `call TOOL` are the tool's own, read against its schema once it is loaded
 * (`tool_flags.ts`).
 *
 * @module
 */

/** The program's name as a person types it. */
export const PROGRAM = "ttnn-visualizer-mcp";

/** How this process was started, as a person types it again: each command's prefix. */
export interface Invocation {
  serve: string;
  call: string;
  demo: string;
}

/** The installed binary. */
export const AS_BINARY: Invocation = {
  serve: PROGRAM,
  call: `${PROGRAM} call`,
  demo: `${PROGRAM} demo`,
};

/** A clone run through deno.json's tasks. */
export const AS_TASKS: Invocation = {
  serve: "deno task mcp",
  call: "deno task call",
  demo: "deno task demo",
};

/**
 * How this process was started: through `deno` (a clone's tasks) or as a compiled binary,
 * named as it is on disk.
 *
 * @example
 * ```ts
 * import { invocation } from "./args.ts";
 * if (invocation("/usr/local/bin/deno").call !== "deno task call") throw new Error();
 * if (invocation("/opt/bin/ttnn-visualizer-mcp").call !== "ttnn-visualizer-mcp call") {
 *   throw new Error();
 * }
 * ```
 */
export function invocation(execPath: string = Deno.execPath()): Invocation {
  const base = execPath.split(/[\\/]/).pop() ?? PROGRAM;
  if (/^deno(\.exe)?$/i.test(base)) return AS_TASKS;
  const name = base.replace(/\.exe$/i, "") || PROGRAM;
  return { serve: name, call: `${name} call`, demo: `${name} demo` };
}

/** The synopsis and commands, printed also after a wrong command line. */
export function synopsis(inv: Invocation = invocation()): string {
  return `\
Usage:
  ${inv.serve} [serve] [--root DIR]... [--app-url URL]
      serve MCP on stdin/stdout (what an MCP client runs)
  ${inv.call} TOOL [--FLAG VALUE]... [--performance DIR]
      [--profiler DIR] [--json] [--explain]
      run one tool on a report and print its answer: a table on a terminal,
      JSON on a pipe
  ${inv.call} --list | ${inv.call} TOOL --help
  ${inv.demo}
  ${inv.serve} --version | --help`;
}

/** What the command line asks for. */
export type Command =
  | { kind: "serve"; roots: string[]; appUrl: string | null }
  | {
    kind: "call";
    roots: string[];
    appUrl: string | null;
    tool: string;
    /** The words after the tool's name: its flags, their values, a JSON object. */
    words: string[];
    /** Each `--profiler DIR` / `--performance DIR`, in order (diff_reports takes two). */
    profiler: string[];
    performance: string[];
    /** `--json`: JSON even on a terminal. */
    json: boolean;
    /** `--explain`: on a terminal, the fixed notes beneath the table too. */
    explain: boolean;
  }
  | { kind: "list_tools" }
  | { kind: "tool_help"; tool: string }
  | { kind: "demo"; roots: string[] }
  | { kind: "version" }
  | { kind: "help" }
  | { kind: "usage_error"; message: string };

/** What a wrong command line is followed by. */
export function usage(inv: Invocation = invocation()): string {
  return `${synopsis(inv)}\n\n--help lists the tools and gives examples.`;
}

/** The options that take a value, wherever they stand. */
const VALUED = ["--root", "--profiler", "--performance", "--app-url"];

/**
 * Parses `argv`.
 *
 * @example
 * ```ts
 * import { parseArgs } from "./args.ts";
 * const c = parseArgs(["--root", "/r", "call", "top_ops", "--limit", "3", "--performance=/r/p"]);
 * if (c.kind !== "call" || c.performance[0] !== "/r/p" || c.words.join(" ") !== "--limit 3") {
 *   throw new Error();
 * }
 * ```
 */
export function parseArgs(argv: readonly string[]): Command {
  const roots: string[] = [];
  const profiler: string[] = [];
  const performance: string[] = [];
  const positional: string[] = [];
  const words: string[] = [];
  let appUrl: string | null = null;
  let help = false;
  let json = false;
  let explain = false;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const calling = positional[0] === "call" && positional.length >= 2;
    if (arg === "--version" || arg === "-V") return { kind: "version" };
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (arg === "--json") {
      json = true;
      continue;
    }
    if (arg === "--explain") {
      explain = true;
      continue;
    }
    if (arg === "--list" && positional[0] === "call") {
      list = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
    if (VALUED.includes(flag)) {
      const value = eq !== -1 && arg.startsWith("--") ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === "") {
        return {
          kind: "usage_error",
          message: `${flag} needs ${flag === "--app-url" ? "a URL" : "a directory"}`,
        };
      }
      if (flag === "--app-url") {
        if (!/^https?:\/\/[^\s]+$/.test(value)) {
          return { kind: "usage_error", message: `--app-url needs an http(s) URL, not ${value}` };
        }
        appUrl = value.replace(/\/+$/, "");
      } else if (flag === "--root") roots.push(value);
      else if (flag === "--profiler") profiler.push(value);
      else performance.push(value);
      continue;
    }
    // After `call TOOL`, every other word is the tool's, read against its schema later.
    if (calling) words.push(arg);
    else if (arg.startsWith("--")) return { kind: "usage_error", message: `unknown option ${arg}` };
    else positional.push(arg);
  }
  const [sub, ...rest] = positional;
  if (sub === "call") {
    return callCommand(rest[0], {
      roots,
      appUrl,
      words,
      profiler,
      performance,
      json,
      explain,
      help,
      list,
    });
  }
  if (help) return { kind: "help" };
  if (json) return { kind: "usage_error", message: "--json goes with call" };
  if (explain) return { kind: "usage_error", message: "--explain goes with call" };
  if (sub === undefined || sub === "serve") {
    if (rest.length > 0) return { kind: "usage_error", message: `unexpected argument ${rest[0]}` };
    if (profiler.length > 0 || performance.length > 0) {
      return { kind: "usage_error", message: "--profiler/--performance go with call" };
    }
    return { kind: "serve", roots, appUrl };
  }
  if (sub === "demo") {
    return rest.length > 0
      ? { kind: "usage_error", message: `unexpected argument ${rest[0]}` }
      : { kind: "demo", roots };
  }
  return { kind: "usage_error", message: `unknown command ${sub}` };
}

/** The `call` command once the shared options are read. */
function callCommand(
  tool: string | undefined,
  o: {
    roots: string[];
    appUrl: string | null;
    words: string[];
    profiler: string[];
    performance: string[];
    json: boolean;
    explain: boolean;
    help: boolean;
    list: boolean;
  },
): Command {
  if (o.list || (o.help && tool === undefined)) return { kind: "list_tools" };
  if (tool === undefined) {
    return { kind: "usage_error", message: "call needs a tool name (call --list lists them)" };
  }
  if (o.help) return { kind: "tool_help", tool };
  return {
    kind: "call",
    roots: o.roots,
    appUrl: o.appUrl,
    tool,
    words: o.words,
    profiler: o.profiler,
    performance: o.performance,
    json: o.json,
    explain: o.explain,
  };
}
