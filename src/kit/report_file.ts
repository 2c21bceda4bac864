/**
 * Opening a report file the one safe way: look before opening (a FIFO, device or directory is
 * refused by name, before anything opens it — opening a FIFO waits for a writer forever), open
 * it once, then check what was opened — a regular file, and inside the roots by what the open
 * descriptor *is*: the path is resolved again and the file found there must be the very file
 * opened (device and inode), so a symlink swapped in between the check and the open is
 * refused, never read. Reads are bounded while they happen (`readCapped`), and a later read of
 * the same file (`reopen`) is refused unless the descriptor opened is the very file identified
 * at load (device, inode, size and times).
 *
 * Why not the descriptor's own name under `/proc/self/fd`: Deno grants no path under
 * `/proc/self` or `/dev/fd` without `--allow-all`, which this server never has.
 *
 * Residual risk: a directory above the file swapped for a symlink, and back, in the instant
 * between resolving the path again and stating what it names (both by path) is not seen. A
 * FIFO swapped in between the look and the open leaves one blocked open behind (given up after
 * OPEN_WAIT_MS, and closed if it ever completes).
 *
 * @module
 */
import { Refusal } from "./refusal.ts";
import type { Progress } from "./progress.ts";
import type { Roots } from "./roots.ts";
import { changeSince, type FileIdentity, fromInfo, sameFile } from "./file_identity.ts";

/** How long an open may take before the file is taken for one that waits for a writer. */
export const OPEN_WAIT_MS = 5_000;

/** A report file, open for reading, checked to be a regular file inside the roots. */
export interface OpenedFile {
  file: Deno.FsFile;
  /** From the open descriptor: the bytes about to be read are this file's. */
  identity: FileIdentity;
}

/** What opening a report file found. */
export type OpenOutcome =
  | { kind: "opened"; opened: OpenedFile }
  | { kind: "missing" }
  /** Not a file this server reads (a FIFO, a device, a directory), or unreadable: why. */
  | { kind: "unusable"; identity: FileIdentity | null; problem: string };

/** What kind of thing a non-regular file is, in words. */
export function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a regular file";
}

/**
 * Opens the report file at `path` (`name` in messages, the file's own name) and
 * checks what was opened. Throws a Refusal when the path, or the file actually opened, lies
 * outside `roots` (`label` says which argument it came from).
 */
export async function openReportFile(
  path: string,
  name: string,
  roots: Roots,
  label: string,
): Promise<OpenOutcome> {
  await roots.confine(path, label);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "missing" };
    return { kind: "unusable", identity: null, problem: `${name} cannot be read: ${messageOf(e)}` };
  }
  if (!info.isFile) {
    return {
      kind: "unusable",
      identity: fromInfo(path, info),
      problem: `${name} is not a regular file (it is ${kindOf(info)}); nothing was read from it`,
    };
  }
  const opened = await openWithin(path, OPEN_WAIT_MS);
  if ("problem" in opened) {
    return {
      kind: "unusable",
      identity: fromInfo(path, info),
      problem: `${name} ${opened.problem}`,
    };
  }
  const { file } = opened;
  try {
    const now = await file.stat();
    const identity = fromInfo(path, now);
    if (!now.isFile) {
      file.close();
      return {
        kind: "unusable",
        identity,
        problem: `${name} is not a regular file (it is ${kindOf(now)}); nothing was read from it`,
      };
    }
    await confineOpened(identity, roots, label);
    return { kind: "opened", opened: { file, identity } };
  } catch (e) {
    file.close();
    throw e;
  }
}

/**
 * Opens `path` for reading, or says why not within `ms`: an open that waits (a FIFO with no
 * writer) is given up, and the descriptor closed if it ever arrives.
 */
export async function openWithin(
  path: string,
  ms: number,
): Promise<{ file: Deno.FsFile } | { problem: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const opening = Deno.open(path, { read: true });
  opening.then((f) => late && f.close(), () => {});
  try {
    // A regular file opens at once. The timer — whose first use costs a one-shot call the
    // loading of Deno's timer module — is armed only when the open is still waiting after a
    // few stats of the same path, one after another, have answered.
    let settled = false;
    opening.then(() => (settled = true), () => (settled = true));
    for (let i = 0; i < 4 && !settled; i++) await Deno.lstat(path).catch(() => null);
    if (settled) return { file: await opening };
    const file = await Promise.race([
      opening,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms))),
    ]);
    if (file === null) {
      late = true;
      return {
        problem: `did not open within ${ms / 1000} s: it is not a regular file (a FIFO or ` +
          "device waiting for a writer); nothing was read from it",
      };
    }
    return { file };
  } catch (e) {
    return { problem: `cannot be opened: ${messageOf(e)}` };
  } finally {
    // Reading the global itself loads the timer module: only when a timer was armed.
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * Refuses a descriptor whose file lies outside the roots: its path resolved again must lie
 * inside one and hold the very file opened (same device and inode).
 */
async function confineOpened(identity: FileIdentity, roots: Roots, label: string): Promise<void> {
  if (!roots.confined) return;
  let real: string;
  let there: FileIdentity;
  try {
    real = await Deno.realPath(identity.path);
    there = fromInfo(real, await Deno.stat(real));
  } catch {
    throw outside(roots, label, identity.path, "a file that is no longer there");
  }
  if (!roots.contains(real)) throw outside(roots, label, identity.path, real);
  if (!sameFile(there, identity)) throw outside(roots, label, identity.path, "another file");
}

function outside(roots: Roots, label: string, path: string, opened: string): Refusal {
  return new Refusal(
    `${label} is outside the directories this server may read (--root ${
      roots.dirs.join(", ")
    }): ${path} opened ${opened} (it was swapped while being opened); nothing was read from it`,
  );
}

/** A file larger than a reader takes. */
export class FileTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileTooLarge";
  }
}

