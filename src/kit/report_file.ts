/**
 * Opening a report file the one safe way: look before opening (a FIFO, device or directory is
 * refused by name, before anything opens it — opening a FIFO waits for a writer forever), open
 * it once, then check what was opened — a regular file and, under roots, the very file whose
 * every path component was walked by `lstat` before the open and is walked again after it
 * (`confine.ts` says how, why, and what risk remains). Reads are bounded while they happen
 * (`readCapped`), and a later read of the same file (`reopen`) is refused unless the descriptor
 * opened is the very file identified at load (device, inode, size and times).
 *
 * `openReportFile` is the one door for every report file; its `OpenedFile` (the descriptor and
 * its identity) is what readers read from — never the path again.
 *
 * A FIFO swapped in between the look and the open leaves one blocked open behind (given up
 * after OPEN_WAIT_MS, and closed if it ever completes).
 *
 @module
 */
import { Refusal } from "./refusal.ts";
import type { Progress } from "./progress.ts";
import type { Roots } from "./roots.ts";
import { changeSince, type FileIdentity, fromInfo } from "./file_identity.ts";
import {
  PathSwapped,
  settle,
  SETTLE_LIMIT_MS,
  trustedOwners,
  Unsettled,
  type Walk,
  walk,
  walkAgain,
} from "./confine.ts";

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
  if (roots.confined) return await openConfined(path, name, roots, label);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "missing" };
    return { kind: "unusable", identity: null, problem: `${name} cannot be read: ${messageOf(e)}` };
  }
  if (!info.isFile) return notRegular(path, name, info);
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
    if (!now.isFile) {
      file.close();
      return notRegular(path, name, now);
    }
    return { kind: "opened", opened: { file, identity: fromInfo(path, now) } };
  } catch (e) {
    file.close();
    throw e;
  }
}

function notRegular(path: string, name: string, info: Deno.FileInfo): OpenOutcome {
  return {
    kind: "unusable",
    identity: fromInfo(path, info),
    problem: `${name} is not a regular file (it is ${kindOf(info)}); nothing was read from it`,
  };
}

/**
 * `openReportFile` under roots (see `confine.ts`): the path resolved and inside a root, every
 * component walked by `lstat` (and refused when another user could write or swap it), its
 * directories settled, the resolved path opened, the descriptor required to be the file
 * walked, and the walk repeated. The identity keeps `path` as given, so answers name the file
 * as the caller did.
 */
function openConfined(
  path: string,
  name: string,
  roots: Roots,
  label: string,
): Promise<OpenOutcome> {
  return untilSettled(roots, label, path, () => openConfinedOnce(path, name, roots, label));
}

/**
 * Runs `attempt` until no directory on its path is unsettled, waiting as long as each
 * Unsettled says, and refuses once that would pass SETTLE_LIMIT_MS.
 */
async function untilSettled<T>(
  roots: Roots,
  label: string,
  path: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const until = performance.now() + SETTLE_LIMIT_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof Unsettled)) throw e;
      if (performance.now() + e.waitMs > until) throw unsettled(roots, label, path, e);
      await new Promise((r) => setTimeout(r, e.waitMs));
    }
  }
}

async function openConfinedOnce(
  path: string,
  name: string,
  roots: Roots,
  label: string,
): Promise<OpenOutcome> {
  let real: string;
  try {
    real = await Deno.realPath(path);
  } catch (e) {
    await roots.confine(path, label);
    if (e instanceof Deno.errors.NotFound) return { kind: "missing" };
    return { kind: "unusable", identity: null, problem: `${name} cannot be read: ${messageOf(e)}` };
  }
  if (!roots.contains(real)) throw outside(roots, label, path, real);
  let before: Walk;
  const startedAt = performance.now();
  try {
    before = walk(real, trustedOwners(roots), label);
  } catch (e) {
    if (e instanceof PathSwapped) throw swapped(roots, label, path, e);
    if (e instanceof Deno.errors.NotFound) return { kind: "missing" };
    if (e instanceof Refusal) throw e;
    return { kind: "unusable", identity: null, problem: `${name} cannot be read: ${messageOf(e)}` };
  }
  settle(before, startedAt);
  if (!before.last.isFile) return notRegular(path, name, before.last);
  const opened = await openWithin(real, OPEN_WAIT_MS);
  if ("problem" in opened) {
    return {
      kind: "unusable",
      identity: fromInfo(path, before.last),
      problem: `${name} ${opened.problem}`,
    };
  }
  const { file } = opened;
  try {
    const now = await file.stat();
    const identity = fromInfo(path, now);
    const walked = before.components.at(-1)!;
    if (identity.dev !== walked.dev || identity.ino !== walked.ino) {
      throw swapped(roots, label, path, new PathSwapped(real, `${real} opened another file`));
    }
    try {
      walkAgain(real, before, label);
    } catch (e) {
      throw e instanceof PathSwapped ? swapped(roots, label, path, e) : e;
    }
    if (!now.isFile) {
      file.close();
      return notRegular(path, name, now);
    }
    return { kind: "opened", opened: { file, identity } };
  } catch (e) {
    file.close();
    throw e;
  }
}

/**
 * Checks a report directory under roots before its entries are listed: resolved inside a
 * root, every component walked and its directories settled (see `confine.ts`). Returns its
 * resolved path and a `recheck` that, called once the listing is done, refuses if any
 * component has changed since, or a directory above it has had an entry changed.
 */
export function confineDirectory(
  path: string,
  roots: Roots,
  label: string,
): Promise<{ real: string; recheck: () => void }> {
  return untilSettled(roots, label, path, () => confineDirectoryOnce(path, roots, label));
}

async function confineDirectoryOnce(
  path: string,
  roots: Roots,
  label: string,
): Promise<{ real: string; recheck: () => void }> {
  const real = await roots.confine(path, label);
  if (!roots.confined) return { real, recheck: () => {} };
  let before: Walk;
  const startedAt = performance.now();
  try {
    before = walk(real, trustedOwners(roots), label);
  } catch (e) {
    if (e instanceof PathSwapped) throw swapped(roots, label, path, e);
    if (e instanceof Refusal) throw e;
    // Gone, or not a directory: the caller says which.
    return { real, recheck: () => {} };
  }
  settle(before, startedAt);
  return {
    real,
    recheck: () => {
      try {
        walkAgain(real, before, label);
      } catch (e) {
        if (e instanceof PathSwapped || e instanceof Unsettled) {
          throw swapped(roots, label, path, e);
        }
        throw e;
      }
    },
  };
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

function outside(roots: Roots, label: string, path: string, real: string): Refusal {
  return new Refusal(
    `${label} is outside the directories this server may read (--root ${
      roots.dirs.join(", ")
    }): ${path}${real !== path ? ` (resolves to ${real})` : ""}; nothing was read from it`,
  );
}

function swapped(
  roots: Roots,
  label: string,
  path: string,
  e: PathSwapped | Unsettled,
): Refusal {
  return new Refusal(
    `${label} changed while it was being opened under --root ${
      roots.dirs.join(", ")
    }: ${e.message} (${path}); nothing was read from it. Load the report again once nothing is moving it`,
  );
}

function unsettled(roots: Roots, label: string, path: string, e: Unsettled): Refusal {
  return new Refusal(
    `${label} kept changing while it was being opened under --root ${roots.dirs.join(", ")}: ` +
      `${e.component} had an entry made, renamed or removed within ${SETTLE_LIMIT_MS / 1000} s ` +
      `of every look (${path}), and this server reads through a directory only once it has ` +
      `held still; nothing was read from it. Load the report again once nothing is moving it`,
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
