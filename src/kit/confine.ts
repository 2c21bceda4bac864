/**
 * Confinement by what was opened. Deno has no `openat` or `O_NOFOLLOW` for a path's
 * directories and grants no `/proc/self/fd` to this server, so a file cannot be opened relative
 * to a checked directory, nor its descriptor named. What it can do, and what this module does
 * under `--root`:
 *
 * 1. Resolve the path (`realPath`) and require it inside a root.
 * 2. Walk it: `lstat` every component of the resolved path, from `/` down, recording each
 *    one's device, inode and (for a directory) modification time. A component that is a
 *    symlink (a swap since the resolve), or a parent that is not a directory, is refused. So
 *    is one that another user could use to race the server — the rule OpenSSH's StrictModes
 *    follows: a component owned by anyone but this server's user or root, a directory writable
 *    by group or others without the sticky bit, a file writable by group or others.
 * 3. Require every directory that binds a directory on the way — for a file, each component
 *    above its own directory; for a directory, each one above it — to be **settled**: seen with the same device, inode and modification time at
 *    least `SETTLE_MS` (more on a file system that keeps coarser times) before this walk began.
 *    An unsettled walk is not opened through: the caller waits and walks again.
 * 4. Open the resolved path and `fstat` the descriptor: it must be the last component walked.
 * 5. Walk again, `AFTER_WALKS` times: every component must be the one first walked, and every
 *    binding directory must still have the modification time it had.
 *
 * Why step 3 closes the race the walks alone leave: renaming, exchanging, creating or removing
 * an entry sets its directory's modification time to the time of the change. A change after a
 * walk began gets a time at least the walk's start less one clock tick (≤ 10 ms on Linux), and
 * a settled directory's time is `SETTLE_MS` older than that start, so no change between the
 * first walk and the last can leave a binding directory's time as it was — not even one that
 * falls between a parent's `lstat` and its child's, which every walk alone can miss (measured:
 * under `renameat2(RENAME_EXCHANGE)` at full speed, 9 of 217,000 opens passed twelve walks
 * after). A file's own entry needs no such check: the descriptor must be the very file walked.
 *
 * Residual risk, and why it is accepted: a change the kernel does not date — a mount over a
 * component (root only), a directory whose time its owner sets back with `utimes` in the same
 * race, a network file system that caches attributes or dates changes by a server's clock that
 * runs slower than ours. Only someone who can rename inside a component can swap it, and step 2
 * refuses every component another user could rename in, so what remains is a race by this
 * server's own user (or root), who can read those files anyway.
 *
 * The server's user: Deno names the uid only with `--allow-sys`, which this server never has,
 * so it is taken as the owner of `HOME` (else of the roots themselves).
 *
 * @module
 */
import { Refusal } from "./refusal.ts";
import type { Roots } from "./roots.ts";

/** How many times the path is walked again after the open. */
export const AFTER_WALKS = 3;

/**
 * How long a binding directory must have kept its modification time, beyond the file system's
 * own time grain, before a path is opened through it: a clock tick (≤ 10 ms) and the rounding
 * of a time to milliseconds.
 */
export const SETTLE_MS = 12;

/** How long an open waits for its directories to settle before it refuses. */
export const SETTLE_LIMIT_MS = 2_000;

/** One component of a walked path: what `lstat` found there. */
export interface Component {
  path: string;
  dev: number | null;
  ino: number | null;
  /** A directory's modification time (milliseconds), null for a file or where none is kept. */
  mtime: number | null;
}

/** What a walk found: each component from `/` to the last, and the last one's stat. */
export interface Walk {
  components: Component[];
  last: Deno.FileInfo;
}

/**
 * A binding directory changed too lately, or while the path was opened: `waitMs` from now it
 * may have settled (see step 3 of the module).
 */
export class Unsettled extends Error {
  constructor(readonly component: string, readonly waitMs: number, message: string) {
    super(message);
    this.name = "Unsettled";
  }
}

