/**
 * Writes `fixtures/profiler/<flavour>/`: profiler report directories (db.sqlite, config.json,
 * cluster_descriptor.yaml) shaped like the ones each generation of tt-metal's writer produces
 * (profiler-db-format.md §1 and §7), all recording the same small CNN run
 * (`_profiler_model.ts`). Each flavour's `standsFor` says which real shape it is; the same
 * text goes into fixtures/profiler/README.md. Deterministic; every database test reads these.
 *
 *   deno run --allow-read --allow-write scripts/make_profiler_fixtures.ts [out-dir]
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import {
  buildModel,
  memoryConfigText,
  type Model,
  nativeTrace,
  type Placement,
  pythonTrace,
  WH,
} from "./_profiler_model.ts";
import { capturedGraph } from "./_profiler_graph.ts";
import { failedRun } from "./_profiler_failed_run.ts";
import { CB_FLAVOURS } from "./_profiler_cb_shapes.ts";
import { l1PeakOverflow, l1PeakPass } from "./_profiler_l1_peak.ts";

/** One database shape. */
export interface Flavour {
  name: string;
  standsFor: string;
  schema: "w1" | "v2" | "v2.1";
  tensorSize?: boolean;
  devices?: number;
  duplicateDeviceRow?: boolean;
  ranks?: number;
  rankOn?: "all" | "operations";
  traces?: "python" | "native" | "empty";
  textBufferType?: boolean;
  numericGraph?: boolean;
  geometry?: "full" | "none";
  /** Only these tables are written (a capture cut short). */
  only?: string[];
  /** An extra L1 buffer on the last device after this operation (mesh imbalance). */
  extraL1After?: number;
  /** Run after the model is written, before the transaction commits. */
  after?: (db: DatabaseSync) => void;
  arch: string;
}

