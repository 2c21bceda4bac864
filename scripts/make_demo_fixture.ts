/**
 * Writes `fixtures/demo/`: a small synthetic capture of a two-layer decoder step on one
 * Wormhole device — a performance report (ops CSV in tt-metal's v2.1 layout with a
 * PERF_DECODE signpost window, and a device profiler log) and a profiler report (SQLite
 * database, cluster descriptor, config). The database records each operation's captured graph,
 * whose device operations are the CSV's rows in order, so the two reports link (operation ids
 * 1–24 against CSV lines 2–27, the signposts on lines 3 and 26 linking to none). Deterministic:
 * the same bytes on every run.
 *
 *   deno task fixtures            (or: deno run --allow-read --allow-write <this> <out-dir>/)
 */
import { DatabaseSync } from "node:sqlite";
import { coreSpans } from "./make_device_log.ts";
import { random } from "./_random.ts";

const OUT = Deno.args[0] ?? new URL("../fixtures/demo/", import.meta.url).pathname;
const CLOCK_MHZ = 1000;

const rnd = random(20261129);
/** The device log's own stream, so its zones can change without moving the CSV's figures. */
const logRnd = random(5);
const toCycles = (ns: number) => Math.round((ns * CLOCK_MHZ) / 1000);

interface Op {
  code: string;
  type: "tt_dnn_device" | "signpost";
  fidelity?: string;
  cores?: number;
  kernelNs?: number;
  in0?: [number, number, number, number];
  in1?: [number, number, number, number];
  out?: [number, number, number, number];
  dtype?: string;
  mem0?: string;
  attributes?: string;
}

const DRAM = "DEV_0_DRAM_INTERLEAVED";
const L1W = "DEV_0_L1_WIDTH_SHARDED";
const matmulAttrs = (fidelity: string) =>
  `{'compute_kernel_config': 'WormholeComputeKernelConfig(math_fidelity=${fidelity};math_approx_mode=0;fp32_dest_acc_en=0;packer_l1_acc=1)'; 'program_config': 'MatmulMultiCoreReuseMultiCastDRAMShardedProgramConfig(in0_block_w=4;per_core_M=1;per_core_N=4)'}`;

function layer(): Op[] {
  const jitter = () => 0.9 + 0.2 * rnd();
  const mm = (n: number, k: number, cores: number, ns: number, fidelity = "HiFi2"): Op => ({
    code: "Matmul",
    type: "tt_dnn_device",
    fidelity,
    cores,
    kernelNs: Math.round(ns * jitter()),
    in0: [1, 1, 32, k],
    in1: [1, 1, k, n],
    out: [1, 1, 32, n],
    dtype: "BFLOAT8_B",
    mem0: L1W,
    attributes: matmulAttrs(fidelity),
  });
  const simple = (code: string, cores: number, ns: number, mem0 = L1W): Op => ({
    code,
    type: "tt_dnn_device",
    fidelity: "HiFi4",
    cores,
    kernelNs: Math.round(ns * jitter()),
    in0: [1, 1, 32, 2048],
    out: [1, 1, 32, 2048],
    dtype: "BFLOAT16",
    mem0,
    attributes: "{}",
  });
  return [
    simple("LayerNorm", 16, 9_800),
    mm(3072, 2048, 32, 41_000),
    simple("NLPCreateHeadsDecodeDeviceOperation", 8, 6_100),
    simple("ScaledDotProductAttentionDecode", 32, 27_500, DRAM),
    simple("NLPConcatHeadsDecodeDeviceOperation", 8, 5_200),
    mm(2048, 2048, 32, 28_000),
    simple("BinaryNgDeviceOperation", 16, 3_900),
    simple("LayerNorm", 16, 9_700),
    mm(8192, 2048, 64, 96_000, "LoFi"),
    mm(2048, 8192, 64, 101_000, "HiFi2"),
    simple("BinaryNgDeviceOperation", 16, 4_100),
  ];
}

const ops: Op[] = [
  {
    code: "Embeddings",
    type: "tt_dnn_device",
    fidelity: "HiFi4",
    cores: 2,
    kernelNs: 10_400,
    in0: [1, 1, 32, 32],
    out: [1, 1, 32, 2048],
    dtype: "UINT32",
    mem0: DRAM,
    attributes: "{}",
  },
  { code: "PERF_DECODE", type: "signpost" },
  ...layer(),
  ...layer(),
  { code: "PERF_DECODE_END", type: "signpost" },
  {
    code: "Untilize",
    type: "tt_dnn_device",
    fidelity: "HiFi4",
    cores: 8,
    kernelNs: 7_300,
    in0: [1, 1, 32, 2048],
    out: [1, 1, 32, 2048],
    dtype: "BFLOAT16",
    mem0: DRAM,
    attributes: "{}",
  },
];

