/**
 * Opening a profiler database read-only, as the file load_report checked and nothing else.
 *
 * SQLite opens files by path, never by a descriptor, and Deno grants no descriptor path
 * (`/proc/self/fd/<n>`) without `--allow-all`. So where a swap of the path must not be able
 * to make SQLite read another file — under `--root` — the database is read through the
 * descriptor that was checked, whole, into memory, and opened there (`snapshot`). Without
 * `--root` any file the user can read may be loaded, and the file is opened in place
 * (`in_place`): the path is stated again after SQLite opened it and must still name the file
 * checked.
 *
 * Nothing is ever written beside a report. A database in WAL mode is read by SQLite in place
 * only by creating or updating its `-shm` index beside it, and Deno's `node:sqlite` cannot pass
 * SQLite's `immutable` flag under this server's permissions, so it too is read as a snapshot.
 * When its `-wal` file still holds changes not written back, that snapshot would miss them, so
 * it is refused with the reason instead.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { changeSince, type FileIdentity, fromInfo } from "../kit/file_identity.ts";
import { kindOf, mib, OPEN_WAIT_MS, openWithin } from "../kit/report_file.ts";

/** The database's file name inside a profiler report directory. */
export const PROFILER_DB_NAME = "db.sqlite";

/** How a database is opened: by path where nothing confines it, else copied through its descriptor. */
export type OpenMode = "in_place" | "snapshot";

/** The largest database read into memory as a snapshot. */
export const MAX_SNAPSHOT_BYTES = 1 << 30;

/** A database this reader declines to open, with the reason in words. */
export class UnreadableDatabase extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreadableDatabase";
  }
}

/** The 16 bytes every SQLite 3 database file starts with. */
const SQLITE_MAGIC = "SQLite format 3\u0000";

/** How long a read waits for a writer's lock before the database is reported locked. */
const BUSY_WAIT_MS = 1000;

/**
 * Opens the database at `path` for reading only (see `openReadOnlyFrom`); with `expected`,
 * only when the file there is still that one. Throws `UnreadableDatabase` otherwise. A path
 * naming a FIFO or device is refused before it is opened.
 */
export function openReadOnly(
  path: string,
  expected?: FileIdentity,
  mode: OpenMode = "in_place",
): DatabaseSync {
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
  return openReadOnlyFrom(file, identity, mode);
}

/**
 * `openReadOnly` off the main thread's blocking calls: the file opened asynchronously (an open
 * that waits, as on a FIFO swapped in, is given up), with the identity of the file opened;
 * with `expected`, refused unless it is still that file.
 */
