/**
 * The command line: `[--root DIR]… [serve]`, `call <tool> [json] [--profiler DIR]
 * [--performance DIR]`, `demo`, `--version`, `--help`.
 *
 * @module
 */

/** What the command line asks for. */
export type Command =
  | { kind: "serve"; roots: string[]; appUrl: string | null }
  | {
    kind: "call";
    roots: string[];
    appUrl: string | null;
    tool: string;
    args: string | null;
    profiler: string | null;
    performance: string | null;
  }
  | { kind: "demo"; roots: string[] }
  | { kind: "version" }
  | { kind: "help" }
  | { kind: "usage_error"; message: string };

/** The text `--help` prints. */
export const USAGE = `\
ttnn-visualizer-mcp — a read-only MCP server over Tenstorrent TT-NN reports

Usage:
  ttnn-visualizer-mcp [--root DIR]...            serve MCP on stdin/stdout (what an MCP client runs)
  ttnn-visualizer-mcp call TOOL [JSON] [--profiler DIR] [--performance DIR] [--root DIR]...
                                                 run one tool and print its JSON answer
  ttnn-visualizer-mcp demo                       summarise the bundled sample capture
  ttnn-visualizer-mcp --version | --help

Options:
  --root DIR      load_report refuses any path that does not resolve inside DIR (repeatable;
                  symlinks are followed first). Without it any readable directory can be loaded.
  --app-url URL   a running TT-NN Visualizer: load_report then returns app_link_template, the
                  link that opens a profiler operation there.

With call, a JSON argument carrying profiler_path/performance_path instead of a handle (or the
--profiler/--performance flags) loads the report first, then runs TOOL on the new handle.

Register with Claude Code:  claude mcp add ttnn-visualizer -- ttnn-visualizer-mcp
`;

/**
 * Parses `argv`.
 *
 * @example
 * ```ts
 * import { parseArgs } from "./args.ts";
 * const c = parseArgs(["--root", "/r", "call", "top_ops", "{}", "--performance=/r/p"]);
 * if (c.kind !== "call" || c.performance !== "/r/p" || c.roots[0] !== "/r") throw new Error();
 * ```
 */
export function parseArgs(argv: readonly string[]): Command {
  const roots: string[] = [];
  const positional: string[] = [];
  let profiler: string | null = null;
  let performance: string | null = null;
  let appUrl: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--version" || arg === "-V") return { kind: "version" };
    if (arg === "--help" || arg === "-h") return { kind: "help" };
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
    if (
      flag === "--root" || flag === "--profiler" || flag === "--performance" || flag === "--app-url"
    ) {
      let value: string | undefined;
      if (eq !== -1 && arg.startsWith("--")) value = arg.slice(eq + 1);
      else value = argv[++i];
      if (value === undefined || value === "") {
        return { kind: "usage_error", message: `${flag} needs a directory` };
      }
      if (flag === "--app-url") {
        if (!/^https?:\/\/[^\s]+$/.test(value)) {
          return { kind: "usage_error", message: `--app-url needs an http(s) URL, not ${value}` };
        }
        appUrl = value.replace(/\/+$/, "");
      } else if (flag === "--root") roots.push(value);
      else if (flag === "--profiler") profiler = value;
      else performance = value;
      continue;
    }
    if (arg.startsWith("--")) return { kind: "usage_error", message: `unknown option ${arg}` };
    positional.push(arg);
  }
  const [sub, ...rest] = positional;
  if (sub === undefined || sub === "serve") {
    if (rest.length > 0) return { kind: "usage_error", message: `unexpected argument ${rest[0]}` };
    if (profiler || performance) {
      return { kind: "usage_error", message: "--profiler/--performance go with call" };
    }
    return { kind: "serve", roots, appUrl };
  }
  if (sub === "demo") {
    return rest.length > 0
      ? { kind: "usage_error", message: `unexpected argument ${rest[0]}` }
      : { kind: "demo", roots };
  }
  if (sub === "call") {
    if (rest.length === 0) return { kind: "usage_error", message: "call needs a tool name" };
    if (rest.length > 2) return { kind: "usage_error", message: `unexpected argument ${rest[2]}` };
    return {
      kind: "call",
      roots,
      appUrl,
      tool: rest[0],
      args: rest[1] ?? null,
      profiler,
      performance,
    };
  }
  return { kind: "usage_error", message: `unknown command ${sub}` };
}
