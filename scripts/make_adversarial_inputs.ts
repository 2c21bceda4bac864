/**
 * Inputs an adversary would hand the server, generated (never committed): a cluster descriptor
 * of many keys, a device log of many distinct zone names, a performance CSV of a given size, a
 * profiler database of one schema or another. The hardening tests and
 * `bench/adversarial_bench.ts` write them into temporary directories.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";

const DEMO = new URL("../fixtures/demo/", import.meta.url).pathname;

/** A cluster descriptor naming `arch` whose `chip_to_bus_id` mapping holds `keys` entries. */
export function descriptorWithKeys(keys: number, arch = "Wormhole"): string {
  const lines = [`arch: {0: ${arch}}`, "chips: {0: [0, 0, 0, 0]}", "chip_to_bus_id:"];
  for (let i = 0; i < keys; i++) lines.push(`  ${i}: 0x${(i % 65536).toString(16)}`);
  return lines.join("\n") + "\n";
}

/** A cluster descriptor of about `bytes` bytes (keys of one mapping). */
export function descriptorOfBytes(bytes: number): string {
  return descriptorWithKeys(Math.ceil(bytes / 14));
}

/** The device log's preamble and v4 header. */
const LOG_HEAD = "ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64\n" +
  "PCIe slot, core_x, core_y, RISC processor type, timer_id, time[cycles since reset], data, " +
  "run host ID, trace id, trace id counter, zone name, type, source line, source file, " +
  "meta data\n";

/**
 * Writes `profile_log_device.csv` in `dir` holding `names` distinct zone names (`zone-<i>`,
 * each one start and one end on one core) and returns its size in bytes.
 */
export async function writeZoneNamesLog(dir: string, names: number): Promise<number> {
  using file = await Deno.open(`${dir}/profile_log_device.csv`, {
    write: true,
    create: true,
    truncate: true,
  });
  const encoder = new TextEncoder();
  let bytes = 0;
  const write = async (text: string) => {
    const data = encoder.encode(text);
    for (let at = 0; at < data.length;) at += await file.write(data.subarray(at));
    bytes += data.length;
  };
  await write(LOG_HEAD);
  let chunk: string[] = [];
  for (let i = 0; i < names; i++) {
    const t = 1_000_000 + i * 10;
    chunk.push(
      `0, 1, 1, BRISC, 1, ${t}, 0, 1024, , , zone-${i}, ZONE_START, 10, kernel.cc, `,
      `0, 1, 1, BRISC, 2, ${t + 5}, 0, 1024, , , zone-${i}, ZONE_END, 20, kernel.cc, `,
    );
    if (chunk.length >= 20_000) {
      await write(chunk.join("\n") + "\n");
      chunk = [];
    }
  }
  if (chunk.length > 0) await write(chunk.join("\n") + "\n");
  return bytes;
}

/** A device log of one zone whose end carries `endCycles` (digits, e.g. 2^64). */
export function logWithCycle(endCycles: string): string {
  return LOG_HEAD +
    "0, 1, 1, BRISC, 1, 1000, 0, 1024, , , BRISC-KERNEL, ZONE_START, 10, kernel.cc, \n" +
    `0, 1, 1, BRISC, 2, ${endCycles}, 0, 1024, , , BRISC-KERNEL, ZONE_END, 20, kernel.cc, \n` +
    "0, 1, 1, BRISC, 1, 3000, 0, 1024, , , BRISC-KERNEL, ZONE_START, 10, kernel.cc, \n" +
    "0, 1, 1, BRISC, 2, 3500, 0, 1024, , , BRISC-KERNEL, ZONE_END, 20, kernel.cc, \n";
}

/**
 * The demo's performance CSV with its data rows repeated (each copy's GLOBAL CALL COUNT moved
 * past the last) until it holds at least `bytes` bytes.
 */
