/**
 * The profiler databases open at once, across every handle: a small pool, so no idle handle
 * keeps a file descriptor (or a database's in-memory snapshot). A connection is opened when a
 * call needs it and kept while it is among the `MAX_OPEN` most recently used and the snapshots
 * open hold at most `MAX_OPEN_BYTES`; past that, the least recently used is closed — never one whose report has a call running
 * (a statement may be mid-way through its rows), and at once when its report is released.
 * A closed connection is opened again, as the very file load_report looked at, on next use.
 *
 * @module
 */

/** What a report's calls share: how many run now, and whether the report was released. */
export interface Activity {
  /** Calls running on the report (through any of its handles). */
  calls: number;
  /** Whether the report was released (its handles are gone). */
  released: boolean;
}

/** The most connections left open while no call uses them. */
export const MAX_OPEN = 8;

/** The most memory the snapshots left open may hold together (one may exceed it alone). */
export const MAX_OPEN_BYTES = 1 << 30;

/** One pooled connection: how to close it, and whose report it serves. */
export interface PooledConnection {
  readonly activity: Activity;
  /** The memory it holds open: a snapshot's size, 0 for a file opened in place. */
  readonly bytes: number;
  /** Closes the connection (the next use opens it again). */
  close(): void;
}

/** Open connections, least recently used first. */
const open = new Set<PooledConnection>();

/** Marks `c` open and most recently used, then closes what is beyond the pool. */
export function usedNow(c: PooledConnection): void {
  open.delete(c);
  open.add(c);
  settleOpenDatabases();
}

/** Forgets `c` (it was closed by its owner). */
export function closedNow(c: PooledConnection): void {
  open.delete(c);
}

/**
 * Closes connections of released reports, then the least recently used beyond MAX_OPEN —
 * skipping any whose report has a call running.
 */
export function settleOpenDatabases(): void {
  for (const c of [...open]) {
    if (c.activity.released && c.activity.calls === 0) {
      open.delete(c);
      c.close();
    }
  }
  let bytes = 0;
  for (const c of open) bytes += c.bytes;
  for (const c of [...open]) {
    if (open.size <= MAX_OPEN && bytes <= MAX_OPEN_BYTES) break;
    // The most recently used stays open, however big: it is the one about to be read.
    if (c.activity.calls > 0 || open.size === 1) continue;
    open.delete(c);
    bytes -= c.bytes;
    c.close();
  }
}

/** How many connections are open now. */
export function openCount(): number {
  return open.size;
}
