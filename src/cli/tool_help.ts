/**
 * Help a person reads at a shell, generated from the one tool list and each tool's input
 * schema so it cannot drift from what the server offers: the binary's `--help` (what it is,
 * its two commands, the tools, examples), `call --list` (every tool with its title) and
 * `call TOOL --help` (its description, every flag with its type, default and allowed values,
 * the report it reads, and examples).
 *
 * @module
 */
import type { Tool } from "../tools/tool.ts";
import { type ArgSpec, argSpecs, reportArgsOf } from "./tool_flags.ts";
import { pad, wrap } from "./render/text.ts";
import { type Invocation, invocation, PROGRAM, synopsis } from "./args.ts";
import { toolList } from "./tool_list.ts";
import { filesOf } from "../session/report_files.ts";

export { listText } from "./tool_list.ts";

/** The options every command line may carry. */
const GLOBAL_OPTIONS: [string, string][] = [
  [
    "--root DIR",
    "load_report refuses any path that does not resolve inside DIR (repeatable; symlinks are " +
    "followed first). Without it any readable directory can be loaded.",
  ],
  [
    "--app-url URL",
    "a running TT-NN Visualizer: load_report then returns app_link_template, the link that " +
    "opens a profiler operation there.",
  ],
  ["--json", "with call: print the JSON answer even on a terminal (a pipe always gets JSON)."],
  [
    "--explain",
    "with call on a terminal: also print the fixed notes (how to read any such answer) beneath " +
    "the table.",
  ],
];

/** A two-column list: terms padded to one width, their text wrapped beside them. */
function described(rows: readonly [string, string][], width: number, indent = "  "): string[] {
  const termWidth = Math.min(24, Math.max(...rows.map(([t]) => t.length)));
  const hang = " ".repeat(indent.length + termWidth + 2);
  return rows.flatMap(([term, text]) => {
    if (term.length > termWidth) return [`${indent}${term}`, ...wrap(text, width, hang)];
    const lines = wrap(text, width, hang);
    lines[0] = `${indent}${pad(term, termWidth)}  ${lines[0].trimStart()}`;
    return lines;
  });
}

/** The value placeholder a flag's help shows. */
function metavar(spec: ArgSpec): string {
  switch (spec.kind) {
    case "integer":
      return "N";
    case "number":
      return "X";
    case "id":
      return "ROW";
    case "boolean":
      return "";
    case "list":
      return "A,B";
    default:
      return spec.values ? "VALUE" : spec.name.endsWith("signpost") ? "SIGNPOST" : "TEXT";
  }
}

/** A flag's type, default and allowed values, in words. */
function typeText(spec: ArgSpec): string {
  const parts: string[] = [];
  if (spec.values) {
    parts.push(
      `${spec.kind === "list" ? "any of" : "one of"}: ${
        spec.values.map((v) => (v === spec.default ? `${v} (default)` : v)).join(", ")
      }`,
    );
  } else {
    const kind = {
      integer: "a whole number",
      number: "a number",
      id: "a performance row id (its CSV line)",
      boolean: "on when given",
      list: "a comma-separated list",
      string: "",
    }[spec.kind];
    const bound = (spec.minimum !== undefined
      ? ` ≥ ${spec.minimum}`
      : spec.exclusiveMinimum !== undefined
      ? ` > ${spec.exclusiveMinimum}`
      : "") + (spec.maximum !== undefined ? ` and ≤ ${spec.maximum}` : "");
    if (kind) {
      parts.push(kind + bound);
    }
    if (spec.default !== undefined) {
      parts.push(`default ${JSON.stringify(spec.default)}`);
    }
  }
  if (spec.required) parts.push("required");
  return parts.length > 0 ? parts.join("; ") + "." : "";
}

/** The flags naming the report a tool reads, with what each directory holds. */
export function reportFlags(tool: Pick<Tool, "name" | "input" | "reads">): [string, string][] {
  const args = reportArgsOf(tool);
  const reads: readonly string[] = tool.reads ?? [];
  const [csv, ...logs] = filesOf("performance");
  const [db, ...besideDb] = filesOf("profiler");
  const performance: [string, string] = [
    "--performance DIR",
    `a performance report folder: ${csv.cliName}` +
    logs.filter((k) => reads.includes(k.key)).map((k) => ` and ${k.cliName} (${k.title})`).join(
      "",
    ) +
    ".",
  ];
  const others = [...db.beside, ...besideDb.map((k) => k.cliName)];
  const profiler: [string, string] = [
    "--profiler DIR",
    `a TT-NN profiler report folder: ${db.cliName}` +
    (others.length > 0 ? ` (and ${others.join(", ")})` : "") + ".",
  ];
  if (args.includes("handle_a")) {
    return [[
      "--performance DIR",
      "twice: the report before the change, then the report after it (each a folder holding " +
      `${csv.cliName}).`,
    ]];
  }
  if (args.includes("profiler_path")) return [performance, profiler];
  if (!args.includes("handle")) return [];
  const out: [string, string][] = [];
  const readsOf = (side: "performance" | "profiler") =>
    filesOf(side).some((k) => reads.includes(k.key));
  if (readsOf("performance")) out.push(performance);
  if (readsOf("profiler")) out.push(profiler);
  if (out.length === 1 && out[0] === performance && reads.includes("performance_csv")) {
    out.push([
      "--profiler DIR",
      "optional: the profiler report of the same run, to link rows to profiler operation ids.",
    ]);
  }
  return out;
}