/** Every flavour written. */
export const FLAVOURS: Flavour[] = [
  {
    name: "w1_python_writer",
    standsFor: "W1 (2024–2025): ttnn's Python decorators writing SQLite during the run — " +
      "5-column buffers, integer buffer types, 2-column stack_traces with CPython traces, one " +
      "captured_graph row per operation with every param a string, nodes/edges, no errors " +
      "table; cluster_descriptor.yaml spells the arch `Wormhole`.",
    schema: "w1",
    arch: "Wormhole",
  },
  {
    name: "v2_1_tensor_size",
    standsFor: "W2c: the graph_report importer, schema 2.1 — source_files and " +
      "stack_traces.source_file_id, buffers.buffer_layout, device_tensors, report_metadata, the " +
      "6-column errors table; plus the optional tensors.size column (whole-tensor bytes, 5 of 86 " +
      "local captures), text buffer types in tensors and the newest capture's number-typed " +
      "graph params; cluster_descriptor.yaml spells the arch `wormhole_b0`.",
    schema: "v2.1",
    tensorSize: true,
    textBufferType: true,
    numericGraph: true,
    arch: "wormhole_b0",
  },
  {
    name: "v2_1_failed_run",
    standsFor: "W2c as v2_1_tensor_size, then a second pass that runs out of L1 " +
      "(`_profiler_failed_run.ts`): an attached L1 out-of-memory error whose device operation " +
      "was left open, its retry and another operation with outputs in DRAM, a view that is " +
      "not a fallback, a second row on the same key, and importer orphans at base id 10000 " +
      "holding the other allocation-failure messages.",
    schema: "v2.1",
    tensorSize: true,
    textBufferType: true,
    numericGraph: true,
    after: failedRun,
    arch: "wormhole_b0",
  },
  {
    name: "v2_1_l1_peak",
    standsFor: "W2c as v2_1_tensor_size, then operations whose captured graphs hold what the " +
      "L1 replay must read (`_profiler_l1_peak.ts`): intermediate tensors, a buffer missing " +
      "from the snapshot, globally allocated and address-less circular buffers, sizes without " +
      "max_size_per_bank, a null deallocation address, an operation with no graph or buffers " +
      "rows, and an L1 address reused by tensors with different last consumers.",
    schema: "v2.1",
    tensorSize: true,
    textBufferType: true,
    numericGraph: true,
    after: l1PeakPass,
    arch: "wormhole_b0",
  },
  {
    name: "v2_1_l1_peak_exceeds",
    standsFor: "W2c as v2_1_tensor_size, then an operation whose graph writes an L1 buffer's " +
      "whole size as its per-bank size, so replaying it exceeds the device's L1.",
    schema: "v2.1",
    tensorSize: true,
    textBufferType: true,
    numericGraph: true,
    after: l1PeakOverflow,
    arch: "wormhole_b0",
  },
  {
    name: "v2_mesh_two_devices",
    standsFor: "W2b: the importer, schema 2, on an N300 mesh of two devices — every tensor " +
      "placed on both (device_tensors), buffers rows per device with one extra L1 buffer on " +
      "device 1 after operation 9, and device 0 recorded twice in devices (a stale first row " +
      "with no geometry; the last row is the one read).",
    schema: "v2",
    devices: 2,
    duplicateDeviceRow: true,
    extraL1After: 9,
    arch: "Wormhole",
  },
  {
    name: "ranked_two_hosts",
    standsFor: "A multi-host report (2 of 86 local captures): `rank int NOT NULL DEFAULT 0` on " +
      "every table, ids restarting at 1 per rank, UNIQUE(operation_id, rank); rank 1 ran twice " +
      "the batch, so its L1 figures differ. Ranked config/cluster descriptor files per rank.",
    schema: "v2.1",
    ranks: 2,
    rankOn: "all",
    arch: "wormhole_b0",
  },
  {
    name: "mixed_rank_operations_only",
    standsFor: "A multi-host report whose writer put `rank` on operations and on no other " +
      "table: the figures' tables union both ranks' rows, so no rank can be attributed them.",
    schema: "v2",
    ranks: 2,
    rankOn: "operations",
    arch: "Wormhole",
  },
  {
    name: "w1_native_traces",
    standsFor: "W1 from a build that recorded native C++ backtraces (8 of 86 local captures) " +
      "instead of Python frames in stack_traces.",
    schema: "w1",
    traces: "native",
    arch: "Wormhole",
  },
  {
    name: "v2_no_traces_no_geometry",
    standsFor: "W2b with stack_traces present and empty (Python stack traces disabled) and a " +
      "devices table like the visualizer's hand-made fixtures: bank size and count filled, " +
      "address_at_first_l1_cb_buffer NULL, so no L1 window can be drawn.",
    schema: "v2",
    traces: "empty",
    geometry: "none",
    arch: "Wormhole",
  },
  {
    name: "w1_truncated_operations_only",
    standsFor: "W1 cut short: the capture stopped after writing devices and operations, " +
      "before any tensor, argument, trace or buffer table.",
    schema: "w1",
    only: ["devices", "operations"],
    arch: "Wormhole",
  },
  ...CB_FLAVOURS,
];

const OUT = Deno.args[0] ?? new URL("../fixtures/profiler/", import.meta.url).pathname;

const DEVICE_COLUMNS = "device_id int, num_y_cores int, num_x_cores int, " +
  "num_y_compute_cores int, num_x_compute_cores int, worker_l1_size int, l1_num_banks int, " +
  "l1_bank_size int, address_at_first_l1_bank int, address_at_first_l1_cb_buffer int, " +
  "num_banks_per_storage_core int, num_compute_cores int, num_storage_cores int, " +
  "total_l1_memory int, total_l1_for_tensors int, total_l1_for_interleaved_buffers int, " +
  "total_l1_for_sharded_buffers int, cb_limit int";

