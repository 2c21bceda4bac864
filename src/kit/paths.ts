/**
 * Turns a path argument into an absolute, normalised one: `~` expanded, relative paths
 * taken from the working directory, `.` and `..` folded.
 *
 * @module
 */

/**
 * Folds `.` and `..` and repeated slashes of an absolute POSIX or Windows path. In a POSIX
 * path a backslash is an ordinary character of a name (`back\slash` is one directory); only
 * a Windows drive path takes it as a separator.
 *
 * @example
 * ```ts
 * import { normalise } from "./paths.ts";
 * if (normalise("/a/./b/../c//d/") !== "/a/c/d") throw new Error();
 * if (normalise("/../x") !== "/x") throw new Error();
 * if (normalise("/r/back\\slash") !== "/r/back\\slash") throw new Error();
 * if (normalise("C:\\r\\.\\x") !== "C:\\r\\x") throw new Error();
 * ```
 */
export function normalise(path: string): string {
  const windows = /^[A-Za-z]:[\\/]/.test(path);
  const sep = windows ? "\\" : "/";
  const head = windows ? path.slice(0, 2) : "";
  const parts: string[] = [];
  for (const part of path.slice(head.length).split(windows ? /[\\/]+/ : /\/+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return head + sep + parts.join(sep);
}

/** Whether a path is absolute on this platform or as a Windows drive path. */
function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * Expands a leading `~` with `home`, resolves a relative path against `cwd`, and
 * normalises. `home` is only asked for when the path starts with `~`.
 */
export function absolutePath(
  raw: string,
  cwd: () => string,
  home: () => string | undefined,
): string {
  let path = raw;
  if (path === "~" || path.startsWith("~/")) {
    const h = home();
    if (!h) throw new Error("cannot expand '~': HOME is not set");
    path = h + path.slice(1);
  }
  if (!isAbsolute(path)) path = cwd() + "/" + path;
  return normalise(path);
}

/** `absolutePath` with this process's working directory and HOME. */
export function resolveArgumentPath(raw: string): string {
  return absolutePath(raw, () => Deno.cwd(), () => Deno.env.get("HOME"));
}
