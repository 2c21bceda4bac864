/**
 * What the l1_peak fixtures add to the tiny CNN run (written as v2_1_tensor_size is), so the
 * L1 replay meets every node shape it must read. After operation 12 the run holds, in L1, the
 * relu output (8,192 B/bank at 1,458,176, last consumed by 8), the linear output (14,336 at
 * 1,443,840, last consumed by 10) and the conv's L1_SMALL buffer (16,384 at 1,482,752).
 *
 * `l1PeakPass` (fixture v2_1_l1_peak) appends:
 *
 *   13 ttnn.matmul   MatmulDeviceOperation: a 65,536 B circular buffer, a globally allocated
 *                    one and one with no address (neither counts), an L1 buffer with no
 *                    max_size_per_bank (655,360 B over num_cores 0 → 10,240 per bank) freed
 *                    in the operation (intermediate), one of 409,600 B over 8 cores (51,200)
 *                    never freed and missing from the snapshot (reconciled away), a
 *                    deallocation with a null address and a DRAM buffer (neither counts).
 *   14 ttnn.add      an 8,192 B circular buffer; 20,480 at 1,200,000 allocated, freed (its
 *                    first occurrence is intermediate) and allocated again (kept: tensor 202,
 *                    last consumed by 15), on a node labelled device 1 (device ids ignored).
 *   15 ttnn.relu     an 8,192 B circular buffer over tensor 202: the same total as 14, a
 *                    different composition.
 *   16 ttnn.deallocate  frees tensor 202 (stale by then).
 *   17 ttnn.synchronize_device  no captured graph and no buffers rows (not captured).
 *
 * and tensors 204 and 205 sharing address 1,100,000 with different last consumers (14 and 15),
 * which no graph or snapshot holds: one address whose staleness cannot be attributed.
 *
 * `l1PeakOverflow` (fixture v2_1_l1_peak_exceeds) appends one operation whose graph writes an
 * L1 buffer's whole size as its max_size_per_bank (2,097,152 B, past the 1,499,136 of L1), the
 * earliest importer's pathology.
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

type Node = Record<string, unknown>;

const L1 = (address: unknown, extra: Node) => ({ type: "L1", address, ...extra });

const cb = (address: unknown, size: unknown, globally: unknown = "0") => ({
  node_type: "circular_buffer_allocate",
  params: {
    address,
    size,
    core_range_set: "{[(x=0,y=0) - (x=7,y=7)]}",
    globally_allocated: globally,
    device_id: 0,
  },
});

/** An operation's graph: its function scope around one device operation's nodes. */
function graph(name: string, device: string | null, body: Node[]): string {
  const nodes: Node[] = [
    { node_type: "capture_start", params: null },
    { node_type: "function_start", params: { name, inputs: "1" }, stacking_level: 1 },
  ];
  if (device !== null) {
    nodes.push(
      { node_type: "function_start", params: { name: device, inputs: "1" }, stacking_level: 2 },
      { node_type: "circular_buffer_deallocate_all", params: { device_id: "0" } },
      ...body,
      { node_type: "function_end", params: { name: device }, stacking_level: 2 },
    );
  } else nodes.push(...body);
  nodes.push(
    { node_type: "function_end", params: { name }, stacking_level: 1 },
    { node_type: "capture_end", params: null },
  );
  return JSON.stringify(nodes.map((n, i) => ({
    counter: i,
    ...n,
    connections: i + 1 < nodes.length ? [i + 1] : [],
  })));
}

const alloc = (params: Node) => ({ node_type: "buffer_allocate", params });
const free = (params: Node) => ({ node_type: "buffer_deallocate", params });

const TENSOR_202 = L1(1200000, { max_size_per_bank: 20480, size: 1310720, num_cores: 0 });

interface Added {
  id: number;
  name: string;
  graph: string | null;
  inputs: number[];
  outputs: number[];
  /** L1 buffers added to op 12's snapshot (address, bytes per bank); null: no buffers rows. */
  extra: [number, number][] | null;
}