const COLUMNS = [
  "OP CODE",
  "OP TYPE",
  "GLOBAL CALL COUNT",
  "DEVICE ID",
  "DEVICE ARCH",
  "ATTRIBUTES",
  "MATH FIDELITY",
  "CORE COUNT",
  "AVAILABLE WORKER CORE COUNT",
  "PARALLELIZATION STRATEGY",
  "HOST START TS",
  "HOST END TS",
  "HOST DURATION [ns]",
  "DEVICE FW START CYCLE",
  "DEVICE FW END CYCLE",
  "OP TO OP LATENCY [ns]",
  "DEVICE FW DURATION [ns]",
  "DEVICE KERNEL DURATION [ns]",
  "DEVICE KERNEL DURATION PER CORE MIN [ns]",
  "DEVICE KERNEL DURATION PER CORE MAX [ns]",
  "DEVICE KERNEL DURATION PER CORE AVG [ns]",
  "DEVICE BRISC KERNEL DURATION [ns]",
  "DEVICE NCRISC KERNEL DURATION [ns]",
  "DEVICE TRISC0 KERNEL DURATION [ns]",
  "DEVICE TRISC1 KERNEL DURATION [ns]",
  "DEVICE TRISC2 KERNEL DURATION [ns]",
  "DEVICE ERISC KERNEL DURATION [ns]",
  ...["INPUT_0", "INPUT_1", "OUTPUT_0"].flatMap((t) => [
    `${t}_W_PAD[LOGICAL]`,
    `${t}_Z_PAD[LOGICAL]`,
    `${t}_Y_PAD[LOGICAL]`,
    `${t}_X_PAD[LOGICAL]`,
    `${t}_LAYOUT`,
    `${t}_DATATYPE`,
    `${t}_MEMORY`,
  ]),
  "METAL TRACE ID",
  "PM IDEAL [ns]",
  "PROGRAM HASH",
  "PROGRAM CACHE HIT",
];

// The program cache: a program is keyed by op and shapes; the second layer reuses the first
// layer's programs (cache hits), except NLPConcatHeads, whose repeat call misses (a rebuild).
const programs = new Map<string, number>();
function programCall(op: Op): { hash: string; hit: string } {
  const key = `${op.code}|${op.in0}|${op.in1}|${op.out}|${op.fidelity}`;
  let hash = programs.get(key);
  const repeat = hash !== undefined;
  if (hash === undefined) {
    hash = 1000003 * (programs.size + 1) + key.length;
    programs.set(key, hash);
  }
  return {
    hash: String(hash),
    hit: repeat && !op.code.startsWith("NLPConcatHeads") ? "True" : "False",
  };
}

