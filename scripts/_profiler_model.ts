/**
 * The run every profiler fixture records: a small CNN block on a Wormhole device, as
 * TT-NN executes it — host input moved to DRAM and tiled, a height-sharded conv2d and relu in
 * L1 (with an L1_SMALL buffer the conv keeps), a linear and softmax interleaved in L1, a
 * residual add back to DRAM, deallocations along the way and the result back to the host.
 * Addresses come from a small allocator that places DRAM bottom-up and L1 top-down, as
 * tt-metal's allocator does; per-bank sizes follow tt-metal's page arithmetic.
 *
 * Deterministic: the same model on every run. `scale` changes the L1 shard sizes so two ranks
 * of one job can record different figures.
 */

/** Wormhole N150/N300 geometry (l1-and-allocation-facts.md §2.3, 24 KiB of L1_SMALL). */
export const WH = {
  worker_l1_size: 1499136,
  l1_num_banks: 64,
  l1_bank_size: 1370848,
  address_at_first_l1_cb_buffer: 103712,
  l1_small_size: 24576,
  dram_banks: 12,
  dram_base: 1920032,
  dram_bank_size: 1073741792,
};

/** Where a device tensor lives. */
export interface Placement {
  type: "DRAM" | "L1" | "L1_SMALL";
  layout: "INTERLEAVED" | "HEIGHT_SHARDED";
  perBank: number;
  address: number;
  /** Cores of the shard grid (sharded only). */
  cores?: number;
  grid?: string;
  shard?: [number, number];
}

/** A tensor of the run. */
export interface TensorDef {
  id: number;
  shape: number[];
  dtype: "BFLOAT16";
  layout: "TILE" | "ROW_MAJOR";
  /** Whole-tensor bytes. */
  bytes: number;
  /** null for a host tensor. */
  at: Placement | null;
}

/** An operation of the run. */
export interface OpDef {
  id: number;
  name: string;
  duration: number;
  inputs: number[];
  outputs: number[];
  /** Tensors this operation frees (ttnn.deallocate). */
  frees: number[];
  /** Device operations it launched, in order. */
  deviceOps: string[];
  args: [string, string | null][];
  /** Its stack trace: frames innermost first; null = NULL text; undefined = no row. */
  frames: [file: string, line: number, fn: string, code: string][] | null | undefined;
}

/** A buffer that is not a tensor (the conv's L1_SMALL reservation). */
export interface LooseBuffer {
  from: number;
  at: Placement;
}

/** The whole run. */
export interface Model {
  tensors: Map<number, TensorDef>;
  ops: OpDef[];
  loose: LooseBuffer[];
  /** Buffers live after each operation: tensor ids and loose buffers. */
  liveAfter: Map<number, Placement[]>;
}

/** First-fit allocator over one bank's address range. */
class Allocator {
  #free: [number, number][];
  constructor(start: number, end: number, readonly topDown: boolean) {
    this.#free = [[start, end]];
  }
  alloc(size: number): number {
    const blocks = this.topDown ? [...this.#free].reverse() : this.#free;
    const block = blocks.find(([s, e]) => e - s >= size);
    if (!block) throw new Error("fixture allocator is out of memory");
    const address = this.topDown ? block[1] - size : block[0];
    this.#free = this.#free.flatMap(([s, e]) =>
      s === block[0] && e === block[1]
        ? (this.topDown ? [[s, address]] : [[address + size, e]]).filter(([a, b]) => b > a) as [
          number,
          number,
        ][]
        : [[s, e] as [number, number]]
    );
    return address;
  }
  release(address: number, size: number): void {
    this.#free.push([address, address + size]);
    this.#free.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const r of this.#free) {
      const last = merged.at(-1);
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([...r]);
    }
    this.#free = merged;
  }
}

const TILE_PAGE = 2048;

function pages(shape: number[], layout: "TILE" | "ROW_MAJOR"): { count: number; size: number } {
  const [h, w] = shape.slice(-2);
  const outer = shape.slice(0, -2).reduce((a, b) => a * b, 1);
  return layout === "TILE"
    ? { count: outer * Math.ceil(h / 32) * Math.ceil(w / 32), size: TILE_PAGE }
    : { count: outer * h, size: w * 2 };
}