export async function openReadOnlyChecked(
  path: string,
  expected?: FileIdentity,
  mode: OpenMode = "in_place",
): Promise<{ db: DatabaseSync; identity: FileIdentity }> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    throw new UnreadableDatabase(`${PROFILER_DB_NAME} cannot be opened: ${(e as Error).message}`);
  }
  if (!info.isFile) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a regular file (it is ${kindOf(info)})`,
    );
  }
  const opened = await openWithin(path, OPEN_WAIT_MS);
  if ("problem" in opened) throw new UnreadableDatabase(`${PROFILER_DB_NAME} ${opened.problem}`);
  using file = opened.file;
  const identity = fromInfo(path, await file.stat());
  const change = expected === undefined ? null : changeSince(expected, identity);
  if (change !== null) throw new UnreadableDatabase(change);
  return { db: openReadOnlyFrom(file, identity, mode), identity };
}

/**
 * Opens the SQLite file open in `file` (`identity`, from its descriptor) for reading only:
 * in place (`in_place`, a rollback-journal database only), else as a snapshot read through
 * `file`. Throws `UnreadableDatabase` for a file that is not SQLite or cannot be read so.
 */
export function openReadOnlyFrom(
  file: Deno.FsFile,
  identity: FileIdentity,
  mode: OpenMode,
): DatabaseSync {
  const path = identity.path;
  const header = readHeader(file);
  if (new TextDecoder().decode(header.subarray(0, 16)) !== SQLITE_MAGIC) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a SQLite database (it does not start with the SQLite header)`,
    );
  }
  const walMode = header[18] === 2 || header[19] === 2;
  if (!walMode && mode === "in_place") {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      // SQLite opened the path: it must still name the file checked.
      const change = changeSince(identity, fromInfo(path, Deno.statSync(path)));
      if (change !== null) throw new UnreadableDatabase(change);
      // A writer mid-commit holds its lock briefly: wait up to a second, then say it is locked.
      // (Deno's node:sqlite ignores the `timeout` option and waits five seconds otherwise.)
      db.exec(`PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
    } catch (e) {
      db.close();
      throw e;
    }
    return db;
  }
  if (walMode) {
    const pending = walBytes(`${path}-wal`);
    if (pending === "symlink") {
      throw new UnreadableDatabase(
        `${PROFILER_DB_NAME} is in WAL mode and ${PROFILER_DB_NAME}-wal is a symbolic link, ` +
          `not the log SQLite keeps beside its database; nothing was read through it (nor its ` +
          `size). Put the log itself there, or checkpoint the database on a copy ` +
          `(sqlite3 db.sqlite 'PRAGMA journal_mode=DELETE'), and load that`,
      );
    }
    if (pending > 0) {
      throw new UnreadableDatabase(
        `${PROFILER_DB_NAME} is in WAL mode and ${PROFILER_DB_NAME}-wal still holds ${pending} ` +
          `bytes of changes not written back into it (its writer may still be running). ` +
          `Reading them would mean writing ${PROFILER_DB_NAME}-shm beside the report, which ` +
          `this server never does; load the report again once the writer has finished or ` +
          `checkpointed it`,
      );
    }
  }
  if (identity.size > MAX_SNAPSHOT_BYTES) throw snapshotTooLarge(identity.size, walMode);
  const image = readImage(file, identity.size);
  image[18] = 1; // the in-memory copy is read in rollback mode; the file is untouched
  image[19] = 1;
  const db = new DatabaseSync(":memory:");
  db.deserialize(image);
  db.exec("PRAGMA query_only = 1");
  return db;
}

/** The whole database from its descriptor. */
function readImage(file: Deno.FsFile, size: number): Uint8Array {
  file.seekSync(0, Deno.SeekMode.Start);
  const image = new Uint8Array(size);
  let got = 0;
  while (got < size) {
    const n = file.readSync(image.subarray(got));
    if (n === null || n === 0) break;
    got += n;
  }
  if (got < size) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} changed while it was read (${got} of ${size} bytes)`,
    );
  }
  return image;
}

function snapshotTooLarge(size: number, walMode: boolean): UnreadableDatabase {
  const why = walMode
    ? `is in WAL mode and ${mib(size)}: more than the ${
      mib(MAX_SNAPSHOT_BYTES)
    } this server copies into memory to read such a file without writing beside it. ` +
      "Checkpoint it back into rollback mode (sqlite3 db.sqlite 'PRAGMA journal_mode=DELETE') " +
      "on a copy, and load that"
    : `is ${mib(size)}: under --root this server reads a database only through the descriptor ` +
      `it checked against the root, copied into memory, and at most ${
        mib(MAX_SNAPSHOT_BYTES)
      }. Load it from a server started without --root, which opens it in place`;
  return new UnreadableDatabase(`${PROFILER_DB_NAME} ${why}`);
}

function readHeader(file: Deno.FsFile): Uint8Array {
  file.seekSync(0, Deno.SeekMode.Start);
  const buf = new Uint8Array(100);
  let got = 0;
  while (got < buf.length) {
    const n = file.readSync(buf.subarray(got));
    if (n === null || n === 0) break;
    got += n;
  }
  if (got < buf.length) {
    throw new UnreadableDatabase(
      `${PROFILER_DB_NAME} is not a SQLite database (${got} bytes, shorter than its header)`,
    );
  }
  return buf;
}

/**
 * The size of the `-wal` beside a database (0 when there is none), or `"symlink"`: a link is
 * never followed, so nothing is said of a file it points to (outside a root, perhaps).
 */
function walBytes(path: string): number | "symlink" {
  try {
    const info = Deno.lstatSync(path);
    return info.isSymlink ? "symlink" : info.size;
  } catch {
    return 0;
  }
}
