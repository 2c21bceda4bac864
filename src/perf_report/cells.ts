/**
 * Cell coercion exactly as tt-perf-report 6278e268 does it (`csv_values.py`, `sub_device.py`).
 *
 * A cell value follows pandas' model after `read_csv`: a number (int64/float64 column), a
 * string (object column), a boolean (bool column), or `null` for a missing value (NaN).
 * Nothing here throws on bad input: an unusable value gives `null` (or the caller's default).
 * @module
 */

import { parsePythonFloat, pyStrip } from "./_python.ts";

/** A cell as pandas hands it to tt-perf-report; `null` is a missing value (NaN). */
export type CellValue = number | string | boolean | null;

/** No real report describes a worker grid larger than this (`MAX_PLAUSIBLE_CORE_COUNT`). */
export const MAX_PLAUSIBLE_CORE_COUNT = 2 ** 20;
/** No tensor has a dimension larger than this (`MAX_PLAUSIBLE_TENSOR_DIM`). */
export const MAX_PLAUSIBLE_TENSOR_DIM = 2 ** 32;
/** Text sub-device ids are clipped to this many characters. */
export const MAX_SUB_DEVICE_ID_LENGTH = 32;

// deno-lint-ignore no-control-regex
const CONTROL_CHARACTERS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/** Deletes C0 control characters except tab, DEL and the C1 range (`sanitize_text`). */
export function sanitizeText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, "");
}

/** A finite float, or null for missing, text that is not a number, and infinities. */
export function finiteFloat(value: CellValue | undefined): number | null {
  if (value === null || value === undefined) return null;
  let n: number | undefined;
  if (typeof value === "number") n = value;
  else if (typeof value === "boolean") n = value ? 1 : 0;
  else n = parsePythonFloat(value);
  return n !== undefined && Number.isFinite(n) ? n : null;
}

/** A whole number (already integral; fractions are rejected, never truncated), or null. */
export function wholeNumber(value: CellValue | undefined): number | null {
  const n = finiteFloat(value);
  return n !== null && Number.isInteger(n) ? (Object.is(n, -0) ? 0 : n) : null;
}

/** A positive, whole, plausible core count (≤ 2^20), or `fallback`. */
export function coreCountFromValue(
  value: CellValue | undefined,
  fallback: number | null = null,
): number | null {
  const count = wholeNumber(value);
  return count === null || count <= 0 || count > MAX_PLAUSIBLE_CORE_COUNT ? fallback : count;
}

/** A positive, whole, plausible tensor dimension (≤ 2^32), or null. */
export function tensorDimFromValue(value: CellValue | undefined): number | null {
  const dim = wholeNumber(value);
  return dim === null || dim <= 0 || dim > MAX_PLAUSIBLE_TENSOR_DIM ? null : dim;
}

/** A whole, non-negative id (`get_int`: device ids), or null. */
export function nonNegativeInt(value: CellValue | undefined): number | null {
  const n = wholeNumber(value);
  return n === null || n < 0 ? null : n;
}

/**
 * A tensor dimension cell, which newer reports write as `physical[logical]`: the physical part
 * (or the logical one), under the tensor-dimension rule.
 */
export function getValuePhysicalLogical(
  value: CellValue | undefined,
  isPhysical = true,
): number | null {
  if (typeof value === "string") {
    const open = value.indexOf("[");
    if (open !== -1 && value.includes("]")) {
      if (isPhysical) return tensorDimFromValue(value.slice(0, open));
      const second = value.indexOf("[", open + 1);
      const segment = value.slice(open + 1, second === -1 ? value.length : second);
      const close = segment.indexOf("]");
      return tensorDimFromValue(close === -1 ? segment : segment.slice(0, close));
    }
  }
  return tensorDimFromValue(value);
}

/** Bytes per element: the first run of digits in the datatype name / 8, else 4. */
export function getDatatypeSize(datatype: string): number {
  const match = /\d+/.exec(datatype);
  return match ? Number(match[0]) / 8 : 4;
}

/**
 * The sub-device id of a row (`get_op_sub_device_id`) from the cell's Python `str()` form:
 * null for a missing or blank cell, an int for a whole number, else the sanitised, trimmed
 * text clipped to 32 characters.
 */
export function subDeviceIdFromText(text: string | null): number | string | null {
  if (text === null) return null;
  const stripped = pyStrip(sanitizeText(text));
  if (stripped === "") return null;
  const n = wholeNumber(stripped);
  return n === null ? [...stripped].slice(0, MAX_SUB_DEVICE_ID_LENGTH).join("") : n;
}

const CSV_FORMULA_PREFIXES = ["=", "+", "-", "@", "\t", "\r"];

/**
 * tt-perf-report's `escape_csv_formula`: a text cell starting with `=`, `+`, `-`, `@`, tab or
 * CR gets a leading apostrophe. Non-text values are returned unchanged. The goldens hold text
 * cells after this escaping; report rows hold them unescaped.
 */
export function escapeCsvFormula<T>(value: T): T | string {
  if (typeof value === "string" && CSV_FORMULA_PREFIXES.some((p) => value.startsWith(p))) {
    return `'${value}`;
  }
  return value;
}
