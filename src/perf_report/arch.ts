/**
 * CSV format detection and the architecture registry of tt-perf-report 6278e268, with the
 * rules that pick an architecture and a file-wide worker-core count for a capture.
 * @module
 */

import { coreCountFromValue, finiteFloat } from "./cells.ts";
import type { Frame } from "./_frame.ts";
import { PerfReportInputError } from "./exceptions.ts";

/** tt-perf-report's CSV format versions. */
export type CsvFormat = "v1" | "v2" | "v2.1";

/** The math fidelities tt-perf-report models. */
export type MathFidelity = "HiFi4" | "HiFi3" | "HiFi2" | "LoFi";

/** One architecture as tt-perf-report models it. TFLOPs are per core. */
export interface ArchitectureSpec {
  name: string;
  worker_cores: number;
  dram_sharded_matmul_cores: number;
  dram_bandwidth_gb_s: number;
  tflops_per_core: Record<MathFidelity, number>;
  /** Distinct AVAILABLE WORKER CORE COUNT budgets the CSV reported, largest first. */
  observed_budgets: number[];
}

const WH_HIFI4 = 74 / 72;
const BH_LOFI = (4096 * 1.35) / 1000;
const N1_LOFI = (4096 * 0.65) / 1000;
const BH_TFLOPS: Record<MathFidelity, number> = {
  HiFi4: (4096 * 1.35) / 1000 / 4,
  HiFi3: (4096 * 1.35) / 1000 / 3,
  HiFi2: (4096 * 1.35) / 1000 / 2,
  LoFi: BH_LOFI,
};

/** The registry, with each TFLOPs value computed by the tool's own expression. */
export const ARCHITECTURES: Readonly<Record<string, Omit<ArchitectureSpec, "observed_budgets">>> = {
  wormhole: {
    name: "wormhole",
    worker_cores: 64,
    dram_sharded_matmul_cores: 12,
    dram_bandwidth_gb_s: 288,
    tflops_per_core: {
      HiFi4: WH_HIFI4,
      HiFi3: (WH_HIFI4 * 4) / 3,
      HiFi2: 148 / 72,
      LoFi: 262 / 72,
    },
  },
  blackhole: {
    name: "blackhole",
    worker_cores: 110,
    dram_sharded_matmul_cores: 8,
    dram_bandwidth_gb_s: 512,
    tflops_per_core: BH_TFLOPS,
  },
  blackhole_p100: {
    name: "blackhole_p100",
    worker_cores: 110,
    dram_sharded_matmul_cores: 7,
    dram_bandwidth_gb_s: 448,
    tflops_per_core: BH_TFLOPS,
  },
  bh20: {
    name: "bh20",
    worker_cores: 20,
    dram_sharded_matmul_cores: 8,
    dram_bandwidth_gb_s: 512,
    tflops_per_core: BH_TFLOPS,
  },
  n1: {
    name: "n1",
    worker_cores: 20,
    dram_sharded_matmul_cores: 8,
    dram_bandwidth_gb_s: 120,
    tflops_per_core: {
      HiFi4: N1_LOFI / 4,
      HiFi3: N1_LOFI / 3,
      HiFi2: N1_LOFI / 2,
      LoFi: N1_LOFI,
    },
  },
};

/** SKU aliases, applied after lower-casing. */
export const ARCHITECTURE_ALIASES: Readonly<Record<string, string>> = {
  wormhole_b0: "wormhole",
  p100: "blackhole_p100",
  p100a: "blackhole_p100",
  blackhole_p100a: "blackhole_p100",
  p150: "blackhole",
  p150a: "blackhole",
  p150b: "blackhole",
  p150c: "blackhole",
  blackhole_p150: "blackhole",
};

/**
 * `ArchitectureSpec.from_name`: lower-cases and maps aliases (a missing or empty name is
 * wormhole), and overrides the worker-core count when one is given.
 * @throws {PerfReportInputError} kind `unknown_architecture`
 */
export function architectureFromName(
  name: string | null | undefined,
  workerCores: number | null = null,
  observedBudgets: number[] = [],
): ArchitectureSpec {
  const lowered = name ? name.toLowerCase() : "wormhole";
  const normalized = ARCHITECTURE_ALIASES[lowered] ?? lowered;
  const spec = Object.hasOwn(ARCHITECTURES, normalized) ? ARCHITECTURES[normalized] : undefined;
  if (!spec) {
    throw new PerfReportInputError("unknown_architecture", `Unknown architecture: ${name}`);
  }
  return {
    ...spec,
    tflops_per_core: { ...spec.tflops_per_core },
    worker_cores: workerCores ?? spec.worker_cores,
    observed_budgets: [...observedBudgets],
  };
}

/** TFLOPs per core for a fidelity; anything but the four known names is an error. */
export function tflopsPerCore(spec: ArchitectureSpec, fidelity: string): number {
  if (!Object.hasOwn(spec.tflops_per_core, fidelity)) {
    throw new PerfReportInputError(
      "unknown_math_fidelity",
      `Unknown math fidelity: ${fidelity} (tt-perf-report models HiFi4, HiFi3, HiFi2 and LoFi)`,
    );
  }
  return spec.tflops_per_core[fidelity as MathFidelity];
}

/** The column that makes a CSV v2.1 besides DEVICE ARCH. */
export const AVAILABLE_WORKER_CORE_COUNT_COLUMN = "AVAILABLE WORKER CORE COUNT";

