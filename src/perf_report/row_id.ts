/**
 * A performance row's id is its line in the CSV: the header is line 1, so the first data row
 * is line 2. Every answer names rows by id and every table is indexed from 0; this is the one
 * place the two are converted.
 *
 * @module
 */

/** The id of the first data row (the header is line 1). */
export const FIRST_ROW_ID = 2;

/**
 * The data-row index of row `id`.
 *
 * @example
 * ```ts
 * import { rowIdOf, rowIndexOf } from "./row_id.ts";
 * if (rowIndexOf(2) !== 0 || rowIdOf(0) !== 2 || rowIdOf(rowIndexOf(41)) !== 41) throw new Error();
 * ```
 */
export function rowIndexOf(id: number): number {
  return id - FIRST_ROW_ID;
}

/** The id of data row `index`. */
export function rowIdOf(index: number): number {
  return index + FIRST_ROW_ID;
}

/** Whether `id` names one of a table's `rows` data rows. */
export function isRowId(id: number, rows: number): boolean {
  return Number.isInteger(id) && id >= FIRST_ROW_ID && rowIndexOf(id) < rows;
}
