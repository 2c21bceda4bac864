/**
 * Live report handles (`report-1`, `report-2`, …). Several are live at once and none is
 * ever reused. Every lookup checks that the files the handle was loaded from are still the
 * same — not rewritten, not removed, not superseded by a newer performance CSV — and
 * refuses otherwise, so an answer never mixes an old capture with a new one.
 *
 * Handles have a lifetime. Loads of the same directories whose files are unchanged (the same
 * identities) share one read of them — one inventory, one cache of derived results — so
 * loading again costs no memory. At most `maxHandles` handles and `maxReports` distinct
 * reports are kept, their estimated memory within `budgetBytes`; past that the least recently
 * used is released (never one with calls running: the limits are met again when they end),
 * and a released handle's refusal says so and to load again.
 *
 * @module
 */
import { Refusal } from "../kit/refusal.ts";
import type { Progress } from "../kit/progress.ts";
import { changeSince, identifyIfPresent } from "../kit/file_identity.ts";
import { mib } from "../kit/report_file.ts";
import { identitiesOf, type Inventory } from "./inventory.ts";
import { keptOf, REPORT_FILES } from "./report_files.ts";
import { type Activity, settleOpenDatabases } from "./open_databases.ts";

export type { Activity };

/** One loaded report, as one handle sees it. */
export interface LoadedReport {
  handle: string;
  inventory: Inventory;
  /** Per-report memo of derived results (generated reports, links …), keyed by the deriver. */
  cache: Map<string, unknown>;
  /** Shared by every handle on the report: what is open for a running call stays open. */
  activity: Activity;
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

/** How many handles and reports are kept, and the memory they may hold. */
export interface Limits {
  maxHandles: number;
  maxReports: number;
  /** Estimated bytes of every report's data together. */
  budgetBytes: number;
}

/** The server's limits. */
export const LIMITS: Limits = { maxHandles: 256, maxReports: 32, budgetBytes: 1 << 30 };

/** One distinct report: one read of one set of files. */
interface Shared {
  key: string | null;
  inventory: Inventory;
  cache: Map<string, unknown>;
  activity: Activity;
  handles: Set<string>;
}

/** A report call's hold on its report: while held, it is not released under the call. */
export interface Lease {
  report: LoadedReport;
  release(): void;
}

/** The server's handles. */
export class HandleRegistry {
  #next = 1;
  readonly #limits: Limits;
  /** Handle → its report, least recently used first. */
  #handles = new Map<string, Shared>();
  /** Distinct reports, least recently used first. */
  #reports = new Set<Shared>();
  #byKey = new Map<string, Shared>();

  constructor(limits: Limits = LIMITS) {
    this.#limits = limits;
  }

  /**
   * Registers a report and returns it with its new handle. With `key` (what identifies the
   * files it was read from), a live report of the same key is shared instead.
   */
  add(inventory: Inventory, key?: string): LoadedReport {
    let shared = key === undefined ? undefined : this.#byKey.get(key);
    if (shared === undefined) {
      shared = {
        key: key ?? null,
        inventory,
        cache: new Map(),
        activity: { calls: 0, released: false },
        handles: new Set(),
      };
      if (key !== undefined) this.#byKey.set(key, shared);
    }
    const handle = `report-${this.#next++}`;
    shared.handles.add(handle);
    this.#handles.set(handle, shared);
    this.#touch(shared);
    this.#bound(shared);
    return view(handle, shared);
  }

  /** The inventory of a live report read from the files `key` identifies, or null. */
  sharedInventory(key: string): Inventory | null {
    return this.#byKey.get(key)?.inventory ?? null;
  }

