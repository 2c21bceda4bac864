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

/** One function scope of a captured graph, as its start and end pair. */
export interface GraphScope {
  name: string;
  /** Index of its function_start node. */
  startAt: number;
  /** Index of the function_end that closed it; null when it was never closed. */
  endAt: number | null;
  /** Whether that end marks the launch aborted (`aborted` true or exactly `"true"`). */
  aborted: boolean;
}

/** A graph's scopes in start order, or why it cannot be read. */
export type GraphScopes =
  | { scopes: GraphScope[] }
  | { problem: "not_a_list" }
  | { problem: "no_name"; nodeType: "function_start" | "function_end" };

/** Why a graph's scopes cannot be read, as an answer says it. */
export function scopesProblem(
  read: Exclude<GraphScopes, { scopes: GraphScope[] }>,
): string {
  return read.problem === "not_a_list"
    ? "its captured graph is not a JSON list of nodes"
    : `a ${read.nodeType} node in its captured graph has no name`;
}

/**
 * The function scopes of a parsed captured graph, paired the way the capture writes them: an
 * end closes the most recent open start of the same name, and an end with no open start closes
 * nothing. Entries that are not objects, and nodes other than function_start/function_end, are
 * skipped; a lifecycle node without a string name makes the graph unreadable, since dropping
 * it could shift every later launch.
 */
export function graphScopes(graph: unknown): GraphScopes {
  if (!Array.isArray(graph)) return { problem: "not_a_list" };
  const scopes: GraphScope[] = [];
  const open: number[] = [];
  for (let at = 0; at < graph.length; at++) {
    const node = graph[at];
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const { node_type: type, params } = node as { node_type?: unknown; params?: unknown };
    if (type !== "function_start" && type !== "function_end") continue;
    const name = params !== null && typeof params === "object" && !Array.isArray(params)
      ? (params as { name?: unknown }).name
      : undefined;
    if (typeof name !== "string") return { problem: "no_name", nodeType: type };
    if (type === "function_start") {
      open.push(scopes.length);
      scopes.push({ name, startAt: at, endAt: null, aborted: false });
      continue;
    }
    for (let i = open.length - 1; i >= 0; i--) {
      const scope = scopes[open[i]];
      if (scope.name !== name) continue;
      const aborted = (params as { aborted?: unknown }).aborted;
      scope.endAt = at;
      scope.aborted = aborted === true || aborted === "true";
      open.splice(i, 1);
      break;
    }
  }
  return { scopes };
}

/**
 * The launches in a parsed captured graph, or a string saying why it cannot be read. A scope
 * counts as completed only when it was closed without an abort; one closed aborted, or never
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
  const read = graphScopes(graph);
  if ("problem" in read) return scopesProblem(read);
  const launches: Launches = { completed: [], failed: [] };
  for (const s of read.scopes) {
    if (!isDeviceOperation(s.name)) continue;
    (s.endAt !== null && !s.aborted ? launches.completed : launches.failed).push(s.name);
  }
  return launches;
}