/** A path that changed while it was being checked: swapped, or not what it was. */
export class PathSwapped extends Error {
  constructor(readonly component: string, message: string) {
    super(message);
    this.name = "PathSwapped";
  }
}

/** Every prefix of an absolute, normalised POSIX path: `/a/b` → `/`, `/a`, `/a/b`. */
export function prefixes(real: string): string[] {
  const out = ["/"];
  let at = "";
  for (const part of real.split("/")) {
    if (part === "") continue;
    at += "/" + part;
    out.push(at);
  }
  return out;
}

/**
 * `lstat`s every component of `real` (absolute, resolved). Throws PathSwapped when one is a
 * symlink or a parent is not a directory, and Deno.errors.NotFound when one is gone; when
 * `strict` holds the owners this server trusts, throws a Refusal naming a component another
 * user could write or swap (`label` says which argument it came from).
 */
export function walk(real: string, strict: ReadonlySet<number> | null, label: string): Walk {
  const paths = prefixes(real);
  const components: Component[] = [];
  let last: Deno.FileInfo | null = null;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    const info = Deno.lstatSync(path);
    if (info.isSymlink) {
      throw new PathSwapped(path, `${path} became a symbolic link while it was being opened`);
    }
    if (i < paths.length - 1 && !info.isDirectory) {
      throw new PathSwapped(path, `${path} is no longer a directory`);
    }
    if (strict !== null) checkOwnership(path, info, strict, label);
    const mtime = info.isDirectory ? info.mtime?.getTime() ?? null : null;
    components.push({ path, dev: info.dev ?? null, ino: info.ino ?? null, mtime });
    last = info;
  }
  return { components, last: last! };
}

/** The first component of `now` that is not the one `was` found, or null when all are. */
export function differs(was: Walk, now: Walk): string | null {
  if (was.components.length !== now.components.length) return was.components.at(-1)!.path;
  for (let i = 0; i < was.components.length; i++) {
    const a = was.components[i];
    const b = now.components[i];
    if (a.path !== b.path || a.dev !== b.dev || a.ino !== b.ino) return a.path;
  }
  return null;
}

/**
 * How many of a walk's components, from `/`, are binding directories: each one that binds a
 * directory of the path — for a file, every component but the file and its directory (the
 * descriptor must be the very file walked, so its own entry needs no time); for a directory,
 * every one above it (it is listed by path).
 */
export function bindingCount(w: Walk): number {
  return Math.max(0, w.components.length - (w.last.isDirectory ? 1 : 2));
}

/**
 * The first binding directory whose modification time `now` does not share with `was`, or
 * null: an entry in it was made, renamed or removed between.
 */
export function changedBinding(was: Walk, now: Walk): string | null {
  for (let i = 0; i < bindingCount(was); i++) {
    if (was.components[i].mtime !== now.components[i].mtime) return was.components[i].path;
  }
  return null;
}

/**
 * Walks `real` again `AFTER_WALKS` times, throwing PathSwapped at the first component that is
 * not the one `was` found, and Unsettled at a binding directory whose entries changed since.
 */
export function walkAgain(real: string, was: Walk, label: string): void {
  for (let i = 0; i < AFTER_WALKS; i++) {
    let now: Walk;
    try {
      now = walk(real, null, label);
    } catch (e) {
      if (e instanceof PathSwapped) throw e;
      throw new PathSwapped(real, `${real} is no longer there`);
    }
    const at = differs(was, now);
    if (at !== null) throw new PathSwapped(at, `${at} was replaced while it was being opened`);
    const changed = changedBinding(was, now);
    if (changed !== null) {
      throw new Unsettled(changed, SETTLE_MS, `${changed} changed while the path was opened`);
    }
  }
}

/** When each binding directory was first seen as it is: path → identity, time and when. */
const sightings = new Map<
  string,
  { dev: number | null; ino: number | null; mtime: number; at: number }
>();

/** How many directories `sightings` remembers; the oldest is forgotten first. */
const SIGHTINGS_KEPT = 4_096;