/** v2.1 when DEVICE ARCH or AVAILABLE WORKER CORE COUNT exists, v2 with `_PAD[LOGICAL]` columns, else v1. */
export function detectCsvFormat(columns: readonly string[]): CsvFormat {
  if (columns.includes("DEVICE ARCH") || columns.includes(AVAILABLE_WORKER_CORE_COUNT_COLUMN)) {
    return "v2.1";
  }
  return columns.some((c) => c.includes("_PAD[LOGICAL]")) ? "v2" : "v1";
}

/** The shape column name for a format: `INPUT_0_X` (v1) or `INPUT_0_X_PAD[LOGICAL]`. */
export function shapeColumn(base: string, format: CsvFormat): string {
  if (format === "v1") return base;
  // The same string each time: its hash is kept, so the lookups it keys stay cheap.
  let name = PADDED.get(base);
  if (name === undefined) PADDED.set(base, name = `${base}_PAD[LOGICAL]`);
  return name;
}

const PADDED = new Map<string, string>();

/** The architecture a report uses, with the messages tt-perf-report prints while choosing it. */
export interface ResolvedArchitecture {
  format: CsvFormat;
  spec: ArchitectureSpec;
  messages: string[];
}

function archNameFromFrame(frame: Frame, format: CsvFormat, messages: string[]): string {
  if (format !== "v2.1" || !frame.has("DEVICE ARCH")) {
    messages.push("DEVICE ARCH column not found. Defaulting to 'wormhole'.");
    return "wormhole";
  }
  const values: string[] = [];
  for (let i = 0; i < frame.length; i++) {
    const t = frame.textOrNull(i, "DEVICE ARCH");
    if (t !== null && t !== undefined && t !== "") values.push(t);
  }
  if (values.length === 0) {
    messages.push("No DEVICE ARCH values found. Defaulting to 'wormhole'.");
    return "wormhole";
  }
  const unique = [...new Set(values)];
  if (unique.length > 1) {
    messages.push(
      `Warning: Multiple DEVICE ARCH values found: [${
        unique.map((u) => `'${u}'`).join(", ")
      }]. Using first value: '${values[0]}'.`,
    );
  }
  return values[0] === "wormhole_b0" ? "wormhole" : values[0];
}

function workerCoreBudgets(
  frame: Frame,
  format: CsvFormat,
  archName: string,
  messages: string[],
): { workerCores: number; observed: number[] } {
  const fallback = architectureFromName(archName);
  const defaulting = `Defaulting to ${fallback.worker_cores} ${fallback.name} cores.`;
  if (format !== "v2.1" || !frame.has(AVAILABLE_WORKER_CORE_COUNT_COLUMN)) {
    messages.push(`AVAILABLE WORKER CORE COUNT column not found. ${defaulting}`);
    return { workerCores: fallback.worker_cores, observed: [] };
  }
  let present = 0;
  let unreadable = 0;
  const counts: number[] = [];
  for (let i = 0; i < frame.length; i++) {
    const v = frame.value(i, AVAILABLE_WORKER_CORE_COUNT_COLUMN);
    if (v === null || v === undefined) continue;
    present++;
    if (finiteFloat(v) === null) unreadable++;
    const c = coreCountFromValue(v);
    if (c !== null) counts.push(c);
  }
  const unusable = present - unreadable - counts.length;
  if (unreadable > 0) {
    messages.push(`Ignoring ${unreadable} unreadable AVAILABLE WORKER CORE COUNT value(s).`);
  }
  if (unusable > 0) {
    messages.push(
      `Ignoring ${unusable} AVAILABLE WORKER CORE COUNT value(s) that are not a core count.`,
    );
  }
  if (counts.length === 0) {
    messages.push(`No usable AVAILABLE WORKER CORE COUNT values found. ${defaulting}`);
    return { workerCores: fallback.worker_cores, observed: [] };
  }
  const unique = [...new Set(counts)].sort((a, b) => b - a);
  if (unique.length > 1) {
    messages.push(
      `Detected multiple worker core budgets [${unique.join(", ")}] - using per-op values; ` +
        `largest observed budget is ${unique[0]}.`,
    );
  }
  return { workerCores: unique[0], observed: unique };
}

/**
 * Detects the CSV format and picks the architecture as `generate_perf_report` does: for v2.1
 * the user's `arch` wins over DEVICE ARCH and the file-wide core count is the largest usable
 * AVAILABLE WORKER CORE COUNT; v1/v2 use `arch` or wormhole with the registry count.
 * @throws {PerfReportInputError} kind `unknown_architecture`
 */
export function resolveArchitecture(
  frame: Frame,
  arch: string | null = null,
): ResolvedArchitecture {
  const format = detectCsvFormat(frame.columns);
  const messages: string[] = [];
  let chosen = arch;
  let spec: ArchitectureSpec;
  if (format === "v2.1") {
    messages.push("Detected CSV format: v2.1 (with device arch and worker core count)");
    const csvArch = archNameFromFrame(frame, format, messages);
    if (!chosen) {
      chosen = csvArch;
      messages.push(`Using architecture from CSV: ${chosen}`);
    } else {
      messages.push(`Using user-specified architecture: ${chosen} (CSV detected ${csvArch})`);
    }
    const budgets = workerCoreBudgets(frame, format, chosen, messages);
    spec = architectureFromName(chosen, budgets.workerCores, budgets.observed);
  } else {
    messages.push(
      format === "v1" ? "Detected CSV format: v1 (legacy format)" : "Detected CSV format: v2",
    );
    spec = architectureFromName(chosen);
  }
  const cores = spec.observed_budgets.length > 1
    ? `largest observed worker core budget: ${spec.worker_cores}`
    : `Worker cores: ${spec.worker_cores}`;
  messages.push(`Architecture: ${spec.name}, ${cores}`);
  return { format, spec, messages };
}
