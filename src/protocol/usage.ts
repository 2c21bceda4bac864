/**
 * Usage events: one logfmt line per tool call (tool name and outcome only — never arguments,
 * paths or handles). Always written to stderr. Also appended to
 * `~/.ttnn-visualizer/usage/events.log`, as the upstream server does by default — but only
 * when this process already holds write permission for that directory (queried, never
 * requested), and recording is not switched off by `USAGE_RECORDING_DISABLED` or the marker
 * file `~/.ttnn-visualizer/usage/disabled`. The default flags grant no write, so by default
 * nothing is written anywhere.
 *
 * @module
 */

/** Appends past this size are refused, as upstream caps its log. */
export const MAX_LOG_BYTES = 10 * 1024 * 1024;

/** Where events are recorded, relative to HOME. */
export const USAGE_DIR = ".ttnn-visualizer/usage";

/** How usage is recorded in this process. */
export interface UsageRecorder {
  /** Records one completed tool call. */
  record(tool: string, outcome: string, ms: number): void;
  /** The line logged at start-up saying where events go. */
  readonly startupLine: string;
}

/** The environment the recorder decides from (injectable for tests). */
export interface UsageEnvironment {
  home: string | undefined;
  disabledVariable: string | undefined;
  markerExists(path: string): boolean;
  canWrite(dir: string): boolean;
  append(path: string, line: string): void;
  size(path: string): number;
  stderr(line: string): void;
  now(): Date;
  runId: string;
}

/**
 * Whether `USAGE_RECORDING_DISABLED` switches recording off: `false`, `0` or unset keep it
 * on; `true`, `1` and any value not recognised switch it off, as upstream reads it.
 *
 * @example
 * ```ts
 * import { disabledByVariable } from "./usage.ts";
 * if (disabledByVariable(undefined) || disabledByVariable("false") || disabledByVariable("0")) throw new Error();
 * if (!disabledByVariable("true") || !disabledByVariable("yes please")) throw new Error();
 * ```
 */
export function disabledByVariable(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return !(v === "" || v === "false" || v === "0");
}

/** A logfmt value usable as is. */
const SAFE = /^[A-Za-z0-9._:+-]+$/;

/** Creates the recorder for this process's environment. */
export function usageRecorder(env: UsageEnvironment): UsageRecorder {
  const dir = env.home ? `${env.home}/${USAGE_DIR}` : null;
  const log = dir ? `${dir}/events.log` : null;
  let fileReason: string | null = null;
  if (!dir) fileReason = "HOME is not set";
  else if (disabledByVariable(env.disabledVariable)) fileReason = "USAGE_RECORDING_DISABLED is set";
  else if (env.markerExists(`${dir}/disabled`)) fileReason = `the marker ${dir}/disabled exists`;
  else if (!env.canWrite(dir)) {
    fileReason =
      `this process holds no write permission for ${dir} (start it with --allow-write=${dir} to record there)`;
  }
  const startupLine = fileReason === null
    ? `usage events (tool and outcome only) are appended to ${log}; set USAGE_RECORDING_DISABLED=true or create ${dir}/disabled to stop`
    : `usage events (tool and outcome only) go to stderr only: ${fileReason}`;
  let fileOn = fileReason === null;
  return {
    startupLine,
    record(tool, outcome, ms) {
      env.stderr(`tool=${tool} outcome=${outcome} ms=${ms}`);
      if (!fileOn || !log || !SAFE.test(tool) || !SAFE.test(outcome)) return;
      const ts = env.now().toISOString().replace(/\.\d{3}Z$/, "Z");
      const line =
        `ts=${ts} event=mcp_tool_called schema_version=1 run_id=${env.runId} tool=${tool} outcome=${outcome}\n`;
      try {
        if (env.size(log) + line.length > MAX_LOG_BYTES) return;
        env.append(log, line);
      } catch (e) {
        fileOn = false; // one failure is reported once; the session goes on
        env.stderr(`usage events file disabled for this session: ${(e as Error).message}`);
      }
    },
  };
}

/** The recorder over this process's real environment. */
export function processUsageRecorder(stderr: (line: string) => void): UsageRecorder {
  const env = (name: string) => {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined; // not granted: read as unset
    }
  };
  return usageRecorder({
    home: env("HOME"),
    disabledVariable: env("USAGE_RECORDING_DISABLED"),
    markerExists(path) {
      try {
        Deno.statSync(path);
        return true;
      } catch {
        return false;
      }
    },
    canWrite(dir) {
      return Deno.permissions.querySync({ name: "write", path: dir }).state === "granted";
    },
    append(path, line) {
      Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      Deno.writeTextFileSync(path, line, { append: true });
    },
    size(path) {
      try {
        return Deno.statSync(path).size;
      } catch {
        return 0;
      }
    },
    stderr,
    now: () => new Date(),
    runId: crypto.randomUUID().slice(0, 8),
  });
}
