/**
 * Where reports may be read from. With no `--root` any directory the user can read is
 * allowed; with roots, a path must resolve (symlinks followed, `..` normalised) inside one
 * of them, and so must every file read from the report directory.
 *
 * @module
 */
import { Refusal } from "./refusal.ts";

/** The directories `load_report` may read from; none means any. */
export class Roots {
  private constructor(readonly dirs: readonly string[]) {}

  /** No confinement. */
  static any(): Roots {
    return new Roots([]);
  }

  /**
   * Resolves each `--root` to its real path. Throws an Error naming the flag when one is not
   * an existing directory, so the server refuses to start rather than confining to nothing.
   */
  static async of(raw: readonly string[]): Promise<Roots> {
    const dirs: string[] = [];
    for (const r of raw) {
      let real: string;
      try {
        real = await Deno.realPath(r);
      } catch {
        throw new Error(`--root ${r}: no such directory`);
      }
      if (!(await Deno.stat(real)).isDirectory) throw new Error(`--root ${r}: not a directory`);
      dirs.push(real);
    }
    return new Roots(dirs);
  }

  /** Whether any root was given. */
  get confined(): boolean {
    return this.dirs.length > 0;
  }

  /** Whether an absolute, normalised path lies inside a root (or no root was given). */
  contains(path: string): boolean {
    if (!this.confined) return true;
    return this.dirs.some((d) => path === d || path.startsWith(d.endsWith("/") ? d : d + "/"));
  }

  /**
   * Returns the real path of `path` when it is inside a root, else throws a Refusal that
   * says which `label` fell outside. A path that does not exist is returned normalised.
   */
  async confine(path: string, label: string): Promise<string> {
    let real: string;
    try {
      real = await Deno.realPath(path);
    } catch {
      real = path;
    }
    if (!this.contains(real)) {
      throw new Refusal(
        `${label} is outside the directories this server may read (--root ${
          this.dirs.join(", ")
        }): ${path}` +
          (real !== path ? ` (resolves to ${real})` : ""),
      );
    }
    return real;
  }
}
