/**
 * Confinement by what was opened. Deno has no `openat` or `O_NOFOLLOW` and grants no
 * `/proc/self/fd` to this server, so a file cannot be opened relative to a checked directory,
 * nor its descriptor named. What it can do, and what this module does under `--root`:
 *
 * 1. Resolve the path (`realPath`) and require it inside a root.
 * 2. Walk it: `lstat` every component of the resolved path, from `/` down, recording each
 *    one's device and inode. A component that is a symlink (a swap since the resolve), or a
 *    parent that is not a directory, is refused. So is one that another user could use to
 *    race the server — the rule OpenSSH's StrictModes follows: a component owned by anyone but
 *    this server's user or root, a directory writable by group or others without the sticky
 *    bit, a file writable by group or others.
 * 3. Open the resolved path and `fstat` the descriptor: it must be the last component walked.
 * 4. Walk again, `AFTER_WALKS` times: every component must be the one first walked.
 *
 * Residual risk: a swapper that exchanges a directory of the path with a symlink and back so
 * that every walk's `lstat`s straddle its swaps (the parent seen before, the child after)
 * passes; a prototype under `renameat2(RENAME_EXCHANGE)` saw that once in ~618,000 attempts
 * with three walks after. Only someone who can rename inside a component can swap it, and
 * step 2 refuses every component another user could rename in, so what remains is a race by
 * this server's own user (or root), who can read those files anyway.
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

/** One component of a walked path: what `lstat` found there. */
export interface Component {
  path: string;
  dev: number | null;
  ino: number | null;
}

/** What a walk found: each component from `/` to the last, and the last one's stat. */
export interface Walk {
  components: Component[];
  last: Deno.FileInfo;
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
    components.push({ path, dev: info.dev ?? null, ino: info.ino ?? null });
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
 * Walks `real` again `AFTER_WALKS` times, throwing PathSwapped at the first component that is
 * not the one `was` found.
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
