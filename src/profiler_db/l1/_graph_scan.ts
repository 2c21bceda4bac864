/**
 * Internal: a captured graph's L1 events (`_l1_events.ts`) read straight from its UTF-8 bytes,
 * without building the graph. `JSON.parse` builds every node, shape and name of a graph — most
 * of l1_peak's time on a large capture — where the replay needs a few params of four node
 * types. This scanner checks the whole text against JSON's grammar as `JSON.parse` does (the
 * same verdict on every text) while it walks the top-level list, and reads only the params of
 * the nodes that become events (`_graph_params.ts`), by the same rules (the last of a repeated
 * key wins; an escaped key is decoded). It keeps no recursion: a graph nested a million deep
 * is read like a flat one.
 *
 * The text is read as the database driver hands text to JavaScript: up to its first NUL byte
 * (there must be one, at the latest just past the text), invalid UTF-8 standing for U+FFFD.
 *
 * @module
 */
import { EVENT_NODE_TYPES } from "./_l1_events.ts";
import { passString, seen, skipString } from "./_json_strings.ts";
import {
  ABSENT,
  bytesOf,
  isBytes,
  NUMBER,
  OTHER,
  pushSlotsEvent,
  slotDecode,
  slotFrom,
  slotKind,
  slotOf,
  slotTo,
  STRING,
  stringAt,
  TRUE,
} from "./_graph_params.ts";

/** What a graph's text holds: nodes, valid JSON of another shape, or no JSON. */
export type GraphText = "list" | "not_a_list" | "invalid";

// Character codes.
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;

/** 1 for JSON's whitespace (not JavaScript's): space, tab, line feed, carriage return. */
const SPACE = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) SPACE[c] = 1;

/** The open containers of `skipContainer`, innermost last (grown as needed). */
let stack = new Uint8Array(64);

// Every byte that is not whitespace is above 0x20, so `b[i] > 0x20 ? i : ws(b, i)` (written
// out where it is hot) skips whitespace without a call.
function ws(b: Uint8Array, i: number): number {
  while (SPACE[b[i]] === 1) i++;
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Past the number at `i`, or -1. */
function skipNumber(b: Uint8Array, i: number): number {
  let c = b[i];
  if (c === 0x2d) c = b[++i];
  if (c === 0x30) c = b[++i];
  else if (c >= 0x31 && c <= 0x39) {
    do c = b[++i]; while (isDigit(c));
  } else return -1;
  if (c === 0x2e) {
    c = b[++i];
    if (!isDigit(c)) return -1;
    do c = b[++i]; while (isDigit(c));
  }
  if (c === 0x65 || c === 0x45) {
    c = b[++i];
    if (c === 0x2b || c === 0x2d) c = b[++i];
    if (!isDigit(c)) return -1;
    do c = b[++i]; while (isDigit(c));
  }
  return i;
}

/** Whether `word` (ASCII) is at `i`. */
function at(b: Uint8Array, i: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return false;
  return true;
}

/** Past the string, number or literal starting with `c` at `i`, or -1. */
function skipScalar(b: Uint8Array, i: number, c: number): number {
  if (c === QUOTE) return passString(b, i);
  if (c === 0x74) return at(b, i, "true") ? i + 4 : -1;
  if (c === 0x66) return at(b, i, "false") ? i + 5 : -1;
  if (c === 0x6e) return at(b, i, "null") ? i + 4 : -1;
  return skipNumber(b, i);
}

/** Past the value at `i` (no whitespace before it), or -1. */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  return c === OPEN_OBJECT || c === OPEN_LIST ? skipContainer(b, i) : skipScalar(b, i, c);
}

/** Past a member's key, its colon and the whitespace after, at the value; or -1. */
function skipKey(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) return -1;
  i = passString(b, i);
  if (i < 0) return -1;
  i = b[i] > 0x20 ? i : ws(b, i);
  return b[i] === COLON ? (b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1)) : -1;
}

