/**
 * Reading circular buffers from captured graphs (circularBuffersOf): the per-core view's order,
 * its one snapshot per device operation, folding mesh copies, the figures per core, and the
 * counts of launches and buffers it cannot list.
 */
import assert from "node:assert/strict";
import {
  type CircularBuffers,
  circularBuffersCaveat,
  circularBuffersOf,
  CORE_RANGE_SET_CAP,
  MAX_CB_ROWS,
} from "../../src/analysis/circular_buffers.ts";
import { coresIn } from "../../src/profiler_db/core_ranges.ts";

type P = Record<string, unknown>;
const GRID = "{[(x=0,y=0) - (x=1,y=1)]}";
const start = (name: string, params: P = {}) => ({
  node_type: "function_start",
  params: { name, ...params },
});
const end = (name: string, params: P = {}) => ({
  node_type: "function_end",
  params: { name, ...params },
});
const freeAll = (params: P = {}) => ({ node_type: "circular_buffer_deallocate_all", params });
const cb = (address: number, size: number, params: P = {}) => ({
  node_type: "circular_buffer_allocate",
  params: { address, size, core_range_set: GRID, globally_allocated: 0, ...params },
});
const out = { node_type: "buffer_allocate", params: { address: 5000, size: 1024, type: "DRAM" } };
/** One launch in the capture's own order: free-all, its buffers, the rest, the end. */
const launch = (name: string, buffers: unknown[], params: P = {}) => [
  start(name, params),
  freeAll(),
  ...buffers,
  out,
  end(name),
];
const op = (...inner: unknown[]) => [
  { node_type: "capture_start", params: null },
  start("ttnn.op"),
  ...inner,
  end("ttnn.op"),
  { node_type: "capture_end", params: {} },
];

function read(graph: unknown, cap = MAX_CB_ROWS): CircularBuffers {
  const r = circularBuffersOf([graph], cap);
  if (typeof r === "string") throw new Error(r);
  return r;
}

const sizes = (r: CircularBuffers) =>
  r.device_operations.map((e) => [e.name, e.circular_buffers.map((b) => b.size)]);

Deno.test("each launch lists the buffers it allocated, not the ones its free-all released", () => {
  // Prevents the capture's order (free-all at the next launch's start) giving each device
  // operation its predecessor's buffers.
  const r = read(
    op(...launch("Halo", [cb(100, 64)]), ...launch("Conv2d", [cb(100, 256), cb(400, 32)])),
  );
  assert.deepEqual(sizes(r), [["Halo", [64]], ["Conv2d", [256, 32]]]);
  assert.equal(r.device_operation_count, 2);
  assert.equal(r.circular_buffer_count, 3);
  assert.equal(r.unrecorded_launch_count, undefined);
  assert.equal(r.unlisted_circular_buffer_count, undefined);
});

Deno.test("a relaunch that allocated no buffers is counted as unrecorded, with its name's counts", () => {
  // Prevents a cached relaunch reading as a device operation with zero circular buffers.
  const r = read(op(
    ...launch("Matmul", [cb(100, 64)]),
    ...launch("Matmul", []),
    ...launch("Matmul", []),
    ...launch("Unary", []),
  ));
  assert.deepEqual(sizes(r), [["Matmul", [64]]]);
  assert.equal(r.unrecorded_launch_count, 3);
  assert.deepEqual(r.unrecorded_device_operations, [
    { name: "Matmul", launch_count: 2, device_count: 1 },
    { name: "Unary", launch_count: 1, device_count: 1 },
  ]);
  assert.match(
    String(circularBuffersCaveat(r)),
    /3 device-operation launches .* unknown rather than zero/,
  );
});

Deno.test("a host function and a failed launch without buffers are not unrecorded launches", () => {
  // Prevents `ttnn.*` scopes or a launch that threw being read as cached relaunches.
  const r = read(
    op(
      start("tt::tt_metal::create_device_tensor"),
      end("tt::tt_metal::create_device_tensor"),
      start("Conv2d"),
      end("Conv2d", { aborted: "true" }),
    ),
  );
  assert.equal(r.unrecorded_launch_count, undefined);
  assert.equal(circularBuffersCaveat(r), null);
});

