/**
 * A file's identity at the moment it was read — path, size, modification time and inode —
 * so a handle can tell that a file was rewritten under it and refuse rather than answer from
 * a mix of old and new.
 *
 * @module
 */

/** What a file was when it was read. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number | null;
  ino: number | null;
}

/** Stats a file and records its identity. */
export async function identify(path: string): Promise<FileIdentity> {
  const info = await Deno.stat(path);
  return fromInfo(path, info);
}

/** The identity of a file from a stat already made. */
export function fromInfo(path: string, info: Deno.FileInfo): FileIdentity {
  return { path, size: info.size, mtimeMs: info.mtime?.getTime() ?? null, ino: info.ino ?? null };
}

/**
 * Why the file no longer matches `was`, or `null` when it still does.
 *
 * @example
 * ```ts
 * import { changeSince } from "./file_identity.ts";
 * const was = { path: "/r/a.csv", size: 10, mtimeMs: 5, ino: 1 };
 * if (changeSince(was, { ...was }) !== null) throw new Error();
 * if (changeSince(was, { ...was, size: 11 }) === null) throw new Error();
 * ```
 */
export function changeSince(was: FileIdentity, now: FileIdentity | null): string | null {
  if (now === null) return `${was.path} no longer exists`;
  if (now.size !== was.size || now.mtimeMs !== was.mtimeMs || now.ino !== was.ino) {
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
