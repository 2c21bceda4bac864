/**
 * What memory_profile reports, derived once per handle and rank from one scan of the buffers
 * table: every buffer type's largest footprints, peak and how many operations share it, and —
 * where the devices give an L1 window — the operations under the tightest L1 pressure. Only
 * the top of each ranking is kept (a ranking is capped at 100), so later calls (another
 * buffer_type, another limit) answer from it at once.
 *
 * @module
 */
import { memo, type ProfilerDb, type RankScope, scanOperations } from "../profiler_db/mod.ts";
import { FootprintTally, type TypeFootprints } from "./footprints.ts";
import { PressureTally, pressureWindows, type RankedPressure } from "./l1_pressure_at.ts";
import type { Progress } from "../kit/progress.ts";

/** The derived memory picture of a rank. */
export interface MemorySummary {
  byType: Map<string, TypeFootprints>;
  /** Operations with a buffers row of any type. */
  operations: number;
  /** The tightest operations, or why l1_pressure cannot be given. */
  pressure:
    | { operations: number; top: RankedPressure[]; strayDevices: number[] }
    | { why: string };
}

/**
 * The summary at the scope's rank (scanned on first use; calls made during the scan share it,
 * and a scan that fails is not kept, so the next call tries again).
 */
export function memorySummary(
  pdb: ProfilerDb,
  scope: RankScope,
  progress?: Progress,
): Promise<MemorySummary> {
  const key = `memory-summary\u0000${scope.rank}`;
  return memo(pdb, key, () => {
    const windows = pressureWindows(pdb, scope);
    const summary = scanOperations(
      pdb,
      scope,
      () => {
        const footprints = new FootprintTally();
        const pressure = "why" in windows ? null : new PressureTally(windows.windows);
        let operations = 0;
        return {
          visit(b) {
            operations++;
            footprints.add(b);
            pressure?.add(b);
          },
          finish(): MemorySummary {
            return {
              byType: footprints.result().byType,
              operations,
              pressure: pressure === null ? windows as { why: string } : pressure.result(),
            };
          },
        };
      },
      undefined,
      progress,
    );
    summary.catch(() => pdb.memo.delete(key));
    return summary;
  });
}
