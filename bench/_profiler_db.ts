/**
 * What the profiler-database benches share: the W1-shaped schema with one Wormhole device, the
 * tables each bench adds to it, and how a set of timings is printed.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/** Tables a bench may add to the core schema. */
export type ExtraTable = "operation_arguments" | "stack_traces" | "captured_graph" | "errors";

const EXTRA: Record<ExtraTable, string> = {
  operation_arguments:
    "CREATE TABLE operation_arguments (operation_id int, name text, value text);",
  stack_traces: "CREATE TABLE stack_traces (operation_id int, stack_trace text);",
  captured_graph: "CREATE TABLE captured_graph (operation_id int, captured_graph text);",
  errors: "CREATE TABLE errors (operation_id int, operation_name text, error_type text, " +
    "error_message text, stack_trace text, timestamp text);",
};

/**
 * Creates devices (one Wormhole n150's L1 geometry), operations, tensors, input_tensors,
 * output_tensors and buffers, plus `extra`.
 */
export function createSchema(db: DatabaseSync, extra: readonly ExtraTable[] = []): void {
  db.exec(`
    CREATE TABLE devices (device_id int, num_y_cores int, num_x_cores int,
      num_y_compute_cores int, num_x_compute_cores int, worker_l1_size int, l1_num_banks int,
      l1_bank_size int, address_at_first_l1_bank int, address_at_first_l1_cb_buffer int,
      num_banks_per_storage_core int, num_compute_cores int, num_storage_cores int,
      total_l1_memory int, total_l1_for_tensors int, total_l1_for_interleaved_buffers int,
      total_l1_for_sharded_buffers int, cb_limit int);
    CREATE TABLE operations (operation_id int UNIQUE, name text, duration float);
    CREATE TABLE tensors (tensor_id int UNIQUE, shape text, dtype text, layout text,
      memory_config text, device_id int, address int, buffer_type int);
    CREATE TABLE input_tensors (operation_id int, input_index int, tensor_id int);
    CREATE TABLE output_tensors (operation_id int, output_index int, tensor_id int);
    CREATE TABLE buffers (operation_id int, device_id int, address int, max_size_per_bank int,
      buffer_type int);
    ${extra.map((t) => EXTRA[t]).join("\n    ")}
    INSERT INTO devices VALUES (0, 8, 8, 8, 8, 1499136, 64, 1370848, 0, 103712, 1, 64, 0,
      95944704, 0, 87734272, 87734272, 1395424);
  `);
}

/** `median ms (min–max)` of some timings in ms. */
export function spread(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms (${sorted[0].toFixed(0)}–${
    sorted.at(-1)!.toFixed(0)
  })`;
}
