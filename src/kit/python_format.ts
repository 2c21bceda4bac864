/**
 * Python's fixed-point formatting of a float — `format(x, ",.Nf")` — which rounds the exact
 * binary value half to even. JavaScript's `toFixed` rounds differently, so every figure
 * compared with a Python tool's output is formatted here.
 *
 * @module
 */

/** Exact binary value of a finite double as `mantissa * 2**exponent`. */
function decomposeDouble(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/**
 * Python `format(x, ",.Nf")` (or `".Nf"` without `thousands`): the exact binary value rounded
 * half-to-even to `decimals` places. JavaScript's `toFixed` rounds differently, so this is
 * needed wherever a printed tool number is compared.
 */
export function pyFormatFixed(x: number, decimals: number, thousands = true): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const negative = x < 0 || Object.is(x, -0);
  const { mantissa, exponent } = decomposeDouble(x);
  const scale = 10n ** BigInt(decimals);
  let q: bigint;
  if (exponent >= 0) {
    q = (mantissa << BigInt(exponent)) * scale;
  } else {
    const num = mantissa * scale;
    const den = 1n << BigInt(-exponent);
    q = num / den;
    const twice = 2n * (num % den);
    if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  }
  const text = q.toString().padStart(decimals + 1, "0");
  let intPart = text.slice(0, text.length - decimals);
  const fracPart = text.slice(text.length - decimals);
  if (thousands) intPart = intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${negative ? "-" : ""}${intPart}${decimals > 0 ? "." + fracPart : ""}`;
}
