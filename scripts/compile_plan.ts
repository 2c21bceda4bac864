/**
 * What `deno task compile` builds: one `deno compile` invocation per target, each with the
 * server's permission flags baked in and the demo capture embedded. Pure, so the assembly is
 * tested without the runtime download compiling needs.
 *
 * @module
 */
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";
import { TOOLS } from "../src/tools/registry.ts";
import { RENDERER_MODULES } from "../src/cli/renderers.ts";

/** The release targets: Linux and macOS on x86_64 and aarch64, and Windows on x86_64. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/** One of the release targets. */
export type Target = typeof TARGETS[number];

/** The binary's base name. */
export const BINARY = "ttnn-visualizer-mcp";

/** One planned build. */
export interface Build {
  target: Target;
  output: string;
  args: string[];
}

/** The modules the server starts workers from (device-log slices, database scans, a database). */
export const WORKER_MODULES = [
  "src/device_log/_slice_worker.ts",
  "src/profiler_db/_db_worker.ts",
  "src/profiler_db/_db_thread_worker.ts",
] as const;

/** A module's path from the repository's root. */
function repoPath(url: URL): string {
  const root = new URL("../", import.meta.url).pathname;
  return decodeURIComponent(url.pathname).slice(decodeURIComponent(root).length);
}

/**
 * The modules the program loads by URL rather than by a literal import, so that a one-shot
 * call does not load the whole server (`src/cli/main.ts`, `src/tools/registry.ts`): compile
 * must embed them — the server, the demo, the help, every tool in the tool list and every
 * answer's renderer (`src/cli/renderers.ts`).
 */
export const LAZY_MODULES: readonly string[] = [
  "src/protocol/stdio.ts",
  "src/protocol/answer_schemas.json",
  "src/cli/demo.ts",
  "src/cli/tool_help.ts",
  ...TOOLS.map((t) => repoPath(t.module)),
  ...RENDERER_MODULES.map(repoPath),
];

/**
 * The `deno compile` arguments for each target, writing into `outDir`.
 *
 * @example
 * ```ts
 * import { planBuilds } from "./compile_plan.ts";
 * const [b] = planBuilds(["x86_64-pc-windows-msvc"], "dist");
 * if (b.output !== "dist/ttnn-visualizer-mcp-x86_64-pc-windows-msvc.exe") throw new Error(b.output);
 * ```
 */
export function planBuilds(
  targets: readonly Target[],
  outDir: string,
  options: { usageDir?: string } = {},
): Build[] {
  return targets.map((target) => {
    const output = `${outDir}/${BINARY}-${target}${target.includes("windows") ? ".exe" : ""}`;
    return {
      target,
      output,
      args: [
        "compile",
        ...PERMISSION_FLAGS,
        // Usage events are written only where the builder grants it (README, Usage events).
        ...(options.usageDir ? [`--allow-write=${options.usageDir}`] : []),
        "--include",
        "fixtures/demo",
        // Workers are started from these modules; compile must embed them.
        ...WORKER_MODULES.flatMap((module) => ["--include", module]),
        // Loaded by URL (not by a literal import), so compile must be told of them too.
        ...LAZY_MODULES.flatMap((module) => ["--include", module]),
        "--target",
        target,
        "--output",
        output,
        "mod.ts",
      ],
    };
  });
}

/**
 * Chooses targets from `--target` arguments; none means all. With `DENORT_BIN` set, the
 * local runtime serves one platform only, so exactly one target must be named.
 */
export function chooseTargets(asked: readonly string[], denortBin: string | undefined): Target[] {
  for (const t of asked) {
    if (!(TARGETS as readonly string[]).includes(t)) {
      throw new Error(`unknown target ${t}; targets: ${TARGETS.join(", ")}`);
    }
  }
  const targets = (asked.length > 0 ? asked : TARGETS) as Target[];
  if (denortBin && targets.length !== 1) {
    throw new Error(
      `DENORT_BIN=${denortBin} is a runtime for one platform; name its target with --target`,
    );
  }
  return targets;
}

/** A `SHA256SUMS` line in the format `sha256sum -c` reads. */
export function sumLine(hexDigest: string, fileName: string): string {
  return `${hexDigest}  ${fileName}`;
}