/**
 * The time grain a modification time shows: whole seconds (or two, as FAT keeps) when it
 * falls on one, else milliseconds. A file system that keeps milliseconds lands on a whole
 * second once in a thousand times, and then only waits longer.
 */
function grainOf(mtime: number): number {
  return mtime % 2000 === 0 ? 2000 : mtime % 1000 === 0 ? 1000 : 0;
}

/**
 * Step 3 of the module: throws Unsettled unless every binding directory of `w` was seen as it
 * is now at least its settling time before `startedAt` (a `performance.now()` taken before the
 * walk), remembering the ones seen for the first time.
 */
export function settle(w: Walk, startedAt: number): void {
  const now = performance.now();
  let wait = 0;
  let late: string | null = null;
  for (let i = 0; i < bindingCount(w); i++) {
    const c = w.components[i];
    if (c.mtime === null) continue; // no time kept: the walks alone stand
    const need = SETTLE_MS + grainOf(c.mtime);
    const seen = sightings.get(c.path);
    let since: number;
    if (seen && seen.dev === c.dev && seen.ino === c.ino && seen.mtime === c.mtime) {
      since = seen.at;
    } else {
      since = now;
      sightings.delete(c.path);
      sightings.set(c.path, { dev: c.dev, ino: c.ino, mtime: c.mtime, at: now });
      if (sightings.size > SIGHTINGS_KEPT) sightings.delete(sightings.keys().next().value!);
    }
    const left = since + need - startedAt;
    if (left > wait) {
      wait = left;
      late = c.path;
    }
  }
  if (late !== null) {
    throw new Unsettled(late, Math.ceil(wait), `${late} changed within the last ${SETTLE_MS} ms`);
  }
}

/**
 * Refuses a component another user could write, or owns: a directory writable by group or
 * others (unless sticky: then only an entry's owner may rename it, and the next component's
 * owner is checked), a file writable by group or others, anything owned by an untrusted user.
 */
function checkOwnership(
  path: string,
  info: Deno.FileInfo,
  trusted: ReadonlySet<number>,
  label: string,
): void {
  const mode = info.mode;
  const uid = info.uid;
  if (mode === null || uid === null) return; // not a POSIX file system: nothing to check
  const what = info.isDirectory ? "directory" : "file";
  let problem: string | null = null;
  if (!trusted.has(uid)) {
    problem = `is owned by user ${uid}, not by this server's user (${
      [...trusted].join(" or ")
    }), so that user could swap it while it is read`;
  } else if ((mode & 0o022) !== 0 && !(info.isDirectory && (mode & 0o1000) !== 0)) {
    const who = (mode & 0o022) === 0o022
      ? "its group and other users"
      : (mode & 0o020) !== 0
      ? "its group"
      : "other users";
    problem = `is writable by ${who} (mode ${
      (mode & 0o7777).toString(8).padStart(4, "0")
    }), so another user could swap what it holds while it is read`;
  }
  if (problem === null) return;
  throw new Refusal(
    `${label} is reached through the ${what} ${path}, which ${problem}. Under --root this ` +
      `server reads only through directories and files no other user can write: run ` +
      `\`chmod go-w ${path}\`${
        trusted.has(uid) ? "" : ` (or chown it)`
      }, or copy the report somewhere only you can write, and load it again`,
  );
}

/** The owners this server trusts under `roots`: root, and its own user (see the module). */
export function trustedOwners(roots: Roots): ReadonlySet<number> {
  const cached = trustCache.get(roots);
  if (cached) return cached;
  const owners = new Set<number>([0]);
  let home: number | null = null;
  try {
    const h = Deno.env.get("HOME");
    if (h) {
      const info = Deno.statSync(h);
      if (info.isDirectory) home = info.uid;
    }
  } catch {
    // no HOME to go by
  }
  if (home !== null) owners.add(home);
  else {
    for (const d of roots.dirs) {
      const uid = Deno.statSync(d).uid;
      if (uid !== null) owners.add(uid);
    }
  }
  trustCache.set(roots, owners);
  return owners;
}

const trustCache = new WeakMap<Roots, ReadonlySet<number>>();
