/**
 * Which architecture a figure rests on, and whether it was read or assumed. tt-perf-report
 * reads the CSV's DEVICE ARCH; a CSV without one (older tt-metal) is read as Wormhole, and
 * every roofline figure — bound, DRAM and FLOPs percentages, the DRAM bandwidth a lower bound
 * divides by — then rests on that guess. An answer built on it says so at its top level: what
 * was assumed, why, and how to override it.
 *
 * @module
 */
import {
  ARCHITECTURE_ALIASES,
  architectureFromName,
  ARCHITECTURES,
  type ArchitectureSpec,
  cellOf,
  type CsvTable,
  type PerfReport,
  rowCountOf,
} from "../perf_report/mod.ts";
import type { Inventory } from "../session/inventory.ts";
import { derivedOf } from "../kit/derived.ts";

/** Where the architecture a figure rests on came from. */
export type ArchitectureSource = "performance_csv" | "device_log" | "argument" | "assumed";

/** An architecture and where it came from. */
export interface ArchitectureUsed {
  spec: ArchitectureSpec;
  source: ArchitectureSource;
  /** Why it had to be assumed, when it was. */
  why?: string;
}

/**
 * The DEVICE ARCH values of the CSV as written, distinct, in the order they first occur, or
 * an empty list when the column is missing or blank.
 *
 * @example
 * ```ts
 * import { deviceArchValues } from "./architecture.ts";
 * import { parseCsvTable } from "../perf_report/csv_table.ts";
 * const t = parseCsvTable("OP CODE,DEVICE ARCH\nA,wormhole_b0\nB,\nC,wormhole_b0\n", "t.csv");
 * if (deviceArchValues(t).join() !== "wormhole_b0") throw new Error();
 * ```
 */
export function deviceArchValues(table: CsvTable): string[] {
  return derivedOf(table, "device-arch-values", () => {
    const col = table.header.indexOf("DEVICE ARCH");
    if (col < 0) return [];
    const seen = new Set<string>();
    const rows = rowCountOf(table);
    for (let i = 0; i < rows; i++) {
      const v = cellOf(table, i, col).trim();
      if (v !== "") seen.add(v);
    }
    return [...seen];
  });
}

/** Why tt-perf-report had to assume its architecture for this CSV, or null when it read it. */
function whyAssumed(table: CsvTable): string | null {
  if (!table.header.includes("DEVICE ARCH")) {
    return "the performance CSV has no DEVICE ARCH column (tt-metal before the v2.1 CSV " +
      "format), and tt-perf-report then reads every CSV as Wormhole";
  }
  if (deviceArchValues(table).length === 0) {
    return "every DEVICE ARCH cell of the performance CSV is blank, and tt-perf-report then " +
      "reads the CSV as Wormhole";
  }
  return null;
}

/**
 * The architecture tt-perf-report generated `perf` with — the one top_ops' roofline fields
 * (bound, DRAM and FLOPs percentages) rest on — and whether it was read or assumed.
 */
export function reportArchitecture(table: CsvTable, perf: PerfReport): ArchitectureUsed {
  const why = whyAssumed(table);
  return why === null
    ? { spec: perf.arch, source: "performance_csv" }
    : { spec: perf.arch, source: "assumed", why };
}

/** The registry's spec for an architecture name as a device log or an argument writes it. */
export function knownArchitecture(name: string | undefined): ArchitectureSpec | null {
  if (!name) return null;
  const lowered = name.trim().toLowerCase();
  const key = ARCHITECTURE_ALIASES[lowered] ?? lowered;
  return Object.hasOwn(ARCHITECTURES, key) ? architectureFromName(key) : null;
}

/**
 * The architecture a lower bound divides by: the `asked` one, else the CSV's DEVICE ARCH (as
 * tt-perf-report read it, with its worker-core budget), else the device log's ARCH, else
 * Wormhole, assumed.
 */
export function boundArchitecture(
  inv: Inventory,
  table: CsvTable,
  perf: PerfReport,
  asked?: string,
): ArchitectureUsed {
  const argument = knownArchitecture(asked);
  if (argument) return { spec: argument, source: "argument" };
  const fromCsv = reportArchitecture(table, perf);
  if (fromCsv.source === "performance_csv") return fromCsv;
  const logArch = inv.performance?.deviceLog?.capture.ARCH;
  const fromLog = knownArchitecture(logArch);
  if (fromLog) return { spec: fromLog, source: "device_log" };
  return {
    spec: perf.arch,
    source: "assumed",
    why: fromCsv.why! +
      (logArch === undefined
        ? ", and there is no device log naming one"
        : `, and the device log's ARCH ${
          JSON.stringify(logArch)
        } is not one tt-perf-report models`),
  };
}

/** The architecture names an `arch` argument accepts. */
export const ARCHITECTURE_NAMES: readonly string[] = [
  ...Object.keys(ARCHITECTURES),
  ...Object.keys(ARCHITECTURE_ALIASES),
];

/**
 * tt-perf-report's warnings that bear on the architecture or core budget its roofline used: a
 * core budget it had to default or values it ignored, and a CSV naming several architectures.
 * (Several budgets read per operation are no warning.)
 */
export function architectureWarnings(perf: PerfReport): string[] {
  return perf.messages.filter((m) =>
    /^Warning: Multiple DEVICE ARCH|AVAILABLE WORKER CORE COUNT (column not found|value)|No usable AVAILABLE WORKER CORE COUNT/
      .test(m)
  );
}
