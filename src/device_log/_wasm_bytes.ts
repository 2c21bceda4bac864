/**
 * Internal: the pieces of WebAssembly's binary format that `_row_parser.ts` writes its module
 * with — LEB128 numbers, vectors, sections, names and the opcodes it uses, each a byte list.
 *
 * @module
 */

/** Unsigned LEB128, as WebAssembly encodes sizes, counts and indices. */
export function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128, for `i32.const` and `i64.const` (exact below 2⁵³). */
function sleb(n: number): number[] {
  const out: number[] = [];
  while (true) {
    const b = Number(BigInt.asUintN(7, BigInt(n)));
    n = Math.floor(n / 128);
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export const vec = (items: number[][]) => [...leb(items.length), ...items.flat()];
export const section = (id: number, body: number[]) => [id, ...leb(body.length), ...body];
export const name = (s: string) => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

export const I32 = 0x7f;
export const I64 = 0x7e;
export const BLOCK = [0x02, 0x40];
export const LOOP = [0x03, 0x40];
export const IF = [0x04, 0x40];
export const ELSE = 0x05;
export const END = 0x0b;
export const get = (i: number) => [0x20, i];
export const set = (i: number) => [0x21, i];
export const tee = (i: number) => [0x22, i];
export const i32 = (v: number) => [0x41, ...sleb(v)];
export const i64 = (v: number) => [0x42, ...sleb(v)];
export const brIf = (depth: number) => [0x0d, depth];
export const br = (depth: number) => [0x0c, depth];
export const EQZ = 0x45;
export const EQ = 0x46;
export const LT_U = 0x49;
export const GT_U = 0x4b;
export const GE_U = 0x4f;
export const ADD = 0x6a;
export const SUB = 0x6b;
export const MUL = 0x6c;
export const AND = 0x71;
export const OR = 0x72;
export const XOR = 0x73;
export const I64_ADD = 0x7c;
export const I64_MUL = 0x7e;
export const I64_DIV_U = 0x80;
export const I64_REM_U = 0x82;
export const WRAP = 0xa7; // i32.wrap_i64
export const EXTEND_U = 0xad; // i64.extend_i32_u
export const CTZ = 0x68;
export const SHL = 0x74;
export const SHR_U = 0x76;
export const SELECT = 0x1b;
export const I64_SUB = 0x7d;
export const I64_AND = 0x83;
export const I64_XOR = 0x85;
export const I64_SHL = 0x86;
export const I64_EQZ = 0x50;
export const load64 = (offset: number) => [0x29, 3, ...leb(offset)]; // i64.load
export const V128 = 0x7b;
const simd = (op: number, ...immediates: number[]) => [0xfd, ...leb(op), ...immediates];
export const V128_LOAD = simd(0, 0, 0); // unaligned, offset 0
export const splat = (byte: number) => simd(12, ...new Array(16).fill(byte)); // v128.const
export const I8X16_EQ = simd(35);
export const V128_OR = simd(80);
export const I8X16_BITMASK = simd(100);
export const LOAD8 = [0x2d, 0, 0]; // i32.load8_u, offset 0
export const load = (offset: number) => [0x28, 2, ...leb(offset)]; // i32.load
export const store = (offset: number) => [0x36, 2, ...leb(offset)]; // i32.store