/** Past the object or list opening at `i`, or -1: iterative, to any depth. */
function skipContainer(b: Uint8Array, i: number): number {
  let depth = 0;
  let c = b[i];
  for (;;) {
    // A value starts at i (its first byte is c).
    if (c === OPEN_OBJECT || c === OPEN_LIST) {
      if (depth === stack.length) {
        const grown = new Uint8Array(stack.length * 2);
        grown.set(stack);
        stack = grown;
      }
      stack[depth++] = c;
      i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
      c = b[i];
      if (c !== (stack[depth - 1] === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_LIST)) {
        if (stack[depth - 1] === OPEN_OBJECT) {
          i = skipKey(b, i);
          if (i < 0) return -1;
          c = b[i];
        }
        continue;
      }
      depth--;
      i++;
    } else {
      i = skipScalar(b, i, c);
      if (i < 0) return -1;
    }
    // After a value: a comma and the next, or the close of its container.
    for (;;) {
      if (depth === 0) return i;
      i = b[i] > 0x20 ? i : ws(b, i);
      c = b[i];
      const open = stack[depth - 1];
      if (c === COMMA) {
        i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
        if (open === OPEN_OBJECT) {
          i = skipKey(b, i);
          if (i < 0) return -1;
        }
        c = b[i];
        break;
      }
      if (c !== (open === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_LIST)) return -1;
      depth--;
      i++;
    }
  }
}

const NODE_TYPE = bytesOf("node_type");
const PARAMS = bytesOf("params");
const TYPE_BYTES = EVENT_NODE_TYPES.map(bytesOf);