Deno.test("a graph that launched no device operation is a real zero", () => {
  // Prevents an operation with nothing on the device reading as unknown.
  const r = read(op());
  assert.deepEqual(
    { ...r, device_operations: r.device_operations.length },
    {
      size_unit: "bytes_per_bank",
      device_operation_count: 0,
      circular_buffer_count: 0,
      max_bytes_per_core: 0,
      returned_rows: 0,
      device_operations: 0,
    },
  );
});

Deno.test("a failed launch that older tt-metal left open still lists its buffers", () => {
  // Prevents the out-of-memory launch — the one a reader most wants — losing its buffers.
  const r = read(op(start("Matmul"), freeAll(), cb(100, 409600), cb(500000, 98304)));
  assert.deepEqual(sizes(r), [["Matmul", [409600, 98304]]]);
  assert.equal(r.unlisted_circular_buffer_count, undefined);
});

Deno.test("a graph cut off right after a launch's buffers counts them unlisted", () => {
  // Prevents buffers no snapshot kept from vanishing, or the counts claiming to cover them.
  const r = read([
    start("ttnn.op"),
    ...launch("Softmax", [cb(100, 16)]),
    start("Softmax"),
    freeAll(),
    cb(100, 16),
    cb(200, 16),
  ]);
  assert.deepEqual(sizes(r), [["Softmax", [16]]]);
  assert.equal(r.unlisted_circular_buffer_count, 2);
  assert.match(
    String(circularBuffersCaveat(r)),
    /2 circular buffers are not listed .*leave them out/,
  );
});

Deno.test("a launch whose buffers another node splits keeps the second run, as the app does", () => {
  // Prevents listing the first run as well (the app shows one snapshot) or losing its count.
  const r = read(
    op(start("LayerNorm"), freeAll(), cb(100, 12), out, cb(200, 24), cb(300, 8), end("LayerNorm")),
  );
  assert.deepEqual(sizes(r), [["LayerNorm", [24, 8]]]);
  assert.equal(r.unlisted_circular_buffer_count, 1);
});

Deno.test("a globally allocated buffer adds no L1, and one on an empty core range is unattributed", () => {
  // Prevents counting a view onto an L1 tensor twice, or an empty range landing on some core.
  const r = read(op(...launch("Matmul", [
    cb(100, 1000),
    cb(2000, 500, { core_range_set: "{[(x=1,y=1) - (x=2,y=1)]}" }),
    cb(9000, 7000, { globally_allocated: "1" }),
    cb(3000, 40, { core_range_set: "{}" }),
    cb(3100, 2, { core_range_set: "" }),
  ])));
  const e = r.device_operations[0];
  assert.equal(e.max_bytes_per_core, 1500);
  assert.equal(e.unattributed_bytes, 42);
  assert.equal(r.max_bytes_per_core, 1500);
  assert.deepEqual(e.circular_buffers.map((b) => [b.core_count, b.globally_allocated]), [
    [4, false],
    [2, false],
    [4, true],
    [0, false],
    [0, false],
  ]);
});

Deno.test("a mesh's copies of a buffer are one row, and a second allocation on one device its own", () => {
  // Prevents a buffer counted once per device, or a real second allocation folded away.
  const d = (device: number, address = 100) => cb(address, 64, { device_id: device });
  const r = read(op(...launch("Matmul", [d(0), d(0, 300), d(1), d(1, 300), d(0)])));
  const e = r.device_operations[0];
  assert.deepEqual(e.circular_buffers.map((b) => [b.address, b.device_count]), [
    [100, 2],
    [300, 2],
    [100, 1],
  ]);
  assert.equal(e.device_count, 2);
  assert.equal(r.circular_buffer_count, 3);
  assert.equal(e.max_bytes_per_core, 192);
});

Deno.test("older mesh captures' per-device launches are one entry; twice on one device stays two", () => {
  // Prevents device_operation_count counting device copies, or folding a real relaunch.
  const on = (name: string, device: string, size: number) => [
    start(name),
    freeAll(),
    cb(100, size),
    { ...out, params: { ...out.params, device_id: device } },
    end(name),
  ];
  const r = read(
    op(...on("Halo", "0", 8), ...on("Halo", "1", 8), ...on("Halo", "0", 8), ...on("Halo", "1", 8)),
  );
  assert.deepEqual(
    r.device_operations.map((e) => [e.name, e.device_count, e.circular_buffers[0].device_count]),
    [
      ["Halo", 2, 2],
      ["Halo", 2, 2],
    ],
  );
  assert.equal(r.circular_buffer_count, 2);
});