/** Builds the run; `scale` multiplies the conv's shard height (rank 1 of a job uses 2). */
export function buildModel(scale = 1): Model {
  const dram = new Allocator(WH.dram_base, WH.dram_bank_size, false);
  const l1Top = WH.address_at_first_l1_cb_buffer + WH.l1_bank_size;
  const l1 = new Allocator(WH.address_at_first_l1_cb_buffer, l1Top, true);
  const small = new Allocator(l1Top, WH.worker_l1_size, true);
  const tensors = new Map<number, TensorDef>();
  let nextTensor = 0;
  const tensor = (
    shape: number[],
    layout: "TILE" | "ROW_MAJOR",
    where: "host" | "DRAM" | "L1" | "L1_SHARDED",
  ): number => {
    const p = pages(shape, layout);
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    let at: Placement | null = null;
    if (where === "DRAM") {
      const perBank = Math.ceil(p.count / WH.dram_banks) * p.size;
      at = { type: "DRAM", layout: "INTERLEAVED", perBank, address: dram.alloc(perBank) };
    } else if (where === "L1") {
      const perBank = Math.ceil(p.count / WH.l1_num_banks) * p.size;
      at = { type: "L1", layout: "INTERLEAVED", perBank, address: l1.alloc(perBank) };
    } else if (where === "L1_SHARDED") {
      const cores = 49;
      const perBank = Math.ceil(p.count / cores) * p.size;
      at = {
        type: "L1",
        layout: "HEIGHT_SHARDED",
        perBank,
        address: l1.alloc(perBank),
        cores,
        grid: "[(x=0,y=0) - (x=7,y=5)], [(x=0,y=6) - (x=0,y=6)]",
        shard: [shape.slice(0, -1).reduce((a, b) => a * b, 1) / cores, shape.at(-1)!],
      };
    }
    const id = nextTensor++;
    tensors.set(id, { id, shape, dtype: "BFLOAT16", layout, bytes, at });
    return id;
  };
  const free = (id: number) => {
    const at = tensors.get(id)!.at!;
    (at.type === "DRAM" ? dram : l1).release(at.address, at.perBank);
  };

  const h = 3136 * scale;
  const input = tensor([1, 1, h, 64], "ROW_MAJOR", "host");
  const onDevice = tensor([1, 1, h, 64], "ROW_MAJOR", "DRAM");
  const tiled = tensor([1, 1, h, 64], "TILE", "DRAM");
  free(onDevice);
  const weight = tensor([1, 1, 576, 64], "TILE", "DRAM");
  const bias = tensor([1, 1, 32, 64], "TILE", "DRAM");
  const smallSize = 16384;
  const loose: LooseBuffer[] = [{
    from: 5,
    at: {
      type: "L1_SMALL",
      layout: "INTERLEAVED",
      perBank: smallSize,
      address: small.alloc(smallSize),
    },
  }];
  const convOut = tensor([1, 1, h, 64], "TILE", "L1_SHARDED");
  const reluOut = tensor([1, 1, h, 64], "TILE", "L1_SHARDED");
  free(convOut);
  const linearWeight = tensor([1, 1, 64, 128], "TILE", "DRAM");
  const linearOut = tensor([1, 1, h, 128], "TILE", "L1");
  const softmaxOut = tensor([1, 1, h, 128], "TILE", "L1");
  const added = tensor([1, 1, h, 128], "TILE", "DRAM");
  free(softmaxOut);
  const result = tensor([1, 1, h, 128], "TILE", "host");

  const ops: OpDef[] = [
    op(1, "ttnn.from_torch", [], [input], [], [], "test", [["0", torchRepr([1, 1, h, 64])], [
      "dtype",
      "DataType.BFLOAT16",
    ]]),
    op(2, "ttnn.to_device", [input], [onDevice], [], [], "test", [
      ["0", tensorRepr(tensors.get(input)!)],
      ["1", "<ttnn._ttnn.device.MeshDevice object at 0x7f3a2c1b5e30>"],
      ["memory_config", memoryConfigText(tensors.get(onDevice)!.at)],
    ]),
    op(3, "ttnn.to_layout", [onDevice], [tiled], [], ["TilizeDeviceOperation"], null, [
      ["0", tensorRepr(tensors.get(onDevice)!)],
      ["1", "Layout.TILE"],
    ]),
    op(4, "ttnn.deallocate", [onDevice], [], [onDevice], [], undefined, [[
      "0",
      tensorRepr(tensors.get(onDevice)!),
    ]]),
    op(
      5,
      "ttnn.conv2d",
      [tiled, weight, bias],
      [convOut],
      [],
      ["HaloDeviceOperation", "Conv2d"],
      "conv",
      [
        ["input_tensor", tensorRepr(tensors.get(tiled)!)],
        ["weight_tensor", tensorRepr(tensors.get(weight)!)],
        ["in_channels", "64"],
        ["out_channels", "64"],
        ["device", "<ttnn._ttnn.device.MeshDevice object at 0x7f3a2c1b5e30>"],
        ["bias_tensor", null],
        ["kernel_size", "(3, 3)"],
        ["stride", "(1, 1)"],
        ["padding", "(1, 1)"],
        ["conv_config", conv2dConfigRepr()],
        ["memory_config", memoryConfigText(tensors.get(convOut)!.at)],
      ],
    ),
    op(6, "ttnn.relu", [convOut], [reluOut], [], ["UnaryDeviceOperation"], "conv", [
      ["0", tensorRepr(tensors.get(convOut)!)],
      ["memory_config", memoryConfigText(tensors.get(reluOut)!.at)],
    ]),
    op(7, "ttnn.deallocate", [convOut], [], [convOut], [], "conv", [[
      "0",
      tensorRepr(tensors.get(convOut)!),
    ]]),
    op(
      8,
      "ttnn.linear",
      [reluOut, linearWeight],
      [linearOut],
      [],
      ["MatmulDeviceOperation"],
      "head",
      [
        ["0", tensorRepr(tensors.get(reluOut)!)],
        ["1", tensorRepr(tensors.get(linearWeight)!)],
        ["memory_config", memoryConfigText(tensors.get(linearOut)!.at)],
        ["program_config", "None"],
      ],
    ),
    op(9, "ttnn.softmax", [linearOut], [softmaxOut], [], ["SoftmaxDeviceOperation"], "head", [
      ["0", tensorRepr(tensors.get(linearOut)!)],
      ["dim", "-1"],
      ["memory_config", memoryConfigText(tensors.get(softmaxOut)!.at)],
    ]),
    op(10, "ttnn.add", [softmaxOut, linearOut], [added], [], ["BinaryNgDeviceOperation"], "head", [
      ["0", tensorRepr(tensors.get(softmaxOut)!)],
      ["1", tensorRepr(tensors.get(linearOut)!)],
      ["memory_config", memoryConfigText(tensors.get(added)!.at)],
    ]),
    op(11, "ttnn.deallocate", [softmaxOut], [], [softmaxOut], [], "head", [[
      "0",
      tensorRepr(tensors.get(softmaxOut)!),
    ]]),
    op(12, "ttnn.to_torch", [added], [result], [], [], "test", [[
      "0",
      tensorRepr(tensors.get(added)!),
    ]]),
  ];

  // What is live after each operation: allocated by it or earlier, not yet freed.
  const liveAfter = new Map<number, Placement[]>();
  const live = new Map<number, Placement>();
  const seen = new Set<number>();
  for (const o of ops) {
    // Weights enter the run already on device (prepared before the first call that reads them).
    for (const t of o.inputs) {
      const at = tensors.get(t)!.at;
      if (at && !seen.has(t)) live.set(t, at);
      seen.add(t);
    }
    for (const t of o.outputs) {
      seen.add(t);
      const at = tensors.get(t)!.at;
      if (at) live.set(t, at);
    }
    for (const t of o.frees) live.delete(t);
    const extra = loose.filter((b) => b.from <= o.id).map((b) => b.at);
    liveAfter.set(o.id, [...live.values(), ...extra]);
  }
  return { tensors, ops, loose, liveAfter };
}