  /** The handles live now, least recently used first. */
  handles(): string[] {
    return [...this.#handles.keys()];
  }

  /**
   * The report behind `handle`, after checking that its files are unchanged. Throws a
   * Refusal naming the loaded handles when it is unknown, saying it was released, or saying
   * what changed when stale.
   */
  async get(handle: string): Promise<LoadedReport> {
    const shared = this.#handles.get(handle);
    if (!shared) throw this.#unknown(handle);
    const change = await staleness(shared.inventory);
    if (change) {
      throw new Refusal(
        `${handle} is stale: ${change}. Call load_report again for a fresh handle; ` +
          `this one is never answered from a mix of old and new files.`,
      );
    }
    if (!this.#handles.has(handle)) throw this.#unknown(handle);
    this.#handles.delete(handle);
    this.#handles.set(handle, shared);
    this.#touch(shared);
    return view(handle, shared);
  }

  /** `get`, holding the report until `release` (what a call reads from stays open). */
  async lease(handle: string): Promise<Lease> {
    const report = await this.get(handle);
    report.activity.calls++;
    let held = true;
    return {
      report,
      release: () => {
        if (!held) return;
        held = false;
        report.activity.calls--;
        this.#bound(null);
        settleOpenDatabases();
      },
    };
  }

  #unknown(handle: string): Refusal {
    const m = /^report-(\d+)$/.exec(handle);
    if (m && Number(m[1]) < this.#next) {
      const { maxHandles, maxReports, budgetBytes } = this.#limits;
      return new Refusal(
        `${handle} was released: this server keeps at most ${maxHandles} handles and ` +
          `${maxReports} reports (about ${mib(budgetBytes)} of their data), and lets the least ` +
          `recently used go first. Call load_report again for a fresh handle.`,
      );
    }
    const loaded = this.handles();
    return new Refusal(
      `unknown handle '${handle}'; loaded handles: ${
        loaded.length > 0 ? loaded.join(", ") : "none"
      }` +
        (loaded.length === 0 ? " (call load_report first)" : ""),
    );
  }

  #touch(shared: Shared): void {
    this.#reports.delete(shared);
    this.#reports.add(shared);
  }

  /**
   * Releases the least recently used until the limits hold; `keep` (the report just added) and
   * reports with calls running are passed over (the limits are met again when those end).
   */
  #bound(keep: Shared | null): void {
    const { maxHandles, maxReports, budgetBytes } = this.#limits;
    for (const [handle, shared] of this.#handles) {
      if (this.#handles.size <= maxHandles) break;
      if ((shared === keep && shared.handles.size === 1) || shared.activity.calls > 0) continue;
      this.#handles.delete(handle);
      shared.handles.delete(handle);
      if (shared.handles.size === 0) this.#release(shared);
    }
    let bytes = 0;
    const held = new Map<Shared, number>();
    for (const shared of this.#reports) {
      held.set(shared, estimatedBytes(shared.inventory));
      bytes += held.get(shared)!;
    }
    for (const shared of [...this.#reports]) {
      if (this.#reports.size <= maxReports && bytes <= budgetBytes) break;
      if (shared === keep || shared.activity.calls > 0) continue;
      bytes -= held.get(shared)!;
      this.#release(shared);
    }
  }

  #release(shared: Shared): void {
    for (const handle of shared.handles) this.#handles.delete(handle);
    shared.handles.clear();
    this.#reports.delete(shared);
    if (shared.key !== null && this.#byKey.get(shared.key) === shared) {
      this.#byKey.delete(shared.key);
    }
    shared.activity.released = true;
    settleOpenDatabases();
  }
}

function view(handle: string, shared: Shared): LoadedReport {
  return {
    handle,
    inventory: shared.inventory,
    cache: shared.cache,
    activity: shared.activity,
  };
}

/**
 * What a report's data holds in memory now: its performance CSV, once read and parsed, and
 * reported (about three times the file; nothing for a CSV refused or not read yet), and a
 * little more. Its database's in-memory copy is bounded by the pool (`open_databases.ts`).
 */
export function estimatedBytes(inv: Inventory): number {
  const csv = inv.performance?.csvBytesHeld ?? 0;
  return (64 << 10) + 3 * csv;
}

/** What changed since the inventory was read, or null. */
export async function staleness(inv: Inventory): Promise<string | null> {
  for (const was of identitiesOf(inv)) {
    const change = changeSince(was, await identifyIfPresent(was.path));
    if (change) return change;
  }
  // Where the newest file of a kind is the one read, a newer one supersedes it.
  for (const kind of REPORT_FILES.filter((k) => k.newestWins)) {
    const dir = inv[kind.side]?.dir;
    if (dir === undefined) continue;
    const now = await kind.choose(dir).catch(() => null);
    const kept = keptOf(inv, kind);
    const before = kept === null ? null : kind.identity(kept).path;
    if ((now?.path ?? null) !== before && now !== null) {
      return before === null
        ? `${now.name} appeared in ${dir} after the report was loaded`
        : `a newer ${now.name} appeared beside ${before.slice(before.lastIndexOf("/") + 1)}`;
    }
  }
  return null;
}
