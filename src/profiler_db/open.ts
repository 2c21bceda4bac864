/**
 * Opening a profiler database read-only, as the file load_report checked and nothing else.
 *
 * SQLite opens files by path, never by a descriptor, and what it opened cannot be checked:
 * Deno grants no descriptor path (`/proc/self/fd/<n>`) and no `file:` URI (SQLite's
 * `immutable=1`, which would keep it from writing `-shm` beside a WAL database) without
 * `--allow-all`. So SQLite never opens the report: the database is read whole through the
 * descriptor that was checked (its identity the same before and after the read) and opened in
 * memory (`deserialize`), read-only, with its temporary tables and sorts in memory
 * (`temp_store = MEMORY`). Nothing is created or written anywhere: no `-wal`, `-shm` or
 * journal beside the report, no spill under the temporary directory.
 *
 * SQLite takes the copy in one synchronous call. A large database opened asynchronously is
 * therefore opened on a thread of its own (`_db_thread.ts`, from `THREAD_FROM_BYTES`), whose
 * rows this thread reads as it reads its own, so the client's pings are answered meanwhile.
 *
 * What the copy costs: the file's size in memory while the connection is open (the pool in
 * `session/open_databases.ts` closes idle ones past a bound), twice that for the instant of
 * opening; see bench/RESULTS.md for the figures.
 *
 * The main file alone is not always the database. A WAL database whose `-wal` still holds
 * frames, or a rollback database whose `-journal` holds a transaction its writer did not
 * finish, is refused saying how to fold them in, never answered from the main file alone.
 * Those files are looked at with `lstat` only: never followed, opened or read.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { Database } from "./database.ts";
import { openOnThread } from "./_db_thread.ts";
import { changeSince, type FileIdentity, fromInfo } from "../kit/file_identity.ts";
import { kindOf, mib, OPEN_WAIT_MS, openWithin, reopen } from "../kit/report_file.ts";

/** The database's file name inside a profiler report directory. */
export const PROFILER_DB_NAME = "db.sqlite";

/** The largest database read into memory. */
export const MAX_SNAPSHOT_BYTES = 1 << 30;

/** A database this reader declines to open, with the reason in words. */
export class UnreadableDatabase extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreadableDatabase";
  }
}

/**
 * The smallest database an asynchronous open puts on a thread of its own (`_db_thread.ts`):
 * SQLite takes the copy in one synchronous call of about a millisecond a MiB (up to three on
 * a loaded machine), so below this it holds the event loop about as long as a thread takes to
 * start (10–15 ms).
 */
export const THREAD_FROM_BYTES = 4 << 20;

/** What every copy runs once open: sorts and temporary tables in memory, and no writes. */
const PRAGMAS = ["PRAGMA temp_store = MEMORY", "PRAGMA query_only = 1"];

/** The 16 bytes every SQLite 3 database file starts with. */
const SQLITE_MAGIC = "SQLite format 3\u0000";

/** The most one read asks for while copying a database, so the event loop gets in between. */
const READ_CHUNK = 8 << 20;

/**
 * Opens the database at `path` for reading only (`openReadOnlyFrom`); with `expected`, only
 * when the file opened is still that one, unchanged. Throws `UnreadableDatabase` otherwise. A
 * path naming a FIFO or device is refused before it is opened.
 */
