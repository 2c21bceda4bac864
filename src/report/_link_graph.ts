/**
 * The device operations one profiler operation launched, read from its captured graph: the
 * function_start/function_end scopes paired as tt-metal nests them, keeping only the scopes
 * that completed (a launch that threw — aborted in newer captures, never closed in older ones —
 * reached no device and has no performance row) and whose name is a device operation.
 *
 * @module
 */

/** A graph that cannot be read: the link refuses rather than shift the order. */
export class UnreadableGraph extends Error {}

/**
 * Whether a scope name is a device operation, the names performance rows carry as their raw
 * op code: non-empty, and not a ttnn Python function, a C++ function or a host (torch) op.
 *
 * @example
 * ```ts
 * import { isDeviceOperation } from "./_link_graph.ts";
 * if (!isDeviceOperation("MatmulDeviceOperation")) throw new Error();
 * if (isDeviceOperation("ttnn.matmul") || isDeviceOperation("Tensor::to_device")) throw new Error();
 * if (isDeviceOperation("aten::add (torch)") || isDeviceOperation("")) throw new Error();
 * ```
 */
export function isDeviceOperation(name: string): boolean {
  return name !== "" && !name.includes("(torch)") && !name.includes("::") &&
    !name.includes("ttnn.");
}

/** The completed device-operation scopes of one graph, by start order and by end order. */
export interface LaunchedNames {
  /** Names in the order their function_start nodes appear. */
  starts: string[];
  /** Names in the order their function_end nodes appear (a child may end before its parent). */
  ends: string[];
}

/** Whether a function_end marks its launch aborted: boolean true or exactly the text "true". */
function isAborted(params: Record<string, unknown>): boolean {
  return params.aborted === true || params.aborted === "true";
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
  if (!Array.isArray(nodes)) throw new UnreadableGraph("not a list of nodes");
  const open: { name: string; at: number }[] = [];
  const completed: { name: string; startAt: number; endAt: number }[] = [];
  nodes.forEach((node, at) => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    const type = (node as Record<string, unknown>).node_type;
    if (type !== "function_start" && type !== "function_end") return;
    const params = (node as Record<string, unknown>).params;
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      throw new UnreadableGraph(`a ${type} node carries no name`);
    }
    const name = (params as Record<string, unknown>).name;
    if (typeof name !== "string") throw new UnreadableGraph(`a ${type} node carries no name`);
    if (type === "function_start") {
      open.push({ name, at });
      return;
    }
    // An end closes the most recent open scope of its name; a stray end closes nothing.
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i].name !== name) continue;
      const [start] = open.splice(i, 1);
      if (!isAborted(params as Record<string, unknown>)) {
        completed.push({ name, startAt: start.at, endAt: at });
      }
      return;
    }
  });
  const kept = completed.filter((c) => isDeviceOperation(c.name));
  return {
    starts: [...kept].sort((a, b) => a.startAt - b.startAt).map((c) => c.name),
    ends: kept.map((c) => c.name), // already in end order
  };
}