function schemaOf(f: Flavour): Record<string, string> {
  const v2 = f.schema !== "w1";
  const t: Record<string, string> = {
    devices: DEVICE_COLUMNS,
    tensors: "tensor_id int UNIQUE, shape text, dtype text, layout text, memory_config text, " +
      `device_id int, address int, buffer_type int${f.tensorSize ? ", size int" : ""}`,
    local_tensor_comparison_records: "tensor_id int UNIQUE, golden_tensor_id int, matches bool, " +
      "desired_pcc bool, actual_pcc float",
    global_tensor_comparison_records: "tensor_id int UNIQUE, golden_tensor_id int, " +
      "matches bool, desired_pcc bool, actual_pcc float",
    operations: "operation_id int UNIQUE, name text, duration float",
    operation_arguments: "operation_id int, name text, value text",
    stack_traces: "operation_id int, stack_trace text" +
      (f.schema === "v2.1" ? ", source_file_id int REFERENCES source_files(id)" : ""),
    input_tensors: "operation_id int, input_index int, tensor_id int",
    output_tensors: "operation_id int, output_index int, tensor_id int",
    buffers: "operation_id int, device_id int, address int, max_size_per_bank int, " +
      `buffer_type int${v2 ? ", buffer_layout int" : ""}`,
    buffer_pages: "operation_id int, device_id int, address int, core_y int, core_x int, " +
      "bank_id int, page_index int, page_address int, page_size int, buffer_type int",
    nodes: "operation_id int, unique_id int, node_operation_id int, name text",
    edges: "operation_id int, source_unique_id int, sink_unique_id int, " +
      "source_output_index int, sink_input_index int, key int",
    captured_graph: "operation_id int, captured_graph text",
  };
  if (v2) {
    t.device_tensors = "tensor_id int, device_id int, address int";
    t.report_metadata = "key text UNIQUE, value text";
    t.errors = "operation_id int, operation_name text, error_type text, error_message text, " +
      "stack_trace text, timestamp text";
  }
  if (f.schema === "v2.1") {
    t.source_files = "id INTEGER PRIMARY KEY, path text UNIQUE NOT NULL, contents text";
  }
  const ranked = f.rankOn === "all"
    ? [
      "operations",
      "operation_arguments",
      "stack_traces",
      "input_tensors",
      "output_tensors",
      "tensors",
      "devices",
      "errors",
      "buffers",
      "buffer_pages",
      "captured_graph",
      "device_tensors",
    ]
    : f.rankOn === "operations"
    ? ["operations"]
    : [];
  for (const table of ranked) {
    if (!t[table]) continue;
    t[table] = t[table].replace(" UNIQUE,", ",") + ", rank int NOT NULL DEFAULT 0";
    if (table === "operations") t[table] += ", UNIQUE(operation_id, rank)";
    if (table === "tensors") t[table] += ", UNIQUE(tensor_id, rank)";
  }
  if ((f.ranks ?? 1) > 1) t.tensors = t.tensors.replace("tensor_id int UNIQUE,", "tensor_id int,");
  if (f.only) { for (const table of Object.keys(t)) if (!f.only.includes(table)) delete t[table]; }
  return t;
}

async function writeFlavour(f: Flavour): Promise<void> {
  const dir = `${OUT}${f.name}`;
  await Deno.mkdir(dir, { recursive: true });
  for await (const e of Deno.readDir(dir)) await Deno.remove(`${dir}/${e.name}`);
  const db = new DatabaseSync(`${dir}/db.sqlite`);
  db.exec("PRAGMA page_size = 1024; PRAGMA journal_mode = DELETE;");
  const tables = schemaOf(f);
  for (const [name, cols] of Object.entries(tables)) db.exec(`CREATE TABLE ${name} (${cols})`);
  if (tables.source_files) {
    db.exec("CREATE INDEX idx_stack_traces_source_file_id ON stack_traces(source_file_id)");
  }
  const hasRank = (table: string) => / rank int/.test(tables[table] ?? "");
  const insert = (table: string, rank: number, ...values: SQLInputValue[]) => {
    if (!tables[table]) return;
    const all = hasRank(table) ? [...values, rank] : values;
    db.prepare(`INSERT INTO ${table} VALUES (${all.map(() => "?").join(", ")})`).run(...all);
  };
  db.exec("BEGIN");
  for (let rank = 0; rank < (f.ranks ?? 1); rank++) {
    writeRank(f, buildModel(rank + 1), rank, insert);
  }
  if (tables.report_metadata) {
    const meta: [string, string][] = [
      ["schema_version", f.schema === "v2.1" ? "2.1" : "2"],
      ["capture_timestamp_ns", "1773424287168605099"],
      ["total_duration_ns", "22119664963"],
      ["rank", "0"],
      ["world_size", String(f.ranks ?? 1)],
      ["git_sha", "00b0fa3c5e1d2f4a6b7c8d9e0f1a2b3c4d5e6f70"],
      ["build_type", "Release"],
      ["git_dirty", "False"],
    ];
    for (const [k, v] of meta) insert("report_metadata", 0, k, v);
  }
  f.after?.(db);
  db.exec("COMMIT");
  db.close();
  await writeSidecars(f, dir);
}

