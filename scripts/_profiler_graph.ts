/**
 * A captured graph per operation, shaped as tt-metal's graph capture writes it (see
 * profiler-db-format.md §5): capture_start, the operation's function_start with its input
 * tensor nodes, each device operation nested inside with the circular buffers its program
 * allocates and the buffers it allocates, the function_end, the output tensor nodes and
 * capture_end. Older captures write every param as a string; the newest write numbers for
 * sizes, addresses and ids.
 */
import type { Model, OpDef, Placement } from "./_profiler_model.ts";
import { memoryConfigText, WH } from "./_profiler_model.ts";

type Node = Record<string, unknown>;

/** The graph of one operation as JSON text. */
export function capturedGraph(
  model: Model,
  op: OpDef,
  options: { numeric: boolean; device: number },
): string {
  const v = (x: number | string) => options.numeric || typeof x === "string" ? x : String(x);
  const nodes: Node[] = [];
  const push = (node_type: string, params: Node | null, extra: Node = {}) => {
    nodes.push({ counter: nodes.length, node_type, params, connections: [], ...extra });
    return nodes.length - 1;
  };
  const tensorNode = (id: number) => {
    const t = model.tensors.get(id)!;
    const params: Node = {
      tensor_id: v(id),
      shape: `Shape([${t.shape.join(", ")}])`,
      dtype: "DataType::BFLOAT16",
      layout: `Layout::${t.layout}`,
      size: v(t.bytes),
      storage_type: t.at ? "DEVICE" : "HOST",
    };
    if (t.at) {
      params.memory_config = memoryConfigText(t.at);
      params.buffer_type = options.numeric ? enumOf(t.at) : t.at.type;
      params.device_id = v(options.device);
      params.address = v(t.at.address);
    }
    return push("tensor", params);
  };
  push("capture_start", {}, { stacking_level: 0, arguments: [], input_tensors: [] });
  const inputs = op.inputs.map(tensorNode);
  push("function_start", { name: op.name, inputs: String(op.inputs.length) }, {
    stacking_level: 1,
    arguments: op.args.map(([, value]) => value ?? "nullopt"),
    input_tensors: inputs,
  });
  for (const [i, name] of op.deviceOps.entries()) {
    push("function_start", { name, inputs: String(op.inputs.length) }, { stacking_level: 2 });
    push("circular_buffer_deallocate_all", { device_id: v(options.device) });
    for (let cb = 0; cb < 2; cb++) {
      push("circular_buffer_allocate", {
        address: v(WH.address_at_first_l1_cb_buffer + cb * 32768),
        size: v(16384 * (cb + 1)),
        core_range_set: "{[(x=0,y=0) - (x=7,y=6)]}",
        globally_allocated: v(0),
        device_id: v(options.device),
      });
    }
    const last = i === op.deviceOps.length - 1;
    for (const t of last ? op.outputs : []) {
      const at = model.tensors.get(t)!.at;
      if (at) push("buffer_allocate", bufferParams(at, options.device, v, options.numeric));
    }
    push("function_end", { name }, { stacking_level: 2, duration_ns: 20000 + 1000 * op.id });
  }
  for (const t of op.frees) {
    const at = model.tensors.get(t)!.at;
    if (at) push("buffer_deallocate", bufferParams(at, options.device, v, options.numeric));
  }
  push("function_end", { name: op.name }, {
    stacking_level: 1,
    duration_ns: Math.round(op.duration * 1e9),
  });
  op.outputs.forEach(tensorNode);
  push("capture_end", {}, { stacking_level: 0 });
  for (let i = 0; i + 1 < nodes.length; i++) (nodes[i].connections as number[]).push(i + 1);
  return JSON.stringify(nodes);
}

function enumOf(at: Placement): number {
  return at.type === "DRAM" ? 0 : at.type === "L1" ? 1 : 3;
}

function bufferParams(
  at: Placement,
  device: number,
  v: (x: number | string) => number | string,
  numeric: boolean,
): Node {
  const banks = at.type === "DRAM" ? WH.dram_banks : at.cores ?? WH.l1_num_banks;
  return {
    size: v(at.perBank * banks),
    address: v(at.address),
    type: at.type === "DRAM" ? "DRAM" : "L1",
    buffer_type: numeric ? enumOf(at) : String(enumOf(at)),
    layout: at.layout,
    page_size: v(2048),
    num_cores: v(at.cores ?? 0),
    max_size_per_bank: v(at.perBank),
    device_id: v(device),
  };
}
