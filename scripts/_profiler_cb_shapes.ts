/**
 * Two profiler fixtures for the circular-buffer shapes real captures take (operation_detail's
 * `circular_buffers`), each the tiny CNN run of every fixture plus operations 13–16 whose
 * captured graphs hold one shape each.
 *
 * `v2_1_mesh_warm_cache` — the newest tt-metal on an N300 mesh with the program cache warm:
 *
 *   13 ttnn.matmul   MatmulDeviceOperation recording every buffer once per device: two plain
 *                    buffers on 8×8 cores, a globally allocated one (a view onto an L1 tensor),
 *                    one on an empty core range, one whose core_range_set runs past 200 chars.
 *   14 ttnn.matmul   the same launch from the program cache: frees, allocates no buffer.
 *   15 ttnn.add      BinaryNgDeviceOperation launched twice with the same buffers, a third time
 *                    from the cache, and UnaryDeviceOperation twice from the cache.
 *   16 ttnn.concat   30 launches of ConcatDeviceOperation with 4 buffers each (120 rows).
 *
 * `v2_mesh_per_device_launches` — an older mesh capture (before tt-metal #53041): string
 * params, buffers without a device_id, each device's launch its own device operation:
 *
 *   13 ttnn.conv2d     HaloDeviceOperation and Conv2d, once per device.
 *   14 ttnn.linear     MatmulDeviceOperation on device 0 allocated its buffers and threw,
 *                      left open (an attached circular-buffer clash error).
 *   15 ttnn.softmax    SoftmaxDeviceOperation on device 0, then on device 1 the graph is cut
 *                      off right after its buffers.
 *   16 ttnn.layer_norm LayerNormDeviceOperation per device, whose buffers an output buffer
 *                      allocation splits into two runs.
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { Flavour } from "./make_profiler_fixtures.ts";
import { WH } from "./_profiler_model.ts";

type Node = { node_type: string; params: Record<string, unknown> | null; stacking_level?: number };

const GRID = "{[(x=0,y=0) - (x=7,y=7)]}";
const CB_BASE = WH.address_at_first_l1_cb_buffer;

/** A core range set of single cores along rows, long enough to pass 200 characters. */
export const LONG_RANGE_SET = `{${
  Array.from({ length: 12 }, (_, i) =>
    `[(x=${i % 8},y=${Math.floor(i / 8)}) - (x=${i % 8},y=${Math.floor(i / 8)})]`).join(", ")
}}`;

/** The circular-buffer clash that stopped operation 14 of the older mesh capture. */
export const CB_CLASH =
  "TT_FATAL @ /workspace/tt_metal/impl/program/program.cpp:921: tt::exception\ninfo:\n" +
  "Statically allocated circular buffers in program 212 clash with L1 buffers on core range " +
  "[(x=0,y=0) - (x=7,y=7)]. L1 buffer allocated at 600256 and static circular buffer region " +
  "ends at 621824\nbacktrace:\n --- /workspace/build_Release/lib/libtt_metal.so(+0x56f1c2)\n";

const start = (name: string, extra: Record<string, unknown> = {}): Node => ({
  node_type: "function_start",
  params: { name, inputs: "2", ...extra },
  stacking_level: 2,
});
const end = (name: string): Node => ({
  node_type: "function_end",
  params: { name },
  stacking_level: 2,
});
const freeAll = (params: Record<string, unknown>): Node => ({
  node_type: "circular_buffer_deallocate_all",
  params,
});
const cb = (params: Record<string, unknown>): Node => ({
  node_type: "circular_buffer_allocate",
  params,
});
const output = (device: number | string, address: number | string): Node => ({
  node_type: "buffer_allocate",
  params: {
    size: typeof address === "string" ? "1048576" : 1048576,
    address,
    type: "DRAM",
    layout: "INTERLEAVED",
    page_size: typeof address === "string" ? "2048" : 2048,
    num_cores: typeof address === "string" ? "0" : 0,
    device_id: device,
  },
});

/** An operation's graph: its launches wrapped in its own scope, cut off when asked. */
function graph(name: string, inner: Node[], cutOff = false): string {
  const nodes: Node[] = [
    { node_type: "capture_start", params: {}, stacking_level: 0 },
    { node_type: "function_start", params: { name, inputs: "2" }, stacking_level: 1 },
    ...inner,
  ];
  if (!cutOff) {
    nodes.push(
      { node_type: "function_end", params: { name }, stacking_level: 1 },
      { node_type: "capture_end", params: {}, stacking_level: 0 },
    );
  }
  return JSON.stringify(nodes.map((n, i) => ({
    counter: i,
    ...n,
    connections: i + 1 < nodes.length ? [i + 1] : [],
  })));
}

function addOperation(db: DatabaseSync, id: number, name: string, text: string): void {
  const run = (sql: string, ...values: SQLInputValue[]) => db.prepare(sql).run(...values);
  run("INSERT INTO operations VALUES (?, ?, ?)", id, name, 0.0125 + id / 10000);
  run("INSERT INTO captured_graph VALUES (?, ?)", id, text);
}

/** Newest tt-metal: one launch with each buffer once per device (number-typed params). */
function meshLaunch(
  name: string,
  buffers: Record<string, unknown>[],
  cached: boolean,
  address: number,
): Node[] {
  const nodes: Node[] = [start(name, { program_cache_hit: cached, device_id: 0 })];
  nodes.push(freeAll({ device_id: 0 }));
  if (cached) nodes.push(freeAll({ device_id: 1 }));
  for (const device of [0, 1]) for (const b of buffers) nodes.push(cb({ ...b, device_id: device }));
  nodes.push(output(0, address), output(1, address), end(name));
  return nodes;
}