const ROOT = "/home/user/tt-metal";
const TEST = `${ROOT}/models/demos/tiny_cnn/tests/test_tiny_cnn.py`;
const BLOCK = `${ROOT}/models/demos/tiny_cnn/tt/tiny_block.py`;
const COMMON = `${ROOT}/models/demos/tiny_cnn/tt/common.py`;
const HARNESS: [string, number, string, string][] = [
  [`${TEST}`, 88, "test_tiny_cnn", "output = run_model(device, torch_input)"],
  [
    "/home/user/.venv/lib/python3.10/site-packages/_pytest/python.py",
    159,
    "pytest_pyfunc_call",
    "result = testfunction(**testargs)",
  ],
  [
    "/home/user/.venv/lib/python3.10/site-packages/pluggy/_callers.py",
    103,
    "_multicall",
    "res = hook_impl.function(*args)",
  ],
];

function op(
  id: number,
  name: string,
  inputs: number[],
  outputs: number[],
  frees: number[],
  deviceOps: string[],
  where: "test" | "conv" | "head" | null | undefined,
  args: [string, string | null][],
): OpDef {
  const call = `${name}(`;
  const frames: OpDef["frames"] = where === "test"
    ? [[TEST, 40 + id, "run_model", `x = ${call}`], ...HARNESS]
    : where === "conv"
    ? [
      [COMMON, 20 + id, "conv_block", `x = ${call}`],
      [BLOCK, 31, "__call__", "x = conv_block(self.device, x, self.conv_weight)"],
      [TEST, 47, "run_model", "x = block(x)"],
      ...HARNESS,
    ]
    : where === "head"
    ? [
      [BLOCK, 50 + id, "mlp_head", `x = ${call}`],
      [BLOCK, 33, "__call__", "return self.mlp_head(x)"],
      [TEST, 47, "run_model", "x = block(x)"],
      ...HARNESS,
    ]
    : where;
  // Host wall seconds: larger for the device-heavy operations, deterministic.
  const duration = Number((0.0004 * id + (deviceOps.length > 0 ? 0.0123 : 0.0011)).toFixed(7));
  return { id, name, duration, inputs, outputs, frees, deviceOps, args, frames };
}