/** The most `readCapped` asks for in one read, so its progress rises as a large file comes. */
const READ_STEP = 16 << 20;

/**
 * Every byte of `file`, refusing (FileTooLarge) once more than `cap` bytes have come — while
 * reading, so a file that grows, or never ends, stops at the cap. `sizeHint` sizes the buffer;
 * `progress` hears the bytes read so far (`bytes of <name> read`) of it.
 */
export async function readCapped(
  file: Deno.FsFile,
  cap: number,
  name: string,
  sizeHint = 0,
  progress?: Progress,
): Promise<Uint8Array> {
  const into = new CappedBytes(cap, name, sizeHint);
  while (true) {
    const n = await file.read(into.room());
    if (n === null) return into.bytes();
    into.took(n);
    progress?.report(into.used, sizeHint > 0 ? sizeHint : null, `bytes of ${name} read`);
  }
}

/**
 * `readCapped` without awaiting: for a file read on first need by code that cannot wait (a
 * report parsed when a tool first asks for it), where the bytes are few enough that a read
 * without progress or yields is brief.
 */
export function readCappedSync(
  file: Deno.FsFile,
  cap: number,
  name: string,
  sizeHint = 0,
): Uint8Array {
  const into = new CappedBytes(cap, name, sizeHint);
  while (true) {
    const n = file.readSync(into.room());
    if (n === null) return into.bytes();
    into.took(n);
  }
}

/** The growing buffer of a capped read, refusing once more than the cap has come. */
class CappedBytes {
  #buf: Uint8Array;
  used = 0;

  constructor(readonly cap: number, readonly name: string, sizeHint: number) {
    if (sizeHint > cap) throw tooLarge(name, sizeHint, cap);
    // One byte past the size: the read that finds the end then has room, and the buffer is
    // not doubled (and copied) only to learn that nothing more is coming.
    this.#buf = new Uint8Array(Math.min(cap + 1, Math.max(sizeHint + 1, 64 * 1024)));
  }

  /** Where the next read goes (at most READ_STEP bytes), the buffer grown if it is full. */
  room(): Uint8Array {
    if (this.used === this.#buf.length) {
      if (this.used > this.cap) throw tooLarge(this.name, null, this.cap);
      const bigger = new Uint8Array(Math.min(this.cap + 1, this.#buf.length * 2));
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    return this.#buf.subarray(this.used, Math.min(this.#buf.length, this.used + READ_STEP));
  }

  took(n: number): void {
    this.used += n;
  }

  /** The bytes read, once the file has ended. */
  bytes(): Uint8Array {
    if (this.used > this.cap) throw tooLarge(this.name, null, this.cap);
    return this.#buf.subarray(0, this.used);
  }
}

function tooLarge(name: string, size: number | null, cap: number): FileTooLarge {
  return new FileTooLarge(
    `${name} is ${size === null ? "more than" : `${mib(size)} (${size} bytes),`} ${
      size === null ? mib(cap) : `more than the ${mib(cap)}`
    } this server reads of it; nothing of it was used`,
  );
}

/** Bytes in MiB, as a refusal says them. */
export function mib(bytes: number): string {
  const m = bytes / (1 << 20);
  return `${m >= 10 ? Math.round(m) : Math.round(m * 10) / 10} MiB`;
}

/**
 * Opens the file `identity` was taken from again, for a later read: refused (`changed`, with
 * why) unless what opens is that very file, unchanged — a regular file of the same device,
 * inode, size and times. A path that now names a FIFO or device is refused before opening.
 */
export async function reopen(
  identity: FileIdentity,
): Promise<{ file: Deno.FsFile } | { changed: string }> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(identity.path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { changed: `${identity.path} no longer exists` };
    return { changed: `${identity.path} cannot be read: ${messageOf(e)}` };
  }
  if (!info.isFile) {
    return { changed: `${identity.path} is no longer a regular file (it is ${kindOf(info)})` };
  }
  const opened = await openWithin(identity.path, OPEN_WAIT_MS);
  if ("problem" in opened) return { changed: `${identity.path} ${opened.problem}` };
  const change = changeSince(identity, fromInfo(identity.path, await opened.file.stat()));
  if (change !== null) {
    opened.file.close();
    return { changed: change };
  }
  return opened;
}

function messageOf(e: unknown): string {
  return e instanceof Error && e.message ? e.message : String(e);
}
