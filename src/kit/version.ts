/**
 * The project's version, read from `deno.json` at build time so the compiled binary, the
 * `initialize` answer and `--version` can never disagree.
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };

/** Name the server announces in `serverInfo.name`; the upstream server's, so clients need no change. */
export const SERVER_NAME = "ttnn-visualizer";

/** Human-facing title announced beside the name. */
export const SERVER_TITLE = "TT-NN Visualizer";

/**
 * The version string from `deno.json`, or `"unknown"` when it is missing or not a string.
 *
 * @example
 * ```ts
 * import { readVersion } from "./version.ts";
 * if (readVersion({ version: "1.2.3" }) !== "1.2.3") throw new Error();
 * if (readVersion({}) !== "unknown") throw new Error();
 * ```
 */
export function readVersion(meta: { version?: unknown }): string {
  return typeof meta.version === "string" && meta.version.length > 0 ? meta.version : "unknown";
}

/** The installed version of this server. */
export const VERSION: string = readVersion(config);