/** A CPython traceback text, innermost frame first, blank lines between frames. */
export function pythonTrace(frames: NonNullable<OpDef["frames"]>): string {
  return frames.map(([file, line, fn, code]) =>
    `  File "${file}", line ${line}, in ${fn}\n    ${code}\n`
  ).join("\n");
}

/** A native backtrace, as some captures record instead of Python frames. */
export function nativeTrace(name: string): string {
  const fn = name.replace("ttnn.", "ttnn::operations::");
  return [
    `#0 0x00007f3a41c2d1e5 in ${fn}::invoke(ttnn::Tensor const&) ()`,
    "   from /home/user/tt-metal/build/lib/_ttnncpp.so",
    "#1 0x00007f3a41b8a302 in ttnn::decorators::registered_operation_t::operator()() ()",
    "#2 0x00007f3a5e0c1a7c in pybind11::cpp_function::dispatcher(_object*, _object*, _object*) ()",
  ].join("\n");
}

/** The memory_config text tt-metal prints for a placement (older ShardSpec spelling). */
export function memoryConfigText(at: Placement | null): string {
  if (!at) return "None";
  const type = at.type === "L1_SMALL" ? "L1_SMALL" : at.type;
  const shard = at.layout === "INTERLEAVED"
    ? "std::nullopt"
    : `ShardSpec(grid={${at.grid}},shape={${at.shard![0]}, ${
      at.shard![1]
    }},orientation=ShardOrientation::ROW_MAJOR,halo=0)`;
  return `MemoryConfig(memory_layout=TensorMemoryLayout::${at.layout},buffer_type=BufferType::${type},shard_spec=${shard},nd_shard_spec=std::nullopt,created_with_nd_shard_spec=0)`;
}

function values(count: number, seed: number): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(((x % 2001) / 1000 - 1).toFixed(5));
  }
  return out.join(", ");
}

function torchRepr(shape: number[]): string {
  return `tensor([[[[${values(48, shape.at(-2)!)}, ...]]]], dtype=torch.bfloat16)`;
}

function tensorRepr(t: TensorDef): string {
  return `ttnn.Tensor([[[[${values(60, t.id + 7)}, ...]]]], shape=Shape([${
    t.shape.join(", ")
  }]), dtype=DataType::BFLOAT16, layout=Layout::${t.layout})`;
}

function conv2dConfigRepr(): string {
  return "Conv2dConfig(weights_dtype=DataType::BFLOAT16,activation=,deallocate_activation=0," +
    "reallocate_halo_output=1,act_block_h_override=0,act_block_w_div=1,reshard_if_not_optimal=0," +
    "override_sharding_config=0,shard_layout=TensorMemoryLayout::HEIGHT_SHARDED,core_grid=std::nullopt," +
    "transpose_shards=0,output_layout=Layout::TILE,enable_act_double_buffer=0," +
    "enable_weights_double_buffer=0,enable_split_reader=0,enable_subblock_padding=0," +
    "in_place=0,enable_kernel_stride_folding=0,full_inner_dim=0,config_tensors_in_dram=0," +
    "compute_kernel_config=WormholeComputeKernelConfig(math_fidelity=MathFidelity::LoFi," +
    "math_approx_mode=1,fp32_dest_acc_en=0,packer_l1_acc=1,dst_full_sync_en=0,throttle_level=0))";
}
