/**
 * The device operations one profiler operation launched, read from its captured graph: the
 * function_start/function_end scopes paired as tt-metal nests them, keeping only the scopes
 * that completed (a launch that threw — aborted in newer captures, never closed in older ones —
 * reached no device and has no performance row) and whose name is a device operation.
 *
 * @module
 */
import { graphScopes, isDeviceOperation } from "../profiler_db/mod.ts";

/** A graph that cannot be read: the link refuses rather than shift the order. */
export class UnreadableGraph extends Error {}

// The device-operation test and the scope pairing are the profiler reader's: errors and the
// link must agree on which launches completed.
export { isDeviceOperation };

/** The completed device-operation scopes of one graph, by start order and by end order. */
export interface LaunchedNames {
  /** Names in the order their function_start nodes appear. */
  starts: string[];
  /** Names in the order their function_end nodes appear (a child may end before its parent). */
  ends: string[];
}

/**
 * The device operations a captured graph's text launched. Non-object entries and nodes other
 * than function_start/function_end are skipped; text that is not a JSON list, or a lifecycle
 * node without a string name, throws {@link UnreadableGraph} (dropping such a node could shift
 * every later row onto the wrong operation). Empty text is an empty graph.
 *
 * @example
 * ```ts
 * import { launchedDeviceOperations } from "./_link_graph.ts";
 * const s = (name: string) => ({ node_type: "function_start", params: { name } });
 * const e = (name: string, aborted?: string) => ({ node_type: "function_end", params: { name, aborted } });
 * const graph = [s("ttnn.conv2d"), s("Halo"), e("Halo"), s("Conv2d"), e("Conv2d", "true"), e("ttnn.conv2d")];
 * const got = launchedDeviceOperations(JSON.stringify(graph));
 * if (got.starts.join() !== "Halo" || got.ends.join() !== "Halo") throw new Error();
 * ```
 */
export function launchedDeviceOperations(text: string): LaunchedNames {
  let nodes: unknown;
  try {
    nodes = text.trim() === "" ? [] : JSON.parse(text);
  } catch (e) {
    throw new UnreadableGraph((e as Error).message);
  }
  const read = graphScopes(nodes);
  if ("problem" in read) {
    throw new UnreadableGraph(
      read.problem === "not_a_list"
        ? "not a list of nodes"
        : `a ${read.nodeType} node carries no name`,
    );
  }
  const kept = read.scopes.filter((s) =>
    s.endAt !== null && !s.aborted && isDeviceOperation(s.name)
  );
  return {
    starts: kept.map((c) => c.name), // scopes are in start order
    ends: [...kept].sort((a, b) => a.endAt! - b.endAt!).map((c) => c.name),
  };
}