const PASS: Added[] = [
  {
    id: 13,
    name: "ttnn.matmul",
    graph: graph("ttnn.matmul", "MatmulDeviceOperation", [
      cb("103712", "65536"),
      cb(169248, 200000, 1),
      cb(null, 4096),
      alloc(L1("1300000", { size: "655360", num_cores: "0", page_size: "2048" })),
      alloc(L1(1350000, { size: 409600, num_cores: 8, layout: "HEIGHT_SHARDED" })),
      free(L1("1300000", { size: "655360", num_cores: "0" })),
      free(L1(null, { size: 409600 })),
      alloc({ type: "DRAM", address: 5000000, size: 1000000, max_size_per_bank: 83968 }),
    ]),
    inputs: [],
    outputs: [204],
    extra: [],
  },
  {
    id: 14,
    name: "ttnn.add",
    graph: graph("ttnn.add", "BinaryNgDeviceOperation", [
      cb(103712, 8192),
      alloc({ ...TENSOR_202, device_id: 1 }),
      free({ ...TENSOR_202, device_id: 1 }),
      alloc(TENSOR_202),
    ]),
    inputs: [204],
    outputs: [202, 205],
    extra: [[1200000, 20480]],
  },
  {
    id: 15,
    name: "ttnn.relu",
    graph: graph("ttnn.relu", "UnaryDeviceOperation", [cb(103712, 8192)]),
    inputs: [202, 205],
    outputs: [],
    extra: [[1200000, 20480]],
  },
  {
    id: 16,
    name: "ttnn.deallocate",
    graph: graph("ttnn.deallocate", null, [free(TENSOR_202)]),
    inputs: [202],
    outputs: [],
    extra: [],
  },
  {
    id: 17,
    name: "ttnn.synchronize_device",
    graph: null,
    inputs: [],
    outputs: [],
    extra: null,
  },
];

const TENSORS: [number, number][] = [[202, 1200000], [204, 1100000], [205, 1100000]];

const OVERFLOW: Added[] = [{
  id: 13,
  name: "ttnn.matmul",
  graph: graph("ttnn.matmul", "MatmulDeviceOperation", [
    cb(103712, 65536),
    alloc(L1(1000000, { size: 2097152, num_cores: 0, max_size_per_bank: 2097152 })),
  ]),
  inputs: [],
  outputs: [],
  extra: [],
}];

function append(db: DatabaseSync, added: Added[], tensors: [number, number][]): void {
  const run = (sql: string, ...values: SQLInputValue[]) => db.prepare(sql).run(...values);
  for (const [id, address] of tensors) {
    run(
      "INSERT INTO tensors (tensor_id, shape, dtype, layout, memory_config, device_id, address, " +
        "buffer_type, size) VALUES (?, 'Shape([1, 1, 320, 64])', 'DataType.BFLOAT16', " +
        "'Layout.TILE', NULL, 0, ?, 'L1', 40960)",
      id,
      address,
    );
  }
  for (const op of added) {
    run("INSERT INTO operations VALUES (?, ?, ?)", op.id, op.name, 0.0042);
    op.inputs.forEach((t, i) => run("INSERT INTO input_tensors VALUES (?, ?, ?)", op.id, i, t));
    op.outputs.forEach((t, i) => run("INSERT INTO output_tensors VALUES (?, ?, ?)", op.id, i, t));
    if (op.extra !== null) {
      run(
        "INSERT INTO buffers SELECT ?, device_id, address, max_size_per_bank, buffer_type, " +
          "buffer_layout FROM buffers WHERE operation_id = 12",
        op.id,
      );
      for (const [address, size] of op.extra) {
        run("INSERT INTO buffers VALUES (?, 0, ?, ?, 1, 0)", op.id, address, size);
      }
    }
    if (op.graph !== null) run("INSERT INTO captured_graph VALUES (?, ?)", op.id, op.graph);
  }
}

/** Appends the l1_peak pass to a written v2.1 database with tensors.size. */
export function l1PeakPass(db: DatabaseSync): void {
  append(db, PASS, TENSORS);
}

/** Appends an operation whose replay exceeds L1 to a written v2.1 database. */
export function l1PeakOverflow(db: DatabaseSync): void {
  append(db, OVERFLOW, []);
}
