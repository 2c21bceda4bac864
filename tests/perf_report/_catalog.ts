/**
 * Test support: the helper catalog of the reproduced tt-perf-report state
 * (`tool_catalog-6278e268.json`), and parsing of the Python calls it records.
 * @module
 */

import { CAPTURES_URL, capturesPresent } from "./_golden.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

let cached: Json | null | undefined;

/** The catalog, or null when the shared captures are absent. */
export function catalog(): Json | null {
  if (cached === undefined) {
    cached = capturesPresent()
      ? JSON.parse(
        Deno.readTextFileSync(new URL("tool_catalog-6278e268.json", CAPTURES_URL)),
      )
      : null;
  }
  return cached;
}

function pyLiteral(text: string): unknown {
  if (text === "None") return null;
  if (text === "True") return true;
  if (text === "False") return false;
  if (text.startsWith("'")) return text.slice(1, -1);
  if (text.startsWith("(")) {
    return text.slice(1, -1).split(",").map((p) => pyLiteral(p.trim()));
  }
  return Number(text);
}

/** The keyword arguments of a recorded `generate_perf_report(...)` call. */
export function parseCallKwargs(call: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const re = /(\w+)=(None|True|False|'[^']*'|\([^)]*\)|-?[\d.]+)/g;
  for (const m of call.matchAll(re)) out[m[1]] = pyLiteral(m[2]);
  return out;
}
