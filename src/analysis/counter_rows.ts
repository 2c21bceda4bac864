/**
 * Which performance row a device-log counter operation is: tt-metal keys both by device and
 * call — the CSV's DEVICE ID and GLOBAL CALL COUNT, the log's PCIe slot and run host ID — so a
 * CSV row and the counter rows of the same call share the key `${device}|${run}`.
 *
 * @module
 */
import { Refusal } from "../kit/refusal.ts";
import {
  cellOf,
  type CsvTable,
  isRowId,
  rowCountOf,
  rowIdOf,
  rowIndexOf,
} from "../perf_report/mod.ts";

/** A CSV row's id and OP CODE, by `${DEVICE ID}|${GLOBAL CALL COUNT}`. */
export interface CsvOp {
  id: number;
  opCode: string;
}

/** Where the columns a row's counter key is made of sit in the header (−1 when absent). */
function keyColumns(table: CsvTable): { run: number; device: number } {
  return {
    run: table.header.indexOf("GLOBAL CALL COUNT"),
    device: table.header.indexOf("DEVICE ID"),
  };
}

function wholeCell(table: CsvTable, r: number, c: number): number | null {
  const text = c < 0 ? "" : cellOf(table, r, c).trim();
  return /^\d+(\.0*)?$/.test(text) ? Number(text) : null;
}

/** The `${device}|${run}` of data row `r`, or null when either is not a whole number. */
function rowKey(table: CsvTable, r: number, cols = keyColumns(table)): string | null {
  const run = wholeCell(table, r, cols.run);
  const device = wholeCell(table, r, cols.device);
  return run === null || device === null ? null : `${device}|${run}`;
}

/** The CSV's device operations by device and call count (the first row of each). */
export function csvIndex(table: CsvTable): Map<string, CsvOp> {
  const out = new Map<string, CsvOp>();
  const code = table.header.indexOf("OP CODE");
  const cols = keyColumns(table);
  const rows = rowCountOf(table);
  for (let i = 0; i < rows; i++) {
    const key = rowKey(table, i, cols);
    if (key !== null && !out.has(key)) {
      out.set(key, { id: rowIdOf(i), opCode: cellOf(table, i, code).trim() });
    }
  }
  return out;
}

/** The `${device}|${run}` of performance row `id`, or a Refusal. */
export function keyOfRow(table: CsvTable | null, id: number, problem: string): string {
  if (!table) throw new Refusal(`perf_id needs the performance CSV: ${problem}`);
  const rows = rowCountOf(table);
  if (!isRowId(id, rows)) {
    throw new Refusal(
      `no performance row has id ${id}: ids are the CSV's lines, 2 to ${rows + 1}`,
    );
  }
  const key = rowKey(table, rowIndexOf(id));
  if (key === null) {
    throw new Refusal(
      `row ${id} has no whole-number GLOBAL CALL COUNT and DEVICE ID, so no counter row can be ` +
        "matched to it (a signpost or host operation)",
    );
  }
  return key;
}