/** Past the params object opening at `i`, recording the slots' values; or -1. */
function readParams(b: Uint8Array, i: number): number {
  i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
  if (b[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const from = i + 1;
    i = skipString(b, i);
    if (i < 0) return -1;
    const slot = seen.wide ? -1 : slotOf(b, from, i - 1, seen.escaped);
    i = b[i] > 0x20 ? i : ws(b, i);
    if (b[i] !== COLON) return -1;
    i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
    const c = b[i];
    const start = i;
    i = c === QUOTE ? skipString(b, i) : skipValue(b, i);
    if (i < 0) return -1;
    if (slot >= 0) {
      const kind = c === QUOTE
        ? STRING
        : c === 0x74
        ? TRUE
        : c === 0x2d || isDigit(c)
        ? NUMBER
        : OTHER;
      slotKind[slot] = kind;
      slotDecode[slot] = kind === STRING && (seen.escaped || seen.wide) ? 1 : 0;
      slotFrom[slot] = kind === STRING ? start + 1 : start;
      slotTo[slot] = kind === STRING ? i - 1 : i;
    }
    i = b[i] > 0x20 ? i : ws(b, i);
    if (b[i] === CLOSE_OBJECT) return i + 1;
    if (b[i] !== COMMA) return -1;
    i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
  }
}

/** Past the node object opening at `i`, its event (if any) appended to `out`; or -1. */
function readNode(b: Uint8Array, i: number, bankCount: number, out: number[]): number {
  // The node's type so far (0: none of the four), and its params: where the last params
  // object starts (-1: none, or not an object), and whether the slots hold it already.
  let code = 0;
  let paramsAt = -1;
  let paramsRead = true;
  slotKind.fill(ABSENT);
  i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
  if (b[i] !== CLOSE_OBJECT) {
    for (;;) {
      if (b[i] !== QUOTE) return -1;
      const from = i + 1;
      i = skipString(b, i);
      if (i < 0) return -1;
      const to = i - 1;
      // A key with a byte past ASCII is neither name; an escaped one is decoded.
      const key = seen.wide
        ? 0
        : seen.escaped
        ? keyOf(stringAt(b, from, to, true))
        : isBytes(b, from, to, NODE_TYPE)
        ? 1
        : isBytes(b, from, to, PARAMS)
        ? 2
        : 0;
      i = b[i] > 0x20 ? i : ws(b, i);
      if (b[i] !== COLON) return -1;
      i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
      const c = b[i];
      if (key === 1) {
        code = 0;
        if (c === QUOTE) {
          const typeFrom = i + 1;
          i = skipString(b, i);
          if (i >= 0) code = typeCode(b, typeFrom, i - 1, seen.escaped || seen.wide);
        } else i = skipValue(b, i);
      } else if (key === 2) {
        // A later key may still change the node's type: params are read now when it is one of
        // the four, else only found, and read at the end if it has become one.
        if (c !== OPEN_OBJECT) {
          paramsAt = -1;
          paramsRead = true;
          slotKind.fill(ABSENT);
          i = skipValue(b, i);
        } else if (code > 0) {
          paramsAt = i;
          paramsRead = true;
          slotKind.fill(ABSENT);
          i = readParams(b, i);
        } else {
          paramsAt = i;
          paramsRead = false;
          i = skipValue(b, i);
        }
      } else i = skipValue(b, i);
      if (i < 0) return -1;
      i = b[i] > 0x20 ? i : ws(b, i);
      if (b[i] === CLOSE_OBJECT) break;
      if (b[i] !== COMMA) return -1;
      i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
    }
  }
  if (code > 0) {
    if (!paramsRead) {
      slotKind.fill(ABSENT);
      readParams(b, paramsAt);
    }
    pushSlotsEvent(b, code, bankCount, out);
  }
  return i + 1;
}

/** The code in EVENT_NODE_TYPES of the type string `from`..`to` (0: none of the four). */
function typeCode(b: Uint8Array, from: number, to: number, decode: boolean): number {
  if (decode) {
    return Math.max(
      0,
      (EVENT_NODE_TYPES as readonly string[]).indexOf(stringAt(b, from, to, true)),
    );
  }
  for (let k = 1; k < TYPE_BYTES.length; k++) {
    if (isBytes(b, from, to, TYPE_BYTES[k])) return k;
  }
  return 0;
}

/** 1 for a decoded key naming node_type, 2 for params, else 0. */
function keyOf(name: string): number {
  return name === "node_type" ? 1 : name === "params" ? 2 : 0;
}

/** Where the text scanned last ended (its NUL), and whether it held a byte past ASCII. */
export const scanned = { end: 0, wide: false };

/**
 * Reads the graph text starting at `from` in `b` (ending at the first NUL byte): `"list"`
 * with the events of its nodes appended to `out`, or `"not_a_list"` (valid JSON, another
 * value) or `"invalid"` (`JSON.parse` would throw), `out` then left as it was. Sets
 * `scanned`. Blank text is `"invalid"`, as for `JSON.parse`.
 *
 * @example
 * ```ts
 * import { scanGraph } from "./_graph_scan.ts";
 * const bytes = (s: string) => new TextEncoder().encode(`${s}\0`);
 * const out: number[] = [];
 * const text = '[{"node_type":"buffer_deallocate","params":{"address":"9","type":"L1"}}]';
 * if (scanGraph(bytes(text), 0, 64, out) !== "list" || out.join() !== "4,9,NaN") throw new Error();
 * if (scanGraph(bytes('{"nodes": []}'), 0, 64, out) !== "not_a_list") throw new Error();
 * if (scanGraph(bytes("[1,]"), 0, 64, out) !== "invalid" || out.length !== 3) throw new Error();
 * ```
 */
export function scanGraph(
  b: Uint8Array,
  from: number,
  bankCount: number,
  out: number[],
): GraphText {
  const start = out.length;
  seen.anyWide = false;
  let i = b[from] > 0x20 ? from : ws(b, from);
  let verdict: GraphText = "list";
  if (b[i] !== OPEN_LIST) {
    i = skipValue(b, i);
    verdict = "not_a_list";
  } else {
    i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
    if (b[i] === CLOSE_LIST) i++;
    else {
      for (;;) {
        i = b[i] === OPEN_OBJECT ? readNode(b, i, bankCount, out) : skipValue(b, i);
        if (i < 0) break;
        i = b[i] > 0x20 ? i : ws(b, i);
        if (b[i] === COMMA) i = b[i + 1] > 0x20 ? i + 1 : ws(b, i + 1);
        else {
          i = b[i] === CLOSE_LIST ? i + 1 : -1;
          break;
        }
      }
    }
  }
  if (i >= 0) i = b[i] > 0x20 ? i : ws(b, i);
  if (i >= 0 && b[i] === 0) {
    scanned.end = i;
    scanned.wide = seen.anyWide;
    return verdict;
  }
  // Not JSON: the text's end and width read apart (the scan stopped at the fault).
  out.length = start;
  let end = from;
  let past = false;
  for (; b[end] !== 0; end++) if (b[end] >= 0x80) past = true;
  scanned.end = end;
  scanned.wide = past;
  return "invalid";
}
