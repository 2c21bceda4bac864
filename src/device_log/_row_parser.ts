/**
 * Internal: the device log's plain rows parsed in WebAssembly. A byte loop in JavaScript costs
 * several instructions a byte (each typed-array read is checked against the array's bounds and
 * whether it was detached); the same loop compiled from WebAssembly is native code over one
 * memory. So the read buffer lives in a WebAssembly memory, and one function walks its lines
 * and writes, per line, either the numbers and name offsets of a row whose every field read is
 * plain, or a mark that the line is anything else — blank, short, a field read that opens with
 * a quote or a tab, a number that is not 1–9 digits (18 for the cycle count), or followed by
 * anything but spaces and `\r` before its comma. `_scan.ts` hands a marked line to its byte
 * loop, which reads every line exactly as it always has, so this module decides only which
 * lines may skip it, never what a line means. The zone, RISC and boundary texts are looked up
 * in small dictionaries in the same memory, which the scanner fills (`learn`) with the numbers
 * its interners gave them: a row of names seen before costs no lookup in JavaScript.
 *
 * The WebAssembly module is written here byte by byte (no build step, no file beside it,
 * nothing loaded from disk) and imports only its memory: one exported function over the
 * memory its caller gives it. WebAssembly needs no Deno permission (it is not native code and
 * reaches nothing outside that memory), so the server's `--allow-read` alone still runs it.
 *
 * @module
 */

import { hashOf } from "./_fields.ts";
import {
  ADD,
  AND,
  BLOCK,
  br,
  brIf,
  CTZ,
  ELSE,
  END,
  EQ,
  EQZ,
  EXTEND_U,
  GE_U,
  get,
  GT_U,
  I32,
  i32,
  I64,
  i64,
  I64_ADD,
  I64_AND,
  I64_DIV_U,
  I64_EQZ,
  I64_MUL,
  I64_REM_U,
  I64_SHL,
  I64_SUB,
  I64_XOR,
  I8X16_BITMASK,
  I8X16_EQ,
  IF,
  leb,
  load,
  load64,
  LOAD8,
  LOOP,
  LT_U,
  MUL,
  name,
  OR,
  section,
  SELECT,
  set,
  SHL,
  SHR_U,
  splat,
  store,
  SUB,
  tee,
  V128,
  V128_LOAD,
  V128_OR,
  vec,
  WRAP,
  XOR,
} from "./_wasm_bytes.ts";

/** Bytes the parser looks for. */
const LF = 10;
const CR = 13;
const SP = 32;
const TAB = 9;
const COMMA = 44;
const QUOTE = 34;

/** What the parser does with each field up to the last one read (the kinds table's bytes). */
export const F_SKIP = 0;
export const F_SLOT = 1;
export const F_X = 2;
export const F_Y = 3;
export const F_RUN = 4;
export const F_TIME = 5;
export const F_ZONE = 6;
export const F_RISC = 7;
export const F_PHASE = 8;

/**
 * A line's record: 17 i32s. `[0]` the offset of its `\n`; `[1]` 0 for a plain row, 1 for a
 * line the byte loop must read; then slot, core_x, core_y, run host ID, the cycle count as
 * hi × 10⁹ + lo, the zone name's, RISC's and boundary cell's `[start, end)`, trimmed, and
 * the numbers `learn` gave those three texts, or −1 where the dictionary does not hold them.
 */
export const RECORD = 17;
export const R_END = 0;
export const R_OTHER = 1;
export const R_SLOT = 2;
export const R_X = 3;
export const R_Y = 4;
export const R_RUN = 5;
export const R_HI = 6;
export const R_LO = 7;
export const R_ZONE = 8;
export const R_RISC = 10;
export const R_PHASE = 12;
export const R_ZONE_ID = 14;
export const R_RISC_ID = 15;
export const R_PHASE_ID = 16;

/**
 * The dictionaries: per text kind (zone, RISC, boundary), DICT_SLOTS entries of the last name
 * learned whose `dictSlot` is there — its number, its length (−1: none) and
 * up to DICT_NAME bytes. A name found there is compared byte for byte, so a collision only
 * costs a lookup in JavaScript.
 */
export const DICT_SLOTS = 256;
export const DICT_NAME = 40;
const DICT_ENTRY = 8 + DICT_NAME;
const DICT_KIND = DICT_SLOTS * DICT_ENTRY;

/** A text's dictionary slot: the top eight bits of its cheap hash (`hashOf`) mixed once more. */
export function dictSlot(buf: Uint8Array, start: number, end: number): number {
  return Math.imul(hashOf(buf, start, end), 0x9e3779b1) >>> 24;
}

