/**
 * A file's identity at the moment it was read — path, size, modification and change times,
 * inode and device — so a handle can tell that a file was rewritten under it (even in place,
 * at the same size, with its modification time put back: the change time moves regardless)
 * and refuse rather than answer from a mix of old and new.
 *
 * Deno reports the change time to the second only, so a same-size rewrite within the second
 * of the file's last change, with its modification time restored, is not seen.
 *
 * @module
 */

/** What a file was when it was read. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number | null;
  /** The inode's change time (any write or metadata change moves it; no call can set it). */
  ctimeMs: number | null;
  ino: number | null;
  dev: number | null;
}

/** Stats a file and records its identity. */
export async function identify(path: string): Promise<FileIdentity> {
  const info = await Deno.stat(path);
  return fromInfo(path, info);
}

/** The identity of a file from a stat already made. */
export function fromInfo(path: string, info: Deno.FileInfo): FileIdentity {
  return {
    path,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    ctimeMs: info.ctime?.getTime() ?? null,
    ino: info.ino ?? null,
    dev: info.dev ?? null,
  };
}

/** Whether two stats are of one file (same device and inode, where the platform says them). */
export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/**
 * Why the file no longer matches `was`, or `null` when it still does.
 *
 * @example
 * ```ts
 * import { changeSince } from "./file_identity.ts";
 * const was = { path: "/r/a.csv", size: 10, mtimeMs: 5, ctimeMs: 5, ino: 1, dev: 2 };
 * if (changeSince(was, { ...was }) !== null) throw new Error();
 * if (changeSince(was, { ...was, size: 11 }) === null) throw new Error();
 * if (changeSince(was, { ...was, ctimeMs: 6 }) === null) throw new Error();
 * ```
 */
export function changeSince(was: FileIdentity, now: FileIdentity | null): string | null {
  if (now === null) return `${was.path} no longer exists`;
  if (!sameFile(was, now)) {
    return `${was.path} was replaced by another file after the report was loaded`;
  }
  if (now.size !== was.size || now.mtimeMs !== was.mtimeMs || now.ctimeMs !== was.ctimeMs) {
    return `${was.path} was rewritten after the report was loaded`;
  }
  return null;
}

/** The identity of `path` now, or `null` when it is gone. */
export async function identifyIfPresent(path: string): Promise<FileIdentity | null> {
  try {
    return await identify(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** One string that differs whenever the identity does (a cache key). */
export function identityKey(id: FileIdentity): string {
  return [id.path, id.size, id.mtimeMs, id.ctimeMs, id.ino, id.dev].join("\u0000");
}
