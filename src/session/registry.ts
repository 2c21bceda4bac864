/**
 * Live report handles (`report-1`, `report-2`, …). Several are live at once and none is
 * ever reused. Every lookup checks that the files the handle was loaded from are still the
 * same — not rewritten, not removed, not superseded by a newer `ops_perf_results*.csv` — and
 * refuses otherwise, so an answer never mixes an old capture with a new one.
 *
 * @module
 */
import { Refusal } from "../kit/refusal.ts";
import type { Progress } from "../kit/progress.ts";
import { changeSince, identifyIfPresent } from "../kit/file_identity.ts";
import { identitiesOf, type Inventory } from "./inventory.ts";
import { chooseOpsCsv } from "../perf_report/probe.ts";

/** One loaded report. */
export interface LoadedReport {
  handle: string;
  inventory: Inventory;
  /** Per-handle memo of derived results (generated reports, links …), keyed by the deriver. */
  cache: Map<string, unknown>;
}

/**
 * One tool call on one loaded report, as the session's readers take it: the tool's name for
 * the messages they write, the report, and the signal that stops a long read when the call is
 * cancelled.
 */
export interface ReportCall {
  readonly tool: string;
  readonly report: LoadedReport;
  readonly signal?: AbortSignal;
  /** Where a long read says how far it is. */
  readonly progress?: Progress;
}

/** The server's handles. */
export class HandleRegistry {
  #next = 1;
  #reports = new Map<string, LoadedReport>();

  /** Registers a report and returns it with its new handle. */
  add(inventory: Inventory): LoadedReport {
    const report = { handle: `report-${this.#next++}`, inventory, cache: new Map() };
    this.#reports.set(report.handle, report);
    return report;
  }

  /** The handles loaded so far. */
  handles(): string[] {
    return [...this.#reports.keys()];
  }

  /**
   * The report behind `handle`, after checking that its files are unchanged. Throws a
   * Refusal naming the loaded handles when it is unknown, or saying what changed when stale.
   */
  async get(handle: string): Promise<LoadedReport> {
    const report = this.#reports.get(handle);
    if (!report) {
      const loaded = this.handles();
      throw new Refusal(
        `unknown handle '${handle}'; loaded handles: ${
          loaded.length > 0 ? loaded.join(", ") : "none"
        }` +
          (loaded.length === 0 ? " (call load_report first)" : ""),
      );
    }
    const change = await staleness(report.inventory);
    if (change) {
      throw new Refusal(
        `${handle} is stale: ${change}. Call load_report again for a fresh handle; ` +
          `this one is never answered from a mix of old and new files.`,
      );
    }
    return report;
  }
}

/** What changed since the inventory was read, or null. */
export async function staleness(inv: Inventory): Promise<string | null> {
  for (const was of identitiesOf(inv)) {
    const change = changeSince(was, await identifyIfPresent(was.path));
    if (change) return change;
  }
  const perf = inv.performance;
  if (perf) {
    const now = await chooseOpsCsv(perf.dir).catch(() => null);
    const before = perf.csv?.path ?? null;
    if ((now?.path ?? null) !== before && now !== null) {
      return before === null
        ? `${now.name} appeared in ${perf.dir} after the report was loaded`
        : `a newer ${now.name} appeared beside ${perf.csv!.name}`;
    }
  }
  return null;
}