/**
 * `rows(pos, next, kinds, last, out, cap, res, dict)`: the lines in `[pos, next)` (each ends
 * at a `\n`, `next` just after one) from `pos` on, at most `cap`, a record each at `out`, its
 * texts looked up in the dictionaries at `dict`; stores at `res` how many and the offset it
 * stopped at.
 */
function rowsFunction(): number[] {
  const [POS, NEXT, KINDS, LAST, OUT, CAP, RES, DICT] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [P, C, F, K, N, REC, V, S, E, H, I, ENT, ID] = [
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
    21,
  ];
  const M = 21;
  const T = 22; // the cycle count, i64
  const VV = 23; // sixteen bytes, v128
  /** c = buf[++p] */
  const advance = [...get(P), ...i32(1), ADD, ...tee(P), ...LOAD8, ...set(C)];
  const isC = (byte: number) => [...get(C), ...i32(byte), EQ];
  /** Loops while `cond` (on c) holds, advancing. */
  const skipWhile = (cond: number[]) => [
    ...BLOCK,
    ...LOOP,
    ...cond,
    EQZ,
    ...brIf(1),
    ...advance,
    ...br(0),
    END,
    END,
  ];
  /**
   * p and c to the first of `bytes` at or after p, sixteen bytes a step (the last step may
   * read up to 15 bytes past it, which the memory holds: the records follow the buffer).
   */
  const toFirstOf = (bytes: number[]) => [
    ...BLOCK,
    ...LOOP,
    ...get(P),
    ...V128_LOAD,
    ...set(VV),
    ...bytes.flatMap((b, i) => [...get(VV), ...splat(b), ...I8X16_EQ, ...(i > 0 ? V128_OR : [])]),
    ...I8X16_BITMASK,
    ...tee(M),
    ...IF,
    ...get(P),
    ...get(M),
    CTZ,
    ADD,
    ...set(P),
    ...br(2),
    END,
    ...get(P),
    ...i32(16),
    ADD,
    ...set(P),
    ...br(0),
    END,
    END,
    ...get(P),
    ...LOAD8,
    ...set(C),
  ];
  const toFieldEnd = toFirstOf([COMMA, LF]);
  const spaces = skipWhile(isC(SP));
  const spacesOrCr = skipWhile([...isC(SP), ...isC(CR), OR]);
  const isDigit = [...get(C), ...i32(48), SUB, ...i32(10), LT_U];
  /** Within the field loop ($field is depth 0 of its body, $good 1, $other 2, $line 3). */
  const endsField = (depth: number) => [
    ...isC(COMMA),
    ...isC(LF),
    OR,
    EQZ,
    ...brIf(depth),
  ];
  // A number field: digits (at most `max`), then spaces or \r, then its comma or line break.
  // Inside the kind's if/else chain, the depth to $other is `other`.
  const smallNumber = (other: number) => [
    ...get(P),
    ...set(S),
    ...i32(0),
    ...set(V),
    ...BLOCK,
    ...LOOP,
    ...isDigit,
    EQZ,
    ...brIf(1),
    ...get(P),
    ...get(S),
    SUB,
    ...i32(9),
    GE_U,
    ...brIf(other + 2),
    ...get(V),
    ...i32(10),
    MUL,
    ...get(C),
    ...i32(48),
    SUB,
    ADD,
    ...set(V),
    ...advance,
    ...br(0),
    END,
    END,
    ...get(P),
    ...get(S),
    EQ,
    ...brIf(other),
    ...spacesOrCr,
    ...endsField(other),
    // The kind is 1–4: slot, x, y, run, at records' [2]–[5].
    ...get(REC),
    ...get(K),
    ...i32(4),
    MUL,
    ADD,
    ...get(V),
    ...store(4),
  ];
  const cycles = (other: number) => [
    ...get(P),
    ...set(S),
    ...i64(0),
    ...set(T),
    ...BLOCK,
    ...LOOP,
    ...isDigit,
    EQZ,
    ...brIf(1),
    ...get(P),
    ...get(S),
    SUB,
    ...i32(18),
    GE_U,
    ...brIf(other + 2),
    ...get(T),
    ...i64(10),
    I64_MUL,
    ...get(C),
    ...i32(48),
    SUB,
    EXTEND_U,
    I64_ADD,
    ...set(T),
    ...advance,
    ...br(0),
    END,
    END,
    ...get(P),
    ...get(S),
    EQ,
    ...brIf(other),
    ...spacesOrCr,
    ...endsField(other),
    ...get(REC),
    ...get(T),
    ...i64(1e9),
    I64_DIV_U,
    WRAP,
    ...store(4 * R_HI),
    ...get(REC),
    ...get(T),
    ...i64(1e9),
    I64_REM_U,
    WRAP,
    ...store(4 * R_LO),
  ];
  const byteAt = (at: number[]) => [...at, ...LOAD8];
  // A text field: to its comma or line break, its end trimmed of spaces and \r.
  const text = [
    ...get(P),
    ...set(S),
    ...toFieldEnd,
    ...get(P),
    ...set(E),
    ...BLOCK,
    ...LOOP,
    ...get(E),
    ...get(S),
    GT_U,
    EQZ,
    ...brIf(1),
    ...byteAt([...get(E), ...i32(1), SUB]),
    ...tee(V),
    ...i32(SP),
    EQ,
    ...get(V),
    ...i32(CR),
    EQ,
    OR,
    EQZ,
    ...brIf(1),
    ...get(E),
    ...i32(1),
    SUB,
    ...set(E),
    ...br(0),
    END,
    END,
    // Zone, RISC, boundary (kinds 6–8) at records' [8], [10], [12].
    ...get(REC),
    ...get(K),
    ...i32(8),
    MUL,
    ADD,
    ...i32(8 * F_ZONE - 4 * R_ZONE),
    SUB,
    ...tee(V),
    ...get(S),
    ...store(0),
    ...get(V),
    ...get(E),
    ...store(4),
    // Its number from the kind's dictionary, or −1: its slot by `dictSlot`, its bytes
    // compared eight at a time (the last eight masked to the name's length).
    ...i32(-1),
    ...set(ID),
    ...get(E),
    ...get(S),
    SUB,
    ...tee(V),
    ...i32(DICT_NAME),
    GT_U,
    EQZ,
    ...IF,
    ...i32(0),
    ...set(H),
    ...get(V),
    ...IF,
    ...get(V),
    ...i32(0x9e3779b1 | 0),
    MUL,
    ...get(S),
    ...LOAD8,
    ...i32(5),
    SHL,
    XOR,
    ...get(E),
    ...i32(1),
    SUB,
    ...LOAD8,
    ...i32(13),
    SHL,
    XOR,
    ...get(S),
    ...get(V),
    ...i32(1),
    SHR_U,
    ADD,
    ...LOAD8,
    ...i32(21),
    SHL,
    XOR,
    ...set(H),
    END,
    ...get(DICT),
    ...get(K),
    ...i32(F_ZONE),
    SUB,
    ...i32(DICT_KIND),
    MUL,
    ADD,
    ...get(H),
    ...i32(0x9e3779b1 | 0),
    MUL,
    ...i32(24),
    SHR_U,
    ...i32(DICT_ENTRY),
    MUL,
    ADD,
    ...tee(ENT),
    ...load(4),
    ...get(V),
    EQ,
    ...IF,
    ...i32(0),
    ...set(I),
    ...BLOCK, // $differs
    ...LOOP,
    ...get(I),
    ...get(V),
    GE_U,
    ...IF,
    ...get(ENT),
    ...load(0),
    ...set(ID),
    ...br(2),
    END,
    ...get(S),
    ...get(I),
    ADD,
    ...load64(0),
    ...get(ENT),
    ...get(I),
    ADD,
    ...load64(8),
    I64_XOR,
    ...i64(-1),
    ...i64(1),
    ...get(V),
    ...get(I),
    SUB,
    ...i32(3),
    SHL,
    EXTEND_U,
    I64_SHL,
    ...i64(1),
    I64_SUB,
    ...get(V),
    ...get(I),
    SUB,
    ...i32(8),
    GE_U,
    SELECT,
    I64_AND,
    I64_EQZ,
    EQZ,
    ...brIf(1),
    ...get(I),
    ...i32(8),
    ADD,
    ...set(I),
    ...br(0),
    END,
    END,
    END,
    END,
    // Zone, RISC, boundary (kinds 6–8) numbers at records' [14]–[16].
    ...get(REC),
    ...get(K),
    ...i32(4),
    MUL,
    ADD,
    ...get(ID),
    ...store(4 * R_ZONE_ID - 4 * F_ZONE),
  ];
  // The field loop's body. Depths from inside an `if` of the kind chain: +1 per if.
  const field = [
    ...spaces,
    ...isC(QUOTE),
    ...isC(TAB),
    OR,
    ...brIf(2), // $other
    ...get(KINDS),
    ...get(F),
    ADD,
    ...LOAD8,
    ...tee(K),
    EQZ,
    ...IF,
    ...toFieldEnd,
    ELSE,
    ...get(K),
    ...i32(F_TIME),
    LT_U,
    ...IF,
    ...smallNumber(4),
    ELSE,
    ...get(K),
    ...i32(F_TIME),
    EQ,
    ...IF,
    ...cycles(5),
    ELSE,
    ...text,
    END,
    END,
    END,
    ...get(F),
    ...i32(1),
    ADD,
    ...tee(F),
    ...get(LAST),
    GT_U,
    ...brIf(1), // $good
    ...isC(LF),
    ...brIf(2), // short: $other
    ...advance,
    ...br(0),
  ];
  const code = [
    ...get(POS),
    ...set(P),
    ...BLOCK, // $exit
    ...LOOP, // $line
    ...get(P),
    ...get(NEXT),
    GE_U,
    ...brIf(1),
    ...get(N),
    ...get(CAP),
    GE_U,
    ...brIf(1),
    ...get(OUT),
    ...get(N),
    ...i32(4 * RECORD),
    MUL,
    ADD,
    ...set(REC),
    ...BLOCK, // $done
    ...BLOCK, // $other
    ...BLOCK, // $good
    ...get(P),
    ...LOAD8,
    ...set(C),
    ...spaces,
    ...isC(CR),
    ...isC(LF),
    OR,
    ...brIf(1), // blank, or \r first: $other
    ...i32(0),
    ...set(F),
    ...LOOP, // $field
    ...field,
    END,
    END, // $good
    ...toFirstOf([LF]),
    ...get(REC),
    ...i32(0),
    ...store(4 * R_OTHER),
    ...br(1), // $done
    END, // $other
    ...skipWhile([...isC(LF), EQZ]),
    ...get(REC),
    ...i32(1),
    ...store(4 * R_OTHER),
    END, // $done
    ...get(REC),
    ...get(P),
    ...store(4 * R_END),
    ...get(P),
    ...i32(1),
    ADD,
    ...set(P),
    ...get(N),
    ...i32(1),
    ADD,
    ...set(N),
    ...br(0),
    END,
    END,
    ...get(RES),
    ...get(N),
    ...store(0),
    ...get(RES),
    ...get(P),
    ...store(4),
  ];
  return [...vec([[14, I32], [1, I64], [1, V128]]), ...code, END];
}

