/**
 * JSON text read without parsing it into values: the members of an object and the elements
 * of an array as the exact text the client wrote, so an id is echoed byte for byte (a parsed
 * 18446744073709551616 would come back as 18446744073709552000) and a frame cut short still
 * yields the members before the cut.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const STRUCTURAL = /["{}[\]]/g;
const PRIMITIVE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

function skipSpace(text: string, at: number): number {
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    at++;
  }
  return at;
}

/** The end (after its closing quote) of the string starting at `at`, or -1 when cut. */
function skipString(text: string, at: number): number {
  let from = at + 1;
  while (true) {
    const q = text.indexOf('"', from);
    if (q === -1) return -1;
    let slashes = 0;
    for (let b = q - 1; b > at && text.charCodeAt(b) === BACKSLASH; b--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The end of the value starting at `at`, or -1 when the text ends before it does. */
function skipValue(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return skipString(text, at);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    let i = at;
    while (true) {
      STRUCTURAL.lastIndex = i;
      const m = STRUCTURAL.exec(text);
      if (m === null) return -1;
      const k = m.index;
      const ch = text.charCodeAt(k);
      if (ch === QUOTE) {
        i = skipString(text, k);
        if (i === -1) return -1;
        continue;
      }
      depth += ch === OPEN_BRACE || ch === OPEN_BRACKET ? 1 : -1;
      i = k + 1;
      if (depth === 0) return i;
    }
  }
  PRIMITIVE.lastIndex = at;
  const m = PRIMITIVE.exec(text);
  // A primitive that reaches the end of the text may have been cut (`12` of `123`).
  if (m === null || at + m[0].length >= text.length) return -1;
  return at + m[0].length;
}

/**
 * The members of the JSON object `text` holds, each key (unescaped) with its value's exact
 * text; a later duplicate key wins, as `JSON.parse` has it. Text cut short yields the members
 * complete before the cut; text that is not an object yields none.
 *
 * @example
 * ```ts
 * import { objectMembers } from "./json_text.ts";
 * const m = objectMembers('{"id": 18446744073709551616, "method": "ping"}');
 * if (m.get("id") !== "18446744073709551616") throw new Error(m.get("id"));
 * ```
 */
export function objectMembers(text: string): Map<string, string> {
  const members = new Map<string, string>();
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACE) return members;
  at = skipSpace(text, at + 1);
  while (text.charCodeAt(at) === QUOTE) {
    const keyEnd = skipString(text, at);
    if (keyEnd === -1) break;
    let key: string;
    try {
      key = JSON.parse(text.slice(at, keyEnd));
    } catch {
      break;
    }
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) break;
    const start = skipSpace(text, at + 1);
    const end = skipValue(text, start);
    if (end === -1) break;
    members.set(key, text.slice(start, end));
    at = skipSpace(text, end);
    if (text.charCodeAt(at) !== COMMA) break;
    at = skipSpace(text, at + 1);
  }
  return members;
}

/**
 * The elements of the JSON array `text` holds, each as its exact text.
 *
 * @example
 * ```ts
 * import { arrayElements } from "./json_text.ts";
 * const e = arrayElements('[{"a":[1,"]"]}, 2 ,"x"]');
 * if (e.join("|") !== '{"a":[1,"]"]}|2|"x"') throw new Error(e.join("|"));
 * ```
 */
export function arrayElements(text: string): string[] {
  const elements: string[] = [];
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACKET) return elements;
  at = skipSpace(text, at + 1);
  while (at < text.length && text.charCodeAt(at) !== CLOSE_BRACKET) {
    const end = skipValue(text, at);
    if (end === -1) break;
    elements.push(text.slice(at, end));
    at = skipSpace(text, end);
    if (text.charCodeAt(at) !== COMMA) break;
    at = skipSpace(text, at + 1);
  }
  return elements;
}

/** The `"id"` that ends an object's text (`…,"id":7}`), as written, or null. */
const TRAILING_ID =
  /[,{]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * The id of a frame known only by its first and last bytes (one too long to read): the
 * object's last member when that is `"id"` (where the MCP SDK writes it), else an `"id"`
 * among the members complete in its first bytes; null when neither shows one.
 *
 * @example
 * ```ts
 * import { idOfCutFrame } from "./json_text.ts";
 * if (idOfCutFrame('{"jsonrpc":"2.0","id":"a","params":{"x":"xx', 'xx"}}') !== '"a"') {
 *   throw new Error();
 * }
 * if (idOfCutFrame('{"method":"tools/call","params":{"pad":"x', 'xx"},"id":9}\r') !== "9") {
 *   throw new Error();
 * }
 * ```
 */
export function idOfCutFrame(head: string, tail: string): string | null {
  const trailing = TRAILING_ID.exec(tail)?.[1];
  if (trailing !== undefined && isIdText(trailing)) return trailing;
  const leading = objectMembers(head).get("id");
  return leading !== undefined && isIdText(leading) ? leading : null;
}

/** Whether `raw` is the text of a valid id: a JSON string or number. */
export function isIdText(raw: string): boolean {
  const c = raw.charCodeAt(0);
  if (c !== QUOTE && c !== 0x2d && !(c >= 0x30 && c <= 0x39)) return false;
  try {
    const v = JSON.parse(raw);
    return typeof v === "string" || typeof v === "number";
  } catch {
    return false;
  }
}

/**
 * What identifies an id among the calls in flight: a string by its value, a number by its
 * exact decimal value (so `1`, `1.0` and `10e-1` are one id, and 2^64 is not 2^64 + 1).
 *
 * @example
 * ```ts
 * import { idKey } from "./json_text.ts";
 * if (idKey("1.0") !== idKey("10e-1") || idKey("18446744073709551616") === idKey("18446744073709551617")) {
 *   throw new Error();
 * }
 * ```
 */
export function idKey(raw: string): string {
  if (raw.charCodeAt(0) === QUOTE) return `s${JSON.parse(raw)}`;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(raw);
  if (m === null) return `?${raw}`;
  const fraction = m[3] ?? "";
  let digits = (m[2] + fraction).replace(/^0+/, "");
  let exponent = BigInt(m[4] ?? "0") - BigInt(fraction.length);
  const kept = digits.replace(/0+$/, "");
  exponent += BigInt(digits.length - kept.length);
  digits = kept;
  if (digits === "") return "n0";
  return `n${m[1]}${digits}e${exponent}`;
}
