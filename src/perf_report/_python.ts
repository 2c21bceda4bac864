/**
 * Internal helpers that reproduce the Python and pandas primitives tt-perf-report relies on:
 * pandas' missing-value tokens and numeric grammar, Python's `float()`, `int()`, `repr(float)`,
 * `str.split()`, `str.strip()`, string ordering and `format(x, ",.Nf")`.
 *
 * Nothing here knows about perf reports; every function is a faithful model of one primitive.
 * @module
 */

/** The strings pandas.read_csv reads as NaN by default (pandas 2.x `STR_NA_VALUES`). */
export const PANDAS_NA_TOKENS: ReadonlySet<string> = new Set([
  "",
  "-1.#IND",
  "1.#QNAN",
  "1.#IND",
  "-1.#QNAN",
  "#N/A N/A",
  "#N/A",
  "N/A",
  "n/a",
  "NA",
  "<NA>",
  "#NA",
  "NULL",
  "null",
  "NaN",
  "-NaN",
  "nan",
  "-nan",
  "None",
]);

/** The longest of the NA tokens, in characters. */
const LONGEST_NA_TOKEN = Math.max(...[...PANDAS_NA_TOKENS].map((t) => t.length));

/** The first characters of the NA tokens. */
const NA_FIRST_CHARS = new Set([...PANDAS_NA_TOKENS].filter((t) => t).map((t) => t.charCodeAt(0)));

/** True when pandas.read_csv would read this cell as missing (NaN). */
export function isNaToken(cell: string): boolean {
  // Most cells are longer than any token or start with a character none does: skip hashing.
  if (cell.length === 0) return true;
  if (cell.length > LONGEST_NA_TOKEN || !NA_FIRST_CHARS.has(cell.charCodeAt(0))) return false;
  return PANDAS_NA_TOKENS.has(cell);
}

/** Characters Python's `str.isspace()` accepts (the ones `str.split()`/`strip()` use). */
const PY_WS_CLASS =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_WS_SPLIT = new RegExp(`[${PY_WS_CLASS}]+`);

/** Whether one UTF-16 unit is a character Python's `str.isspace()` accepts. */
function isPySpace(c: number): boolean {
  return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c === 0x85 || c === 0xa0 ||
    c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * Python `s.strip()` with no argument. A linear scan from both ends: a `\s+$` pattern is
 * quadratic on long cells.
 */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPySpace(s.charCodeAt(start))) start++;
  while (end > start && isPySpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Python `s.split()` with no argument: runs of whitespace separate, no empty pieces. */
export function pySplitWhitespace(s: string): string[] {
  const stripped = pyStrip(s);
  return stripped === "" ? [] : stripped.split(PY_WS_SPLIT);
}

/** Python `s.split(maxsplit=1)[0]`, or undefined when `s` has no token. */
export function pyFirstToken(s: string): string | undefined {
  // What `pySplitWhitespace(s)[0]` is, found without splitting the rest of the text.
  const n = s.length;
  let from = 0;
  while (from < n && isPySpace(s.charCodeAt(from))) from++;
  if (from === n) return undefined;
  let to = from + 1;
  while (to < n && !isPySpace(s.charCodeAt(to))) to++;
  return s.slice(from, to);
}

const PY_FLOAT_DECIMAL =
  /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_FLOAT_SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * Python `float(text)`: surrounding whitespace allowed, `_` between digits allowed, `inf`,
 * `infinity` and `nan` in any case. Returns undefined where Python raises ValueError.
 */
export function parsePythonFloat(text: string): number | undefined {
  // The common cell (a tensor dimension, a count): digits alone, which Number rounds as Python
  // does (leading zeros included). Anything else goes the long way.
  if (allDigits(text)) return Number(text);
  const s = pyStrip(text);
  const special = PY_FLOAT_SPECIAL.exec(s);
  if (special) {
    if (special[2].toLowerCase() === "nan") return NaN;
    return special[1] === "-" ? -Infinity : Infinity;
  }
  if (!PY_FLOAT_DECIMAL.test(s)) return undefined;
  return Number(s.replaceAll("_", ""));
}

/** Whether `s` is one or more ASCII digits and nothing else. */
function allDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const PANDAS_FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const PANDAS_SPECIAL = /^([+-]?)(inf|infinity)$/i;
const PANDAS_INT = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * The number pandas' C parser (and `pd.to_numeric`) reads from a non-missing cell, or undefined
 * when the cell is not numeric to pandas (no `_` separators, unlike Python's `float`).
 */
export function parsePandasNumber(cell: string): number | undefined {
  const s = cell.trim();
  if (PANDAS_FLOAT.test(s)) return Number(s);
  const special = PANDAS_SPECIAL.exec(s);
  if (special) return special[1] === "-" ? -Infinity : Infinity;
  return undefined;
}

/** True when pandas would read the cell into an int64/uint64 column. */
export function isPandasInt(cell: string): boolean {
  const s = cell.trim();
  if (!PANDAS_INT.test(s)) return false;
  if (s.length <= 16) return true; // 15 digits and a sign: always inside int64
  const v = BigInt(s);
  return v >= INT64_MIN && v <= UINT64_MAX;
}

/** Python's default limit on the digits `int(str)` converts (`sys.get_int_max_str_digits`). */
const PY_INT_MAX_STR_DIGITS = 4300;
const PY_INT = /^[+-]?\d(?:_?\d)*$/;

/**
 * Python `int(text)` for a str argument: returns undefined where Python raises ValueError
 * (including strings longer than Python's 4300-digit conversion limit).
 */
export function parsePythonInt(text: string): bigint | undefined {
  const s = pyStrip(text);
  if (!PY_INT.test(s)) return undefined;
  const digits = s.replace(/^[+-]/, "").replaceAll("_", "");
  if (digits.length > PY_INT_MAX_STR_DIGITS) return undefined;
  const v = BigInt(digits);
  return s.startsWith("-") ? -v : v;
}

/** Python `repr(x)` / `str(x)` for a float. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      if (digits.length <= exp + 1) {
        return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
      }
      return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
    }
    return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  }
  const rest = digits.slice(1);
  const expAbs = Math.abs(exp);
  return `${sign}${digits[0]}${rest ? "." + rest : ""}e${exp < 0 ? "-" : "+"}${
    expAbs < 10 ? "0" + expAbs : expAbs
  }`;
}

/** Python string ordering (by code point; JavaScript's `<` compares UTF-16 code units). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const da = ca.value.codePointAt(0)!;
    const db = cb.value.codePointAt(0)!;
    if (da !== db) return da < db ? -1 : 1;
  }
}

/** Python `int * int` of positive whole numbers, converted to float as Python does (rounded). */
export function exactProductToFloat(factors: readonly number[]): number {
  let product = 1;
  for (const f of factors) product *= f;
  if (Math.abs(product) <= Number.MAX_SAFE_INTEGER) return product;
  let big = 1n;
  for (const f of factors) big *= BigInt(f);
  return Number(big);
}