/**
 * `high(from, to)`: non-zero when a byte of `[from, to)` is 0x80 or more — sixteen bytes OR-ed
 * a step, the last few one by one.
 */
function highFunction(): number[] {
  const [FROM, TO, ACC, P, B] = [0, 1, 2, 3, 4];
  const code = [
    ...get(FROM),
    ...set(P),
    ...BLOCK,
    ...LOOP,
    ...get(TO),
    ...get(P),
    SUB,
    ...i32(16),
    LT_U,
    ...brIf(1),
    ...get(ACC),
    ...get(P),
    ...V128_LOAD,
    ...V128_OR,
    ...set(ACC),
    ...get(P),
    ...i32(16),
    ADD,
    ...set(P),
    ...br(0),
    END,
    END,
    ...get(ACC),
    ...I8X16_BITMASK,
    ...set(B),
    ...BLOCK,
    ...LOOP,
    ...get(P),
    ...get(TO),
    GE_U,
    ...brIf(1),
    ...get(B),
    ...get(P),
    ...LOAD8,
    ...i32(0x80),
    AND,
    OR,
    ...set(B),
    ...get(P),
    ...i32(1),
    ADD,
    ...set(P),
    ...br(0),
    END,
    END,
    ...get(B),
  ];
  return [...vec([[1, V128], [2, I32]]), ...code, END];
}