/** A sample value for `spec` in an example. */
function sample(spec: ArgSpec): string | null {
  if (spec.values) {
    const other = spec.values.find((v) => v !== spec.default) ?? spec.values[0];
    return spec.kind === "list" ? spec.values.slice(0, 2).join(",") : other;
  }
  switch (spec.kind) {
    case "integer":
      // A device is a PCIe slot, and every capture has slot 0; its schema sets no minimum
      // (an unknown device is refused with the devices the report holds).
      if (spec.name === "device") return "0";
      return spec.default !== undefined
        ? "3"
        : String(spec.minimum !== undefined && spec.minimum >= 0 ? spec.minimum : 1);
    case "id":
      return "12";
    case "number":
      return "1000";
    case "boolean":
      return "";
    default:
      return metavar(spec);
  }
}

/** The examples of calling `tool`: with flags, and with the JSON argument form. */
export function examples(
  tool: Pick<Tool, "name" | "input" | "reads">,
  inv: Invocation = invocation(),
): string[] {
  const specs = argSpecs(tool);
  const report = reportFlags(tool).filter(([, text]) => !text.startsWith("optional"))
    .map(([flag]) => flag);
  const where = reportArgsOf(tool).includes("handle_a")
    ? "--performance BEFORE --performance AFTER"
    : report.join(" ");
  // Required flags first, then those with choices, then those with a default; a free-text
  // flag (an op code, a signpost) only when required, since no sample of one would run.
  const rank = (s: ArgSpec) => s.required ? 0 : s.values ? 1 : s.default !== undefined ? 2 : 3;
  const runnable = (s: ArgSpec) => s.required || s.kind !== "string" || s.values !== undefined;
  const chosen = specs.filter(runnable).sort((a, b) => rank(a) - rank(b)).slice(0, 2);
  const flags = chosen.map((s) => `${s.flag}${sample(s) ? ` ${sample(s)}` : ""}`).join(" ");
  const first = chosen[0];
  const json = first === undefined ? null : `'${
    JSON.stringify({
      [first.name]: first.kind === "list" ? sample(first)!.split(",") : jsonSample(first),
    })
  }'`;
  return [
    `${inv.call} ${tool.name} ${where}${flags ? ` ${flags}` : ""}`.replace(/ +/g, " ").trim(),
    ...(json ? [`${inv.call} ${tool.name} ${where} ${json}`.replace(/ +/g, " ")] : []),
  ];
}

function jsonSample(spec: ArgSpec): unknown {
  const s = sample(spec);
  if (spec.kind === "integer" || spec.kind === "number" || spec.kind === "id") return Number(s);
  if (spec.kind === "boolean") return true;
  return s;
}

/** The report flags of `tool`'s usage line: required ones bare, optional ones in brackets. */
function synopsisOf(tool: Pick<Tool, "name" | "input" | "reads">): string {
  const args = reportArgsOf(tool);
  if (args.includes("handle_a")) return "--performance BEFORE --performance AFTER";
  if (args.includes("profiler_path")) return "[--performance DIR] [--profiler DIR]";
  return reportFlags(tool).map(([flag, text]) => text.startsWith("optional") ? `[${flag}]` : flag)
    .join(" ");
}

/** The text `call TOOL --help` prints. */
export function toolHelpText(
  tool: Pick<Tool, "name" | "title" | "description" | "input" | "reads">,
  width: number,
  inv: Invocation = invocation(),
): string {
  const specs = argSpecs(tool);
  const report = reportFlags(tool);
  return [
    `${tool.name} — ${tool.title}`,
    "",
    ...wrap(tool.description, width),
    "",
    "Usage:",
    "  " +
    `${inv.call} ${tool.name} ${synopsisOf(tool)}${specs.length > 0 ? " [FLAGS]" : ""} [--json]`
      .replace(/ +/g, " "),
    ...(report.length > 0 ? ["", "Report:", ...described(report, width)] : []),
    "",
    "Flags:",
    ...(specs.length === 0 ? ["  none of its own"] : described(
      specs.map((s): [string, string] => [
        `${s.flag}${metavar(s) ? ` ${metavar(s)}` : ""}`,
        [typeText(s), s.help ?? s.description ?? ""].filter((t) => t !== "").join(" "),
      ]),
      width,
    )),
    "",
    "Output: a table on a terminal, JSON on a pipe; --json forces JSON.",
    "",
    "Examples:",
    ...examples(tool, inv).map((e) => `  ${e}`),
  ].join("\n");
}

/** The binary's `--help`: what it is, its two commands, the tools, three examples. */
export function usageText(
  tools: readonly Pick<Tool, "name" | "title">[],
  width: number,
  inv: Invocation = invocation(),
): string {
  return [
    ...wrap(
      `${PROGRAM} — a read-only MCP server over Tenstorrent TT-NN reports (tt-perf-report's ` +
        "performance CSV, the device profiler log, the TT-NN profiler database), and a command " +
        "line that asks a report one question. It reads reports; it never writes, connects or " +
        "runs anything.",
      width,
    ),
    "",
    synopsis(inv),
    "",
    "Options:",
    ...described(GLOBAL_OPTIONS, width),
    "",
    `Tools (${inv.call} TOOL --help gives one's flags):`,
    ...toolList(tools),
    "",
    ...wrap(
      "Examples, where PERF is a performance report folder (generated/profiler/reports/RUN) " +
        "and DB a TT-NN profiler report folder (generated/ttnn/reports/RUN):",
      width,
    ),
    `  ${inv.call} top_ops --performance $PERF --limit 5`,
    `  ${inv.call} core_utilisation --performance $PERF --perf-id 24`,
    `  ${inv.call} l1_peak --profiler $DB | jq .l1`,
    "",
    `Register with Claude Code: claude mcp add ttnn-visualizer -- ${PROGRAM}`,
  ].join("\n");
}