type Insert = (table: string, rank: number, ...values: SQLInputValue[]) => void;

function writeRank(f: Flavour, model: Model, rank: number, insert: Insert): void {
  const devices = f.devices ?? 1;
  for (let d = 0; d < devices; d++) {
    if (f.duplicateDeviceRow && d === 0) insert("devices", rank, ...deviceRow(d, "stale"));
    insert("devices", rank, ...deviceRow(d, f.geometry ?? "full"));
  }
  const importer = f.schema !== "w1";
  const typeValue = (at: Placement) =>
    f.textBufferType ? (at.type === "DRAM" ? "DRAM" : at.type) : typeEnum(at);
  for (const t of model.tensors.values()) {
    const row: SQLInputValue[] = [
      t.id,
      `Shape([${t.shape.join(", ")}])`,
      "DataType.BFLOAT16",
      `Layout.${t.layout}`,
      t.at ? memoryConfigText(t.at) : null,
      t.at ? 0 : null,
      t.at ? t.at.address : null,
      t.at ? typeValue(t.at) : importer ? 0 : null,
    ];
    if (f.tensorSize) row.push(t.bytes);
    insert("tensors", rank, ...row);
    if (t.at && importer) {
      for (let d = 0; d < devices; d++) insert("device_tensors", rank, t.id, d, t.at.address);
    }
  }
  const sourceIds = new Map<string, number>();
  for (const op of model.ops) {
    insert("operations", rank, op.id, op.name, op.duration);
    for (const [name, value] of op.args) insert("operation_arguments", rank, op.id, name, value);
    op.inputs.forEach((t, i) => insert("input_tensors", rank, op.id, i, t));
    op.outputs.forEach((t, i) => insert("output_tensors", rank, op.id, i, t));
    if (op.frames !== undefined && f.traces !== "empty") {
      const text = op.frames === null
        ? null
        : f.traces === "native"
        ? nativeTrace(op.name)
        : pythonTrace(op.frames);
      const extra: SQLInputValue[] = [];
      if (f.schema === "v2.1") {
        const file = op.frames?.[0]?.[0] ?? null;
        if (file !== null && !sourceIds.has(file) && rank === 0) {
          sourceIds.set(file, sourceIds.size + 1);
          insert("source_files", rank, sourceIds.size, file, `# ${file}\n`);
        }
        extra.push(file === null ? null : sourceIds.get(file) ?? null);
      }
      insert("stack_traces", rank, op.id, text, ...extra);
    }
    for (let d = 0; d < devices; d++) {
      const live = [...model.liveAfter.get(op.id)!];
      if (f.extraL1After === op.id && d === devices - 1) {
        const lowest = Math.min(...live.filter((p) => p.type === "L1").map((p) => p.address));
        live.push({ type: "L1", layout: "INTERLEAVED", perBank: 65536, address: lowest - 65536 });
      }
      for (const at of live) {
        const layout = at.layout === "INTERLEAVED" ? 0 : 2;
        insert(
          "buffers",
          rank,
          op.id,
          d,
          at.address,
          at.perBank,
          typeEnum(at),
          ...(importer ? [layout] : []),
        );
      }
    }
    const graph = capturedGraph(model, op, { numeric: !!f.numericGraph, device: 0 });
    insert("captured_graph", rank, op.id, graph);
    insert("nodes", rank, 0, op.id, op.id, op.name);
  }
  // A few page rows, as a capture with detailed buffer reports writes them.
  const first = model.liveAfter.get(2)![0];
  for (let page = 0; page < 3; page++) {
    insert("buffer_pages", rank, 2, 0, first.address, 0, page, page, page, first.address, 128, 0);
  }
  if (f.schema !== "w1") {
    insert(
      "errors",
      rank,
      0,
      "ttnn.to_torch",
      "incomplete_operation",
      "Operation 'ttnn.to_torch' started but never completed (likely crashed)",
      "",
      "",
    );
  }
}