let compiled: WebAssembly.Module | null = null;

function rowsModule(): WebAssembly.Module {
  if (compiled !== null) return compiled;
  const body = rowsFunction();
  const high = highFunction();
  const bytes = new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(
      1,
      vec([
        [0x60, ...vec(new Array(8).fill([I32])), ...vec([])],
        [0x60, ...vec([[I32], [I32]]), ...vec([[I32]])],
      ]),
    ),
    ...section(2, vec([[...name("m"), ...name("memory"), 0x02, 0x00, 1]])),
    ...section(3, vec([[0], [1]])),
    ...section(7, vec([[...name("rows"), 0x00, 0], [...name("high"), 0x00, 1]])),
    ...section(10, vec([[...leb(body.length), ...body], [...leb(high.length), ...high]])),
  ]);
  return compiled = new WebAssembly.Module(bytes);
}

type RowsFunction = (
  pos: number,
  next: number,
  kinds: number,
  last: number,
  out: number,
  cap: number,
  res: number,
  dict: number,
) => void;

/** Records per call. */
export const CAPACITY = 4096;

/**
 * One read buffer in WebAssembly memory (at its start, so offsets into the memory are
 * offsets into the buffer) and the records of its lines. `parse(from, next)` fills `records`
 * with up to CAPACITY lines' records from `from`; `count` says how many, `reached` where the
 * next call starts.
 *
 * @example
 * ```ts
 * import {
 *   F_RISC,
 *   F_TIME,
 *   F_ZONE,
 *   R_HI,
 *   R_LO,
 *   R_OTHER,
 *   RECORD,
 *   RowParser,
 * } from "./_row_parser.ts";
 * const p = new RowParser(64, [F_RISC, F_TIME, F_ZONE]);
 * p.buffer.set(new TextEncoder().encode("BRISC, 1234567890123, FW\n\"x\", 1, y\n"));
 * p.parse(0, 35);
 * const r = p.records;
 * if (p.count !== 2 || p.reached !== 35 || r[R_OTHER] !== 0 || r[RECORD + R_OTHER] !== 1) {
 *   throw new Error();
 * }
 * if (r[R_HI] !== 1234 || r[R_LO] !== 567890123) throw new Error();
 * ```
 */