const plain = (address: number, size: number, core_range_set = GRID) => ({
  address,
  size,
  core_range_set,
  globally_allocated: 0,
});

function warmCache(db: DatabaseSync): void {
  const matmul = [
    plain(CB_BASE, 32768),
    plain(CB_BASE + 32768, 65536),
    { ...plain(1259520, 114688), globally_allocated: 1 },
    plain(CB_BASE + 98304, 2048, "{}"),
    plain(CB_BASE + 100352, 1024, LONG_RANGE_SET),
  ];
  const m = "MatmulDeviceOperation";
  addOperation(db, 13, "ttnn.matmul", graph("ttnn.matmul", meshLaunch(m, matmul, false, 2500000)));
  addOperation(db, 14, "ttnn.matmul", graph("ttnn.matmul", meshLaunch(m, [], true, 3548576)));
  const b = "BinaryNgDeviceOperation";
  const add = [plain(CB_BASE, 4096), plain(CB_BASE + 4096, 4096)];
  addOperation(
    db,
    15,
    "ttnn.add",
    graph("ttnn.add", [
      ...meshLaunch(b, add, false, 4597152),
      ...meshLaunch(b, add, false, 5645728),
      ...meshLaunch(b, [], true, 6694304),
      ...meshLaunch("UnaryDeviceOperation", [], true, 7742880),
      ...meshLaunch("UnaryDeviceOperation", [], true, 8791456),
    ]),
  );
  const concat: Node[] = [];
  for (let i = 0; i < 30; i++) {
    const four = [0, 1, 2, 3].map((k) => plain(CB_BASE + 8192 * k, 2048 * (k + 1 + i % 3)));
    concat.push(...meshLaunch("ConcatDeviceOperation", four, false, 9840032 + 1048576 * i));
  }
  addOperation(db, 16, "ttnn.concat", graph("ttnn.concat", concat));
}

/** Older tt-metal: one device's launch (string params, buffers without a device_id). */
function deviceLaunch(name: string, device: number, sizes: number[], split = false): Node[] {
  const buffers = sizes.map((size, k) =>
    cb({
      address: String(CB_BASE + 65536 * k),
      size: String(size),
      core_range_set: GRID,
      globally_allocated: "0",
    })
  );
  const out = output(String(device), String(2000000 + 1048576 * device));
  return split
    ? [start(name), freeAll({}), buffers[0], out, ...buffers.slice(1), end(name)]
    : [start(name), freeAll({}), ...buffers, out, end(name)];
}

function perDeviceLaunches(db: DatabaseSync): void {
  addOperation(
    db,
    13,
    "ttnn.conv2d",
    graph("ttnn.conv2d", [
      ...deviceLaunch("HaloDeviceOperation", 0, [8192, 8192]),
      ...deviceLaunch("HaloDeviceOperation", 1, [8192, 8192]),
      ...deviceLaunch("Conv2d", 0, [65536, 32768]),
      ...deviceLaunch("Conv2d", 1, [65536, 32768]),
    ]),
  );
  const failed = deviceLaunch("MatmulDeviceOperation", 0, [409600, 98304]);
  // The launch threw once its buffers were placed: no output, and older tt-metal never closed it.
  addOperation(db, 14, "ttnn.linear", graph("ttnn.linear", failed.slice(0, 4)));
  db.prepare("INSERT INTO errors VALUES (14, 'ttnn.linear', 'RuntimeError', ?, '', '')").run(
    CB_CLASH,
  );
  const cut = deviceLaunch("SoftmaxDeviceOperation", 1, [16384, 16384]).slice(0, 4);
  addOperation(
    db,
    15,
    "ttnn.softmax",
    graph(
      "ttnn.softmax",
      [...deviceLaunch("SoftmaxDeviceOperation", 0, [16384, 16384]), ...cut],
      true,
    ),
  );
  addOperation(
    db,
    16,
    "ttnn.layer_norm",
    graph("ttnn.layer_norm", [
      ...deviceLaunch("LayerNormDeviceOperation", 0, [12288, 24576], true),
      ...deviceLaunch("LayerNormDeviceOperation", 1, [12288, 24576], true),
    ]),
  );
}

/** The two flavours, for make_profiler_fixtures.ts's list. */
export const CB_FLAVOURS: Flavour[] = [
  {
    name: "v2_1_mesh_warm_cache",
    standsFor: "W2c with the newest number-typed graph params on an N300 mesh with the program " +
      "cache warm (`_profiler_cb_shapes.ts`): every circular buffer recorded once per device in " +
      "one device operation, a globally allocated buffer, one on an empty core range, one whose " +
      "core_range_set passes 200 characters, relaunches from the program cache that free " +
      "circular buffers and allocate none, a device operation launched twice on the same " +
      "devices, and an operation with 120 buffer rows.",
    schema: "v2.1",
    numericGraph: true,
    devices: 2,
    after: warmCache,
    arch: "wormhole_b0",
  },
  {
    name: "v2_mesh_per_device_launches",
    standsFor: "W2b from before tt-metal #53041 on an N300 mesh (`_profiler_cb_shapes.ts`): " +
      "string graph params, circular buffers without a device_id, each device's launch its own " +
      "device operation; a failed launch left open after placing its buffers (its circular " +
      "buffer clash error attached), a graph cut off right after a launch's buffers, and " +
      "launches whose buffers an output allocation splits into two runs.",
    schema: "v2",
    devices: 2,
    after: perDeviceLaunches,
    arch: "Wormhole",
  },
];