export function openReadOnly(path: string, expected?: FileIdentity): DatabaseSync {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (e) {
    throw new UnreadableDatabase(`${PROFILER_DB_NAME} cannot be opened: ${(e as Error).message}`);
  }
  if (!info.isFile) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a regular file (it is ${kindOf(info)})`,
    );
  }
  using file = Deno.openSync(path, { read: true });
  const identity = fromInfo(path, file.statSync());
  const change = expected === undefined ? null : changeSince(expected, identity);
  if (change !== null) throw new UnreadableDatabase(change);
  return openReadOnlyFrom(file, identity);
}

/**
 * The copy a probe last made, kept for the first open of that very file, unchanged: a load
 * copies a database into memory once, not once to probe it and again to read it (issue 30:
 * each copy of a 625 MiB database held the event loop 0.6 s — SQLite takes a copy in one
 * synchronous call — and the first l1_peak call after a load waited for the second). One at
 * most: keeping another, or dropping it, closes it.
 */
let kept: { identity: FileIdentity; db: Database } | null = null;

/** Keeps `db`, just read in from the file `identity`, for its first open (`kept`). */
export function keepForOpen(identity: FileIdentity, db: Database): void {
  dropKept();
  kept = { identity, db };
}

/** Closes the kept copy — only when it is of the file `identity`, with one. */
export function dropKept(identity?: FileIdentity): void {
  if (kept === null || (identity !== undefined && changeSince(kept.identity, identity) !== null)) {
    return;
  }
  kept.db.close();
  kept = null;
}

/** The kept copy when it is of the file `identity` as it is now, handed over; else null. */
function takeKept(identity: FileIdentity): Database | null {
  if (kept === null || changeSince(kept.identity, identity) !== null) return null;
  const { db } = kept;
  kept = null;
  return db;
}

/**
 * `openReadOnly` without blocking the event loop: opened asynchronously (an open that waits,
 * as on a FIFO swapped in, is given up) and read in slices, with the identity of the file
 * opened; with `expected`, refused unless it is still that file, unchanged. A copy a probe
 * kept of that very file, unchanged, is taken instead of reading it again (`kept`). A database
 * of `threadFrom` bytes or more is opened on a thread of its own (`openReadOnlyFromAsync`).
 */
export async function openReadOnlyChecked(
  path: string,
  expected?: FileIdentity,
  signal?: AbortSignal,
  threadFrom: number = THREAD_FROM_BYTES,
): Promise<{ db: Database; identity: FileIdentity }> {
  let file: Deno.FsFile;
  if (expected !== undefined) {
    const opened = await reopen({ ...expected, path });
    if ("changed" in opened) throw new UnreadableDatabase(opened.changed);
    file = opened.file;
  } else {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (e) {
      throw new UnreadableDatabase(
        `${PROFILER_DB_NAME} cannot be opened: ${(e as Error).message}`,
      );
    }
    if (!info.isFile) {
      throw new UnreadableDatabase(
        `${PROFILER_DB_NAME} is not a regular file (it is ${kindOf(info)})`,
      );
    }
    const opened = await openWithin(path, OPEN_WAIT_MS);
    if ("problem" in opened) throw new UnreadableDatabase(`${PROFILER_DB_NAME} ${opened.problem}`);
    file = opened.file;
  }
  using _ = file;
  const identity = fromInfo(path, await file.stat());
  const copy = expected === undefined ? null : takeKept(identity);
  if (copy !== null) return { db: copy, identity };
  return { db: await openReadOnlyFromAsync(file, identity, signal, threadFrom), identity };
}

/**
 * Opens the SQLite file open in `file` (`identity`, from its descriptor) for reading only, as
 * its bytes read through `file` into memory. Throws `UnreadableDatabase` for a file that is
 * not SQLite, is too large, changed while read, or is not whole without its `-wal` or
 * `-journal`.
 */
export function openReadOnlyFrom(file: Deno.FsFile, identity: FileIdentity): DatabaseSync {
  checkSize(identity);
  const image = new Uint8Array(identity.size);
  file.seekSync(0, Deno.SeekMode.Start);
  let got = 0;
  while (got < image.length) {
    const n = file.readSync(image.subarray(got, got + READ_CHUNK));
    if (n === null || n === 0) break;
    got += n;
  }
  checkImage(image, got, identity, fromInfo(identity.path, file.statSync()));
  return openImage(image);
}

/**
 * `openReadOnlyFrom`, reading the file in slices between which the event loop runs; once
 * `signal` aborts, the read stops at the next slice with its reason. A database of
 * `threadFrom` bytes or more is opened on a thread of its own, read from here as one in this
 * thread is, so that SQLite's copy of it does not hold this thread's event loop (a worker,
 * whose loop answers no client, passes `Infinity`).
 */
export async function openReadOnlyFromAsync(
  file: Deno.FsFile,
  identity: FileIdentity,
  signal?: AbortSignal,
  threadFrom: number = THREAD_FROM_BYTES,
): Promise<Database> {
  checkSize(identity);
  const image = new Uint8Array(identity.size);
  await file.seek(0, Deno.SeekMode.Start);
  let got = 0;
  while (got < image.length) {
    signal?.throwIfAborted();
    const n = await file.read(image.subarray(got, got + READ_CHUNK));
    if (n === null || n === 0) break;
    got += n;
  }
  checkImage(image, got, identity, fromInfo(identity.path, await file.stat()));
  if (image.length < threadFrom) return openImage(image);
  signal?.throwIfAborted();
  return await openOnThread(image, PRAGMAS);
}

function checkSize(identity: FileIdentity): void {
  if (identity.size > MAX_SNAPSHOT_BYTES) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is ${mib(identity.size)}: this server reads a database only through ` +
        `the descriptor it checked, copied into memory, and at most ${
          mib(MAX_SNAPSHOT_BYTES)
        }. Capture fewer operations (or a shorter run) into a report of its own, and load that`,
    );
  }
  if (identity.size < 100) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a SQLite database (${identity.size} bytes, shorter than its ` +
        "header)",
    );
  }
}

/**
 * Refuses `image` (`got` bytes of it read) unless the file, as stated after the read
 * (`after`), is the one identified before it, it is SQLite, and it is whole without a `-wal`
 * or `-journal`; then marks the copy as a rollback database (the file is untouched).
 */
function checkImage(
  image: Uint8Array,
  got: number,
  identity: FileIdentity,
  after: FileIdentity,
): void {
  const change = changeSince(identity, after);
  if (got < image.length || change !== null) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} changed while it was read (${got} of ${image.length} bytes${
        change === null ? "" : `; ${change}`
      }); load the report again once its writer has finished`,
    );
  }
  if (new TextDecoder().decode(image.subarray(0, 16)) !== SQLITE_MAGIC) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a SQLite database (it does not start with the SQLite header)`,
    );
  }
  const walMode = image[18] === 2 || image[19] === 2;
  refuseUnfinished(identity.path, walMode);
  image[18] = 1; // the copy is read in rollback mode; the file is untouched
  image[19] = 1;
}

/** The database `image`, checked, opened in memory in this thread. */
function openImage(image: Uint8Array): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  try {
    db.deserialize(image);
    // Sorts and temporary tables in memory: never a spill file under the temporary directory.
    for (const pragma of PRAGMAS) db.exec(pragma);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * Refuses a database whose main file is not the whole of it: in WAL mode, a `-wal` holding
 * frames; in rollback mode, a `-journal` holding a transaction. Looked at by `lstat` alone.
 */
function refuseUnfinished(path: string, walMode: boolean): void {
  const name = PROFILER_DB_NAME;
  if (walMode) {
    const wal = besideFile(`${path}-wal`);
    if (wal === null || (wal.isFile && wal.size === 0)) return;
    const what = wal.isFile
      ? `holds ${wal.size} bytes of changes`
      : `is ${besideKind(wal)} and may hold changes`;
    throw new UnreadableDatabase(
      `${name} is in WAL mode and ${name}-wal ${what} that may not be in ${name} yet` +
        ` (its writer may still be running). This server reads only the checked ${name} and ` +
        `never writes ${name}-shm beside it, so it cannot read them. Once the writer has ` +
        `finished, fold them in with sqlite3 ${
          shellQuote(path)
        } 'PRAGMA wal_checkpoint(TRUNCATE)' (run by whoever may write there), then load the ` +
        "report again",
    );
  }
  const journal = besideFile(`${path}-journal`);
  if (journal === null || (journal.isFile && journal.size === 0)) return;
  const what = journal.isFile ? `holds ${journal.size} bytes` : `is ${besideKind(journal)}`;
  throw new UnreadableDatabase(
    `${name}-journal ${what}: a transaction its writer had not finished (it may still be ` +
      `running, or have stopped mid-write), so ${name} alone may hold half of it. Once no ` +
      `writer runs, let SQLite roll it back with sqlite3 ${
        shellQuote(path)
      } 'PRAGMA integrity_check' (run by whoever may write there), then load the report again`,
  );
}

/** What `lstat` says of `path`, or null when nothing is there. */
function besideFile(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw new UnreadableDatabase(`${path} cannot be looked at: ${(e as Error).message}`);
  }
}

/** What a file beside the database is, in words; a symbolic link is never followed. */
function besideKind(info: Deno.FileInfo): string {
  return info.isSymlink ? "a symbolic link (not followed)" : kindOf(info);
}

/** `path` quoted for a POSIX shell. */
function shellQuote(path: string): string {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}