export class RowParser {
  readonly buffer: Uint8Array;
  readonly records: Int32Array;
  count = 0;
  reached = 0;
  readonly #rows: RowsFunction;
  readonly #high: (from: number, to: number) => number;
  readonly #results: Int32Array;
  readonly #kinds: number;
  readonly #last: number;
  readonly #out: number;
  readonly #res: number;
  readonly #dict: number;
  readonly #dictWords: Int32Array;
  readonly #dictBytes: Uint8Array;

  /** Room for `bytes` bytes of buffer; `kinds[f]` says what to do with field `f`. */
  constructor(bytes: number, kinds: readonly number[]) {
    this.#kinds = bytes;
    this.#last = kinds.length - 1;
    this.#out = (bytes + kinds.length + 7) & ~7;
    this.#res = this.#out + 4 * RECORD * CAPACITY;
    this.#dict = this.#res + 8;
    const dictBytes = 3 * DICT_KIND;
    // Made at its full size: a memory grown would detach the buffer views.
    const memory = new WebAssembly.Memory({
      initial: Math.ceil((this.#dict + dictBytes) / 65536),
    });
    const instance = new WebAssembly.Instance(rowsModule(), { m: { memory } });
    this.buffer = new Uint8Array(memory.buffer, 0, bytes);
    new Uint8Array(memory.buffer, this.#kinds, kinds.length).set(kinds);
    this.records = new Int32Array(memory.buffer, this.#out, RECORD * CAPACITY);
    this.#results = new Int32Array(memory.buffer, this.#res, 2);
    this.#rows = instance.exports.rows as RowsFunction;
    this.#high = instance.exports.high as (from: number, to: number) => number;
    this.#dictWords = new Int32Array(memory.buffer, this.#dict, dictBytes / 4);
    this.#dictBytes = new Uint8Array(memory.buffer, this.#dict, dictBytes);
    for (let at = 0; at < dictBytes; at += DICT_ENTRY) this.#dictWords[(at >> 2) + 1] = -1;
  }

  /**
   * Puts the text `buffer[start, end)` of field kind `kind` (F_ZONE, F_RISC or F_PHASE) in its
   * dictionary as number `id`, in place of whatever held its slot; a text longer than
   * DICT_NAME bytes is left out.
   */
  learn(kind: number, id: number, start: number, end: number): void {
    const n = end - start;
    if (n > DICT_NAME) return;
    const at = (kind - F_ZONE) * DICT_KIND +
      dictSlot(this.buffer, start, end) * DICT_ENTRY;
    this.#dictWords[at >> 2] = id;
    this.#dictWords[(at >> 2) + 1] = n;
    this.#dictBytes.set(this.buffer.subarray(start, end), at + 8);
  }

  /** Whether every byte of `buffer[from, to)` is ASCII (below 0x80). */
  ascii(from: number, to: number): boolean {
    return this.#high(from, to) === 0;
  }

  /** Records the lines of `buffer[from, next)` from `from` on, as many as the records hold. */
  parse(from: number, next: number): void {
    this.#rows(from, next, this.#kinds, this.#last, this.#out, CAPACITY, this.#res, this.#dict);
    this.count = this.#results[0];
    this.reached = this.#results[1];
  }
}