function typeEnum(at: Placement): number {
  return at.type === "DRAM" ? 0 : at.type === "L1" ? 1 : 3;
}

function deviceRow(id: number, geometry: "full" | "none" | "stale"): SQLInputValue[] {
  const bank = WH.l1_bank_size;
  if (geometry === "stale") {
    return [id, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0];
  }
  return [
    id,
    8,
    8,
    8,
    8,
    WH.worker_l1_size,
    WH.l1_num_banks,
    bank,
    0,
    geometry === "none" ? null : WH.address_at_first_l1_cb_buffer,
    1,
    64,
    0,
    64 * WH.worker_l1_size,
    0,
    64 * bank,
    64 * bank,
    WH.worker_l1_size - WH.address_at_first_l1_cb_buffer,
  ];
}

async function writeSidecars(f: Flavour, dir: string): Promise<void> {
  const world = f.ranks ?? 1;
  const chips = f.devices ?? 1;
  for (let n = 1; n <= world; n++) {
    const suffix = world > 1 ? `_${n}_of_${world}` : "";
    const ids = Array.from({ length: chips }, (_, i) => i);
    await Deno.writeTextFile(
      `${dir}/cluster_descriptor${suffix}.yaml`,
      `arch: {${ids.map((i) => `${i}: ${f.arch}`).join(", ")}}\n` +
        `chips: {${ids.map((i) => `${i}: [${i}, 0, 0, 0]`).join(", ")}}\n` +
        `chips_with_mmio: [${ids.slice(0, 1).map((i) => `${i}: ${i}`).join(", ")}]\n` +
        `chip_to_boardtype: {${
          ids.map((i) => `${i}: ${chips > 1 ? "n300" : "n150"}`).join(", ")
        }}\n`,
    );
    await Deno.writeTextFile(
      `${dir}/config${suffix}.json`,
      JSON.stringify(
        {
          cache_path: "/root/.cache/ttnn",
          model_cache_path: "/root/.cache/ttnn/models",
          tmp_dir: "/tmp/ttnn",
          enable_model_cache: false,
          enable_fast_runtime_mode: false,
          throw_exception_on_fallback: false,
          enable_logging: true,
          enable_graph_report: false,
          enable_detailed_buffer_report: true,
          enable_detailed_tensor_report: false,
          enable_comparison_mode: false,
          comparison_mode_should_raise_exception: false,
          comparison_mode_pcc: 0.9999,
          root_report_path: "generated/ttnn/reports",
          report_name: `tiny_cnn ${f.name}`,
        },
        null,
        2,
      ) + "\n",
    );
  }
}

if (import.meta.main) {
  await Deno.mkdir(OUT, { recursive: true });
  for (const f of FLAVOURS) await writeFlavour(f);
  await Deno.writeTextFile(
    `${OUT}README.md`,
    "# Profiler report fixtures\n\nWritten by `scripts/make_profiler_fixtures.ts` (do not edit " +
      "by hand); every one records the same small CNN run (`scripts/_profiler_model.ts`) in " +
      "the shape of one real writer generation.\n\n" +
      FLAVOURS.map((f) => `- \`${f.name}/\` — ${f.standsFor}`).join("\n") + "\n",
  );
  console.error(`wrote ${FLAVOURS.length} profiler fixtures under ${OUT}`);
}