function csvCell(v: string | number | undefined): string {
  if (v === undefined) return "";
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const shape = (s: number[] | undefined, mem: string | undefined, dtype: string | undefined) =>
  s ? [...s.map((d) => `${d}[${d}]`), "TILE", dtype, mem] : ["", "", "", "", "", "", ""];

const rows: string[] = [COLUMNS.join(",")];
const log: string[] = [
  `ARCH: wormhole_b0, CHIP_FREQ[MHz]: ${CLOCK_MHZ}, Max Compute Cores: 64`,
  "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, run host ID, trace id, trace id counter, zone name, type, source line, source file, meta data",
];
let hostNs = 11_684_348_586;
let cycle = 14_168_404_359_928;
let callCount = 1024;
for (const op of ops) {
  hostNs += 20_000 + Math.round(rnd() * 5_000);
  if (op.type === "signpost") {
    const cells = COLUMNS.map((
      c,
    ) => (c === "OP CODE"
      ? op.code
      : c === "OP TYPE"
      ? "signpost"
      : c === "HOST START TS"
      ? String(hostNs)
      : "")
    );
    rows.push(cells.join(","));
    continue;
  }
  const kernel = op.kernelNs!;
  const program = programCall(op);
  const fw = kernel + 700 + Math.round(rnd() * 300);
  const gap = 2_000 + Math.round(rnd() * 6_000);
  cycle += Math.round((gap * CLOCK_MHZ) / 1000);
  const fwStart = cycle;
  const fwEnd = cycle + Math.round((fw * CLOCK_MHZ) / 1000);
  cycle = fwEnd;
  const values: Record<string, string | number | undefined> = {
    "OP CODE": op.code,
    "OP TYPE": op.type,
    "GLOBAL CALL COUNT": callCount,
    "DEVICE ID": 0,
    "DEVICE ARCH": "wormhole_b0",
    "ATTRIBUTES": op.attributes,
    "MATH FIDELITY": op.fidelity,
    "CORE COUNT": op.cores,
    "AVAILABLE WORKER CORE COUNT": 64,
    "HOST START TS": hostNs,
    "HOST END TS": hostNs + 150_000,
    "HOST DURATION [ns]": 150_000,
    "DEVICE FW START CYCLE": fwStart,
    "DEVICE FW END CYCLE": fwEnd,
    "OP TO OP LATENCY [ns]": gap,
    "DEVICE FW DURATION [ns]": fw,
    "DEVICE KERNEL DURATION [ns]": kernel,
    "DEVICE KERNEL DURATION PER CORE MIN [ns]": Math.round(kernel * 0.82),
    "DEVICE KERNEL DURATION PER CORE MAX [ns]": kernel - 30,
    "DEVICE KERNEL DURATION PER CORE AVG [ns]": Math.round(kernel * 0.91),
    "DEVICE BRISC KERNEL DURATION [ns]": kernel - 40,
    "DEVICE NCRISC KERNEL DURATION [ns]": kernel - 60,
    "DEVICE TRISC0 KERNEL DURATION [ns]": kernel - 200,
    "DEVICE TRISC1 KERNEL DURATION [ns]": kernel - 180,
    "DEVICE TRISC2 KERNEL DURATION [ns]": kernel - 190,
    "PM IDEAL [ns]": Math.round(kernel * 0.4),
    "PROGRAM HASH": program.hash,
    "PROGRAM CACHE HIT": program.hit,
  };
  const shapes = [
    ...shape(op.in0, op.mem0, op.dtype),
    ...shape(op.in1, op.in1 ? DRAM : undefined, op.in1 ? "BFLOAT8_B" : undefined),
    ...shape(op.out, op.mem0, op.code === "Embeddings" ? "BFLOAT16" : op.dtype),
  ];
  const cells = COLUMNS.map((c, i) => {
    const j = i - COLUMNS.indexOf("INPUT_0_W_PAD[LOGICAL]");
    if (j >= 0 && j < shapes.length) return csvCell(shapes[j]);
    return csvCell(values[c]);
  });
  rows.push(cells.join(","));
  // Device log: firmware and kernel zones for each RISC of each core the op ran on. Each
  // core's kernel span (its first kernel start to its last kernel end) reproduces the row's
  // DEVICE KERNEL DURATION PER CORE MIN / MAX / AVG, so core_spread agrees with the CSV. The
  // log draws from its own random stream; `rnd` is still drawn as before, so the CSV and the
  // database stay byte for byte what they were.
  const spans = coreSpans(
    op.cores!,
    toCycles(values["DEVICE KERNEL DURATION PER CORE MIN [ns]"] as number),
    toCycles(values["DEVICE KERNEL DURATION PER CORE MAX [ns]"] as number),
    toCycles(values["DEVICE KERNEL DURATION PER CORE AVG [ns]"] as number),
    logRnd,
  );
  for (let core = 0; core < op.cores!; core++) {
    const x = 1 + (core % 8);
    const y = 1 + Math.floor(core / 8);
    const k0 = fwStart + 300 + Math.floor(logRnd() * 100);
    const k1 = k0 + spans[core];
    const slack = Math.floor(spans[core] / 20);
    for (const risc of ["BRISC", "NCRISC", "TRISC_0", "TRISC_1", "TRISC_2"]) {
      rnd();
      rnd();
      // BRISC opens the core's kernel time and TRISC_2 closes it; the others run inside.
      const kStart = risc === "BRISC" ? k0 : k0 + Math.floor(logRnd() * slack);
      const kEnd = risc === "TRISC_2" ? k1 : k1 - Math.floor(logRnd() * slack);
      for (
        const [zone, start, end] of [[`${risc.replace(/_\d$/, "")}-FW`, fwStart, fwEnd], [
          `${risc.replace(/_\d$/, "")}-KERNEL`,
          kStart,
          kEnd,
        ]] as const
      ) {
        log.push(
          `0, ${x}, ${y}, ${risc}, 1, ${start}, 0, ${callCount}, , , ${zone}, ZONE_START, 10, firmware.cc, `,
        );
        log.push(
          `0, ${x}, ${y}, ${risc}, 2, ${end}, 0, ${callCount}, , , ${zone}, ZONE_END, 20, firmware.cc, `,
        );
      }
    }
  }
  callCount += 1024;
}

await Deno.mkdir(`${OUT}performance`, { recursive: true });
await Deno.mkdir(`${OUT}profiler`, { recursive: true });
await Deno.writeTextFile(`${OUT}performance/ops_perf_results_demo.csv`, rows.join("\n") + "\n");
await Deno.writeTextFile(`${OUT}performance/profile_log_device.csv`, log.join("\n") + "\n");

// Profiler report: the devices and operations the capture ran.
await Deno.remove(`${OUT}profiler/db.sqlite`).catch(() => {});
const db = new DatabaseSync(`${OUT}profiler/db.sqlite`);
db.exec(`
  CREATE TABLE devices (device_id int, num_y_cores int, num_x_cores int, num_y_compute_cores int,
    num_x_compute_cores int, worker_l1_size int, l1_num_banks int, l1_bank_size int,
    address_at_first_l1_bank int, address_at_first_l1_cb_buffer int, num_banks_per_storage_core int,
    num_compute_cores int, num_storage_cores int, total_l1_memory int, total_l1_for_tensors int,
    total_l1_for_interleaved_buffers int, total_l1_for_sharded_buffers int, cb_limit int);
  CREATE TABLE operations (operation_id int UNIQUE, name text, duration float);
  CREATE TABLE operation_arguments (operation_id int, name text, value text);
  CREATE TABLE stack_traces (operation_id int, stack_trace text);
  CREATE TABLE tensors (tensor_id int UNIQUE, shape text, dtype text, layout text, memory_config text,
    device_id int, address int, buffer_type int);
  CREATE TABLE input_tensors (operation_id int, input_index int, tensor_id int);
  CREATE TABLE output_tensors (operation_id int, output_index int, tensor_id int);
  CREATE TABLE buffers (operation_id int, device_id int, address int, max_size_per_bank int,
    buffer_type int, buffer_layout int);
  CREATE TABLE captured_graph (operation_id int, captured_graph text);
`);
db.prepare(
  "INSERT INTO devices VALUES (0, 10, 12, 8, 8, 1499136, 64, 1395424, 0, 103712, 1, 64, 0, 89307136, 0, 89307136, 89307136, 1395424)",
).run();
const insertOp = db.prepare("INSERT INTO operations VALUES (?, ?, ?)");
const names: Record<string, string> = {
  Embeddings: "ttnn.embedding",
  LayerNorm: "ttnn.layer_norm",
  Matmul: "ttnn.linear",
  NLPCreateHeadsDecodeDeviceOperation: "ttnn.experimental.nlp_create_qkv_heads_decode",
  ScaledDotProductAttentionDecode: "ttnn.transformer.scaled_dot_product_attention_decode",
  NLPConcatHeadsDecodeDeviceOperation: "ttnn.experimental.nlp_concat_heads_decode",
  BinaryNgDeviceOperation: "ttnn.add",
  Untilize: "ttnn.untilize",
};
const insertGraph = db.prepare("INSERT INTO captured_graph VALUES (?, ?)");
let id = 1;
for (const op of ops) {
  if (op.type === "signpost") continue;
  insertGraph.run(id, graphOf(names[op.code] ?? op.code, op.code));
  insertOp.run(id++, names[op.code] ?? op.code, Math.round(rnd() * 4e5) / 1e9);
}

/**
 * The captured graph of one operation: its ttnn function's scope around the one device
 * operation it launched (the CSV row's OP CODE), with the output tensor created by a nested
 * C++ function scope that is not a device operation, as tt-metal's graph capture records it.
 */
function graphOf(fn: string, deviceOp: string): string {
  const scopes: [string, string, Record<string, string>][] = [
    ["capture_start", "", {}],
    ["function_start", fn, { inputs: "1" }],
    ["function_start", deviceOp, { inputs: "1" }],
    ["function_start", "tt::tt_metal::create_device_tensor", {}],
    ["function_end", "tt::tt_metal::create_device_tensor", {}],
    ["function_end", deviceOp, {}],
    ["function_end", fn, {}],
    ["capture_end", "", {}],
  ];
  return JSON.stringify(scopes.map(([node_type, name, extra], counter) => ({
    counter,
    node_type,
    params: name === "" ? {} : { name, ...extra },
    connections: counter + 1 < scopes.length ? [counter + 1] : [],
  })));
}
db.close();
await Deno.writeTextFile(
  `${OUT}profiler/cluster_descriptor.yaml`,
  "arch: {0: Wormhole}\nchips: {0: [0, 0, 0, 0]}\nchips_with_mmio: [0: 0]\n",
);
await Deno.writeTextFile(
  `${OUT}profiler/config.json`,
  JSON.stringify({ report_name: "demo decoder step", enable_fast_runtime_mode: false }, null, 2) +
    "\n",
);
console.error(
  `wrote ${OUT}: ${rows.length - 1} ops rows, ${log.length - 2} device-log rows, ${
    id - 1
  } operations`,
);
