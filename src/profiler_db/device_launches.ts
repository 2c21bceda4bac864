/**
 * Which device operations an operation's captured graph launched, and which of those launches
 * did not complete. A launch that threw — an allocation failure, for one — is closed with an
 * `aborted` end on newer captures and left open on older ones; either way it never reached
 * the device. Host functions (`ttnn.*`, `(torch)`, anything with `::`) are not device
 * operations.
 *
 * @module
 */

/** One graph's launches: the names of completed and failed device operations, in order. */
export interface Launches {
  completed: string[];
  failed: string[];
}

/**
 * Whether a function name is a device operation: non-empty and containing none of `ttnn.`,
 * `::` and `(torch)`.
 *
 * @example
 * ```ts
 * import { isDeviceOperation } from "./device_launches.ts";
 * if (!isDeviceOperation("MatmulDeviceOperation") || isDeviceOperation("ttnn.matmul")) throw new Error();
 * if (isDeviceOperation("tt::tt_metal::detail::convert") || isDeviceOperation("")) throw new Error();
 * ```
 */
export function isDeviceOperation(name: string): boolean {
  return name !== "" && !name.includes("ttnn.") && !name.includes("::") &&
    !name.includes("(torch)");
}

/**
 * The launches in a parsed captured graph, or a string saying why it cannot be read. Scopes
 * pair the way the capture writes them: an end closes the most recent open start of the same
 * name, and an end with no open start closes nothing. A scope counts as completed only when
 * its end is not aborted (`aborted` true or exactly `"true"`); one closed aborted, or never
 * closed, is a failed launch.
 *
 * @example
 * ```ts
 * import { launchesIn } from "./device_launches.ts";
 * const start = (name: string) => ({ node_type: "function_start", params: { name } });
 * const end = (name: string, aborted?: string) => ({ node_type: "function_end", params: { name, aborted } });
 * const l = launchesIn([start("ttnn.conv2d"), start("Halo"), end("Halo"), start("Conv2d"),
 *   end("Conv2d", "true"), end("ttnn.conv2d")]);
 * if (typeof l === "string" || l.completed.join() !== "Halo" || l.failed.join() !== "Conv2d") throw new Error();
 * ```
 */
export function launchesIn(graph: unknown): Launches | string {
  if (!Array.isArray(graph)) return "its captured graph is not a JSON list of nodes";
  const scopes: { name: string; state: "open" | "completed" | "failed" }[] = [];
  const open: number[] = [];
  for (const node of graph) {
    if (node === null || typeof node !== "object") continue;
    const { node_type: type, params } = node as { node_type?: unknown; params?: unknown };
    if (type !== "function_start" && type !== "function_end") continue;
    const name = params !== null && typeof params === "object"
      ? (params as { name?: unknown }).name
      : undefined;
    if (typeof name !== "string") {
      return `a ${type} node in its captured graph has no name`;
    }
    if (type === "function_start") {
      open.push(scopes.length);
      scopes.push({ name, state: "open" });
      continue;
    }
    let at = -1;
    for (let i = open.length - 1; i >= 0; i--) {
      if (scopes[open[i]].name === name) {
        at = i;
        break;
      }
    }
    if (at < 0) continue;
    const aborted = (params as { aborted?: unknown }).aborted;
    scopes[open[at]].state = aborted === true || aborted === "true" ? "failed" : "completed";
    open.splice(at, 1);
  }
  const launches: Launches = { completed: [], failed: [] };
  for (const s of scopes) {
    if (!isDeviceOperation(s.name)) continue;
    (s.state === "completed" ? launches.completed : launches.failed).push(s.name);
  }
  return launches;
}