Deno.test("unlisted buffers count once per device section on an older mesh capture", () => {
  // Prevents the per-device copies of a split launch being folded into one unlisted buffer.
  const split = (device: string) => [
    start("LayerNorm"),
    freeAll(),
    cb(100, 12),
    { ...out, params: { ...out.params, device_id: device } },
    cb(200, 24),
    end("LayerNorm"),
  ];
  const r = read(op(...split("0"), ...split("1")));
  assert.equal(r.unlisted_circular_buffer_count, 2);
  assert.deepEqual(sizes(r), [["LayerNorm", [24]]]);
  assert.equal(r.device_operations[0].device_count, 2);
});

Deno.test("string-typed and number-typed params read alike", () => {
  // Prevents older captures (every param a string) reading as null sizes and addresses.
  const strings = read(
    op(...launch("Halo", [cb(100, 64, { address: "100", size: "64", globally_allocated: "0" })])),
  );
  const numbers = read(op(...launch("Halo", [cb(100, 64)])));
  assert.deepEqual(strings, numbers);
});

Deno.test("a core_range_set past 200 characters is cut with its full length, and core_count counts all of it", () => {
  // Prevents a long core list blowing up the answer, or the count stopping at the cut.
  const long = `{${
    Array.from({ length: 20 }, (_, i) => `[(x=${i},y=0) - (x=${i},y=3)]`).join(", ")
  }}`;
  const r = read(op(...launch("Halo", [cb(100, 64, { core_range_set: long })])));
  const row = r.device_operations[0].circular_buffers[0];
  assert.equal(row.core_range_set.length, CORE_RANGE_SET_CAP);
  assert.equal(row.core_range_set_full_length, long.length);
  assert.equal(row.core_count, 80);
  const short = read(op(...launch("Halo", [cb(100, 64)]))).device_operations[0].circular_buffers[0];
  assert.equal("core_range_set_full_length" in short, false);
});

Deno.test("rows past the cap are not listed, while the counts cover them all", () => {
  // Prevents an operation with hundreds of launches overflowing the answer or undercounting.
  const graph = op(
    ...Array.from(
      { length: 40 },
      (_, i) => launch(`Op${i}`, [cb(100, 1), cb(200, 2), cb(300, i + 3)]),
    ).flat(),
  );
  const full = read(graph);
  assert.equal(full.returned_rows, 100);
  assert.equal(full.device_operations.reduce((n, e) => n + e.circular_buffers.length, 0), 100);
  assert.equal(full.device_operation_count, 40);
  assert.equal(full.circular_buffer_count, 120);
  assert.equal(full.max_bytes_per_core, 45);
  const narrow = read(graph, 25);
  assert.equal(narrow.returned_rows, 25);
  assert.equal(narrow.device_operations.length, 9);
  assert.equal(narrow.device_operations[8].circular_buffers.length, 1);
  assert.equal(narrow.device_operations[8].circular_buffer_count, 3);
});

Deno.test("a graph that is not a list, or a scope without a name, says why it cannot be read", () => {
  // Prevents a damaged graph answering as a real zero.
  assert.match(String(circularBuffersOf([{ nodes: [] }], 100)), /not a JSON list/);
  assert.match(
    String(circularBuffersOf([[{ node_type: "function_start", params: {} }]], 100)),
    /has no name/,
  );
});

Deno.test("a core range set names its distinct cores, and an impossible range none", () => {
  // Prevents overlapping ranges counted twice, or a hostile range expanding without bound.
  assert.equal(coresIn("{[(x=0,y=0) - (x=7,y=7)], [(x=0,y=0) - (x=0,y=9)]}")?.size, 66);
  assert.equal(coresIn("{[(x=0,y=0) - (x=100000,y=100000)]}"), null);
  assert.equal(coresIn(null)?.size, 0);
});
