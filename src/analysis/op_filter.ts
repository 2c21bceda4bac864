/**
 * Which rows an op code names: the exact label an answer printed for them (top_ops' decorated
 * op code, e.g. `Matmul 32 x 8192 x 2048`, or the CSV's own OP CODE), else every row whose
 * label starts with it. A name that matches nothing is refused with the labels that exist.
 *
 * @module
 */
import type { PerfRow } from "../perf_report/mod.ts";
import { Refusal } from "../kit/refusal.ts";

/** The rows an op_code filter kept, and what the answer says of it. */
export interface OpFilter {
  rows: PerfRow[];
  said: { op_code: string; matched: "exact" | "prefix"; rows: number };
}

/** Labels a refusal lists before it counts the rest. */
const LISTED = 15;

/** The label an answer prints for a row. */
export function labelOf(row: PerfRow): string {
  return row.op_code || row.raw_op_code;
}

/**
 * Whether `row` carries `text` as its exact label: the decorated op code an answer printed
 * (`Matmul 32 x 8192 x 2048`) or the CSV's OP CODE (`Matmul`, every shape).
 */
export function carriesLabel(row: Pick<PerfRow, "op_code" | "raw_op_code">, text: string): boolean {
  const t = text.trim();
  return row.op_code.trim() === t || row.raw_op_code.trim() === t;
}

/**
 * The rows of `rows` that `text` names (signposts never): the exact label when any row carries
 * it, else the prefix. Refuses when none matches, listing the labels that exist.
 */
export function opFilter(tool: string, rows: readonly PerfRow[], text: string): OpFilter {
  const wanted = text.trim();
  const ops = rows.filter((r) => !r.is_signpost);
  const exactRows = ops.filter((r) => carriesLabel(r, wanted));
  if (exactRows.length > 0) {
    return { rows: exactRows, said: { op_code: wanted, matched: "exact", rows: exactRows.length } };
  }
  const prefixed = ops.filter((r) =>
    labelOf(r).startsWith(wanted) || r.raw_op_code.startsWith(wanted)
  );
  if (prefixed.length > 0) {
    return { rows: prefixed, said: { op_code: wanted, matched: "prefix", rows: prefixed.length } };
  }
  const labels = [...new Set(ops.map((r) => r.raw_op_code))];
  throw new Refusal(
    `${tool}: no operation's op code is or starts with ${JSON.stringify(wanted)}; the op codes ` +
      `here: ${labels.slice(0, LISTED).join(", ")}` +
      (labels.length > LISTED ? ` and ${labels.length - LISTED} more` : ""),
  );
}
