/**
 * What the `v2_1_failed_run` fixture adds to the tiny CNN run: a second pass that runs out of
 * L1 and falls back to DRAM, the way a failed run's report records it.
 *
 *   13 ttnn.linear  asks for L1; its MatmulDeviceOperation launch threw an L1 out-of-memory
 *                   error and was left open (older tt-metal's shape); no output.
 *   14 ttnn.linear  the retry: asks for L1, its output is in DRAM (retry_after_failure).
 *   15 ttnn.softmax asks for L1, its output is in DRAM (argument_mismatch).
 *   16 ttnn.reshape asks for L1, its output is a view at its DRAM input's address (no
 *                   fallback).
 *
 * The errors table then holds, in row order: the importer's incomplete operation at base id 0
 * (written with every v2 flavour), the out-of-memory error on operation 13 (attached), a
 * second row with the same key (unattached), and importer orphans at base id 10000 with a
 * name no operation there has (#2082) — a dependency out-of-memory, circular buffers beyond
 * L1 and circular buffers clashing with an L1 buffer, each framed as tt-metal stores it.
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

const CONFIG = (type: string) =>
  `MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::${type},` +
  "shard_spec=std::nullopt,nd_shard_spec=std::nullopt,created_with_nd_shard_spec=0)";

const framed = (where: string, message: string) =>
  `TT_FATAL @ /workspace/tt_metal/${where}\ninfo:\n${message}\nbacktrace:\n` +
  " --- /workspace/build_Release/lib/libtt_metal.so(+0x570add) [0x7f0bc96eeadd]\n" +
  " --- /workspace/build_Release/lib/libtt_metal.so(+0x56f1c2) [0x7f0bc96ed1c2]\n";

/** The L1 out-of-memory error of operation 13: 426 KiB short per bank. */
export const L1_OUT_OF_MEMORY = framed(
  "impl/allocator/bank_manager.cpp:486: false",
  "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each " +
    "bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: " +
    "382720 B, largest free block: 300000 B)",
);

const ORPHANS: [string, string][] = [
  [
    "RuntimeError",
    framed(
      "impl/allocator/bank_manager.cpp:462: false",
      "Out of Memory: Not enough space after considering dependencies to allocate 4096 B DRAM " +
        "across 2 banks (2048 B per bank), bank size is 8192 B (allocated: 3072 B, free: 5120 " +
        "B, largest free block: 3072 B). After subtracting 2 dependency range(s) and 0 " +
        "additional occupied range(s), 2048 B remained placeable across 2 window(s), largest " +
        "1024 B",
    ),
  ],
  [
    "RuntimeError",
    framed(
      "impl/program/program.cpp:1582: tt::exception",
      "Statically allocated circular buffers on core range [0-0 - 7-9] grow to 1600000 B " +
        "which is beyond max L1 size of 1499136 B",
    ),
  ],
  [
    "RuntimeError",
    framed(
      "impl/program/program.cpp:921: tt::exception",
      "Statically allocated circular buffers in program 166 clash with L1 buffers on core " +
        "range [(x=0,y=0) - (x=4,y=7)]. L1 buffer allocated at 600256 and static circular " +
        "buffer region ends at 621824",
    ),
  ],
];

interface Op {
  id: number;
  name: string;
  device: string;
  closed: boolean;
  input: number;
  output?: { id: number; address: number };
}

const OPS: Op[] = [
  { id: 13, name: "ttnn.linear", device: "MatmulDeviceOperation", closed: false, input: 10 },
  {
    id: 14,
    name: "ttnn.linear",
    device: "MatmulDeviceOperation",
    closed: true,
    input: 10,
    output: { id: 101, address: 2056000 },
  },
  {
    id: 15,
    name: "ttnn.softmax",
    device: "SoftmaxDeviceOperation",
    closed: true,
    input: 101,
    output: { id: 102, address: 2123616 },
  },
  {
    id: 16,
    name: "ttnn.reshape",
    device: "ReshapeViewDeviceOperation",
    closed: true,
    input: 102,
    output: { id: 103, address: 2123616 },
  },
];

/** Appends the failed second pass to a written v2.1 database. */
export function failedRun(db: DatabaseSync): void {
  const run = (sql: string, ...values: SQLInputValue[]) => db.prepare(sql).run(...values);
  for (const op of OPS) {
    run("INSERT INTO operations VALUES (?, ?, ?)", op.id, op.name, 0.0125);
    run("INSERT INTO operation_arguments VALUES (?, ?, ?)", op.id, "memory_config", CONFIG("L1"));
    run("INSERT INTO input_tensors VALUES (?, 0, ?)", op.id, op.input);
    if (op.output) {
      run("INSERT INTO output_tensors VALUES (?, 0, ?)", op.id, op.output.id);
      run(
        "INSERT INTO tensors (tensor_id, shape, dtype, layout, memory_config, device_id, " +
          "address, buffer_type, size) VALUES (?, 'Shape([1, 1, 3136, 64])', " +
          "'DataType.BFLOAT16', 'Layout.TILE', ?, 0, ?, 'DRAM', 401408)",
        op.output.id,
        CONFIG("DRAM"),
        op.output.address,
      );
    }
    // The snapshot after each operation is the run's last one, plus what the pass allocated.
    run(
      "INSERT INTO buffers SELECT ?, device_id, address, max_size_per_bank, buffer_type, " +
        "buffer_layout FROM buffers WHERE operation_id = 12",
      op.id,
    );
    for (const prior of OPS.filter((p) => p.id <= op.id && p.output && p.id !== 16)) {
      run("INSERT INTO buffers VALUES (?, 0, ?, 33792, 0, 0)", op.id, prior.output!.address);
    }
    run("INSERT INTO captured_graph VALUES (?, ?)", op.id, JSON.stringify(graph(op)));
  }
  const error = (id: number, name: string, type: string, message: string) =>
    run("INSERT INTO errors VALUES (?, ?, ?, ?, '', '')", id, name, type, message);
  error(13, "ttnn.linear", "RuntimeError", L1_OUT_OF_MEMORY);
  error(13, "ttnn.linear", "RuntimeError", "raised again while unwinding");
  for (const [type, message] of ORPHANS) error(10000, "ttnn.matmul", type, message);
}

function graph(op: Op): Record<string, unknown>[] {
  const nodes: Record<string, unknown>[] = [
    { node_type: "capture_start", params: {} },
    { node_type: "function_start", params: { name: op.name, inputs: "2" }, stacking_level: 1 },
    { node_type: "function_start", params: { name: op.device, inputs: "1" }, stacking_level: 2 },
  ];
  if (op.closed) {
    nodes.push({ node_type: "function_end", params: { name: op.device }, stacking_level: 2 });
  }
  nodes.push(
    { node_type: "function_end", params: { name: op.name }, stacking_level: 1 },
    { node_type: "capture_end", params: {} },
  );
  return nodes.map((n, i) => ({
    counter: i,
    ...n,
    connections: i + 1 < nodes.length ? [i + 1] : [],
  }));
}
