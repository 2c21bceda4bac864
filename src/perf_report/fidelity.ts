/**
 * tt-perf-report 6278e268's math-fidelity verdict (`evaluate_fidelity`).
 * @module
 */

import { PerfReportInputError } from "./exceptions.ts";

/** The verdict on a matmul's math fidelity for its datatypes. */
export type FidelityVerdict = "sufficient" | "too_high" | "too_low" | "unknown" | "not_applicable";

/** A verdict and the advice text that goes with it (null when the tool gives none). */
export interface FidelityEvaluation {
  verdict: FidelityVerdict;
  advice: string | null;
}

/** A datatype as the tool sees it: a string, NaN (blank cell, `null` here) or an absent column. */
export type DatatypeValue = string | null | undefined;

const INTEGER_TYPES = new Set(["UINT8", "UINT16", "INT32", "UINT32"]);
const MANTISSA_BITS: Readonly<Record<string, number>> = {
  FLOAT32: 23,
  BFLOAT16: 8,
  BFLOAT8_B: 7,
  BFLOAT4_B: 3,
};

const HIFI2_BFP8 = "HiFi2 is sufficient for BFP8 multiplication and has 2x the throughput of HiFi4";
const HIFI2_BFP8_HIFI3 =
  "HiFi2 is sufficient for BFP8 multiplication and has higher throughput than HiFi3";
const LOFI_BFP4_OUT =
  "LoFi might also be sufficient with BFP4 output and has almost 2x the throughput of HiFi2";

/** How Python prints a datatype value inside the "not supported" message. */
function datatypeText(value: DatatypeValue): string {
  if (value === undefined) return "None";
  if (value === null) return "nan";
  return value;
}

function unknownFidelity(fidelity: string | null): never {
  throw new PerfReportInputError(
    "unknown_math_fidelity",
    `tt-perf-report cannot evaluate math fidelity ${fidelity} for these datatypes ` +
      "(it models HiFi4, HiFi3, HiFi2 and LoFi)",
  );
}

/**
 * `evaluate_fidelity(in0, in1, out, fidelity)`. Where the tool would fail an assertion (a
 * fidelity other than HiFi4/HiFi3/HiFi2/LoFi in a branch that needs one) this throws.
 * @throws {PerfReportInputError} kind `unknown_math_fidelity`
 */
export function evaluateFidelity(
  in0: DatatypeValue,
  in1: DatatypeValue,
  out: DatatypeValue,
  fidelity: string | null,
): FidelityEvaluation {
  const isInt = (v: DatatypeValue) => typeof v === "string" && INTEGER_TYPES.has(v);
  if (isInt(in0) || isInt(in1) || isInt(out)) {
    return {
      verdict: "not_applicable",
      advice:
        "Fidelity evaluation is not applicable for integer datatypes (UINT8, UINT16, INT32, UINT32).",
    };
  }
  const bits: number[] = [];
  for (const v of [in0, in1, out]) {
    const b = typeof v === "string" && Object.hasOwn(MANTISSA_BITS, v) ? MANTISSA_BITS[v] : null;
    if (b === null) {
      return {
        verdict: "unknown",
        advice: `Datatype ${datatypeText(v)} is not supported for fidelity evaluation.`,
      };
    }
    bits.push(b);
  }
  const [in0Bits, in1Bits, outBits] = bits;
  const f = fidelity;
  if (in0Bits === 8 && outBits >= 7) {
    if (f === "HiFi4") {
      return {
        verdict: "sufficient",
        advice:
          "HiFi2 may also work, it discards the lowest bit of the activations and has 2x the throughput of HiFi4",
      };
    }
    if (f === "HiFi3" || f === "HiFi2") {
      return {
        verdict: "too_low",
        advice:
          "If your matmuls are not FLOP-bound use HiFi4 with BF16 activations for full accuracy",
      };
    }
    if (f === "LoFi") {
      return {
        verdict: "too_low",
        advice: "Use HiFi2 or HiFi4 with BF16 activations for improved accuracy",
      };
    }
    return unknownFidelity(f);
  }
  if (in0Bits === 8 && outBits === 3) {
    if (f === "HiFi4") {
      return {
        verdict: "too_high",
        advice:
          "HiFi2 is very likely to work for BFP4 output; it discards the lowest bit of the activations and has 2x the throughput of HiFi4",
      };
    }
    if (f === "HiFi3") {
      return {
        verdict: "too_high",
        advice: "HiFi2 is very likely to work for BFP4 output and has higher throughput than HiFi3",
      };
    }
    if (f === "HiFi2") return { verdict: "sufficient", advice: LOFI_BFP4_OUT };
    if (f === "LoFi") {
      return {
        verdict: "too_low",
        advice:
          "HiFi2 may give better accuracy for large matmuls with many intermediate accumulations",
      };
    }
    return unknownFidelity(f);
  }
  if (in1Bits >= 7 && outBits >= 7) {
    if (f === "HiFi4") return { verdict: "too_high", advice: HIFI2_BFP8 };
    if (f === "HiFi3") return { verdict: "too_high", advice: HIFI2_BFP8_HIFI3 };
    if (f === "HiFi2") return { verdict: "sufficient", advice: null };
    if (f === "LoFi") {
      return {
        verdict: "too_low",
        advice: "HiFi2 is recommended for accuracy; LoFi discards the lowest 2 bits of the weights",
      };
    }
    return unknownFidelity(f);
  }
  if (in1Bits >= 7 && outBits === 3) {
    if (f === "HiFi4") return { verdict: "too_high", advice: HIFI2_BFP8 };
    if (f === "HiFi3") return { verdict: "too_high", advice: HIFI2_BFP8_HIFI3 };
    if (f === "HiFi2") return { verdict: "sufficient", advice: LOFI_BFP4_OUT };
    if (f === "LoFi") {
      return {
        verdict: "too_low",
        advice:
          "HiFi2 may give slightly better accuracy for large matmuls with many intermediate accumulations",
      };
    }
    return unknownFidelity(f);
  }
  if (in1Bits === 3) {
    if (f === "LoFi") return { verdict: "sufficient", advice: null };
    return {
      verdict: "too_high",
      advice: "LoFi is sufficient with BFP4 weights, use it for much higher throughput",
    };
  }
  const text = `Using ${f} for ${datatypeText(in0)}/${datatypeText(in1)} inputs and ${
    datatypeText(out)
  } output`;
  return { verdict: "unknown", advice: text };
}
