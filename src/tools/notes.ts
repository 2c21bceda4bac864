/**
 * The fixed explanations answers rely on, said once: each note has an id and a text a client
 * reads once, as the MCP resource `ttnn://notes/<id>`, rather than on every call. (No answer
 * names a note by id yet; the CLI's `--explain` still prints the answers' own note fields.)
 *
 * @module
 */
import { BASIS_NOTE } from "../analysis/time_basis.ts";

/** One fixed explanation. */
export interface Note {
  /** The id answers name, dotted: `<subject>.<topic>`. */
  id: string;
  title: string;
  text: string;
}

/** Every note, in id order of first use. */
export const NOTES: readonly Note[] = [
  {
    id: "basis.op_interval",
    title: "Op interval (device log)",
    text: BASIS_NOTE.op_interval,
  },
  {
    id: "basis.device_kernel_duration",
    title: "Device time (tt-perf-report)",
    text: BASIS_NOTE.device_kernel_duration,
  },
];

/**
 * The note with `id`, or undefined.
 *
 * @example
 * ```ts
 * import { noteById } from "./notes.ts";
 * if (!noteById("basis.op_interval")?.text.includes("FW END")) throw new Error();
 * if (noteById("nope") !== undefined) throw new Error();
 * ```
 */
export function noteById(id: string): Note | undefined {
  return NOTES.find((n) => n.id === id);
}