export async function bigPerfCsv(bytes: number): Promise<string> {
  const text = await Deno.readTextFile(`${DEMO}performance/ops_perf_results_demo.csv`);
  const lines = text.split("\n").filter((l) => l.length > 0);
  const header = lines[0];
  const rows = lines.slice(1);
  const callAt = header.split(",").findIndex((h) => h.trim() === "GLOBAL CALL COUNT");
  const out = [header];
  let size = header.length + 1;
  for (let copy = 0; size < bytes; copy++) {
    for (const row of rows) {
      const cells = row.split(",");
      const call = Number(cells[callAt]);
      if (Number.isFinite(call) && cells[callAt].trim() !== "") {
        cells[callAt] = String(call + copy * 100_000);
      }
      const line = cells.join(",");
      out.push(line);
      size += line.length + 1;
    }
  }
  return out.join("\n") + "\n";
}

/** The demo's performance CSV with its signpost renamed `name` (to tell two copies apart). */
export async function perfCsvWithSignpost(name: string): Promise<string> {
  const text = await Deno.readTextFile(`${DEMO}performance/ops_perf_results_demo.csv`);
  return text.replaceAll("PERF_DECODE", name);
}

/** Copies the demo's profiler report into `dir` (db.sqlite, config.json, descriptor). */
export async function copyDemoProfiler(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const name of ["db.sqlite", "config.json", "cluster_descriptor.yaml"]) {
    await Deno.copyFile(`${DEMO}profiler/${name}`, `${dir}/${name}`);
  }
}

/** Writes a small profiler database at `path` whose operations are named `<prefix>-<i>`. */
export function writeNamedDb(path: string, prefix: string, table = "operations"): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`CREATE TABLE ${table} (operation_id int UNIQUE, name text, duration float)`);
    const insert = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?)`);
    for (let i = 1; i <= 3; i++) insert.run(i, `${prefix}-${i}`, 0.001 * i);
  } finally {
    db.close();
  }
}

/**
 * Writes a profiler database at `path` whose every column is declared without a type and
 * holds text (`'7'` where a number belongs), as a writer that bound every value as a string;
 * with `textIds`, two buffers rows carry an operation_id that is not a number at all.
 */
export function writeAllTextDb(path: string, textIds = false): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(
      "CREATE TABLE operations (operation_id, name, duration);" +
        "CREATE TABLE devices (device_id, l1_num_banks, l1_bank_size, worker_l1_size);" +
        "CREATE TABLE buffers (operation_id, device_id, address, max_size_per_bank, buffer_type);" +
        "CREATE TABLE tensors (tensor_id, shape, dtype, layout, memory_config, device_id, address);" +
        "CREATE TABLE input_tensors (operation_id, input_index, tensor_id);" +
        "CREATE TABLE output_tensors (operation_id, output_index, tensor_id);",
    );
    const op = db.prepare("INSERT INTO operations VALUES (?, ?, ?)");
    for (const [id, name] of [["7", "ttnn.add"], ["12", "ttnn.matmul"], [null, "ttnn.orphan"]]) {
      op.run(id, name, "0.5");
    }
    db.prepare("INSERT INTO devices VALUES (?, ?, ?, ?)").run("0", "64", "1048576", "1499136");
    const buf = db.prepare("INSERT INTO buffers VALUES (?, ?, ?, ?, ?)");
    buf.run("7", "0", "1024", "2048", "1");
    buf.run("12", "0", "x1024", "lots", "L1");
    if (textIds) { for (const a of ["4096", "8192"]) buf.run("op", "0", a, "2048", "1"); }
    db.prepare("INSERT INTO tensors VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run("3", "Shape([1, 32])", "BFLOAT16", "TILE", "", "0", "1024");
    db.prepare("INSERT INTO input_tensors VALUES (?, ?, ?)").run("7", "0", "3");
    db.prepare("INSERT INTO output_tensors VALUES (?, ?, ?)").run("12", "0", "3");
  } finally {
    db.close();
  }
}
