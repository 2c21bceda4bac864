/**
 * `--root`'s settling rule (kit/confine.ts, step 3): a path is opened only through directories
 * that have held still, and a change to one while the path is opened sends the open round
 * again. Walks alone left a window — an exchange between a parent's `lstat` and its child's —
 * that a swapper at full speed hit in 963 of 217,000 opens, even with three walks after.
 */
import assert from "node:assert/strict";
import { REPO } from "../_support/server.ts";
import { tempDir } from "../_support/dirs.ts";
import { Roots } from "../../src/kit/roots.ts";
import { openReportFile } from "../../src/kit/report_file.ts";
import { Refusal } from "../../src/kit/refusal.ts";
import {
  changedBinding,
  settle,
  SETTLE_LIMIT_MS,
  SETTLE_MS,
  Unsettled,
  type Walk,
  walk,
} from "../../src/kit/confine.ts";

/** How long the in-process race runs. */
const RACE_MS = 5_000;

Deno.test("a report directory exchanged in bursts while the door opens through it never opens the outside file", async () => {
  // Prevents the straddled walk: the directory seen by its lstat, its file looked up through
  // the symlink exchanged in just after, in every walk — the outside file opened and passed.
  await using dir = await tempDir();
  const root = `${dir.path}/root`;
  await Deno.mkdir(`${root}/report`, { recursive: true });
  await Deno.mkdir(`${dir.path}/outside`);
  await Deno.writeTextFile(`${root}/report/f.txt`, "inside");
  await Deno.writeTextFile(`${dir.path}/outside/f.txt`, "OUTSIDE");
  await Deno.symlink(`${dir.path}/outside`, `${root}/away`);
  const roots = await Roots.of([root]);
  const swapper = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-ffi",
      `${REPO}scripts/_exchange_swapper.ts`,
      `${root}/report`,
      `${root}/away`,
      `${RACE_MS}`,
      "20",
      "60",
      "20000",
    ],
    stdout: "piped",
  }).spawn();
  let running = true;
  const done = swapper.output().finally(() => (running = false));
  const seen = { attempts: 0, inside: 0, outside: 0, refused: 0 };
  const bytes = new Uint8Array(16);
  while (running) {
    seen.attempts++;
    try {
      const r = await openReportFile(`${root}/report/f.txt`, "f.txt", roots, "performance_path");
      if (r.kind !== "opened") continue;
      const n = r.opened.file.readSync(bytes) ?? 0;
      r.opened.file.close();
      const text = new TextDecoder().decode(bytes.subarray(0, n));
      if (text === "OUTSIDE") seen.outside++;
      else seen.inside++;
    } catch {
      seen.refused++;
    }
  }
  const { swaps } = JSON.parse(new TextDecoder().decode((await done).stdout));
  console.log(JSON.stringify({ ...seen, swaps }));
  assert.ok(swaps > 1000, `the swapper exchanged the paths throughout (${swaps})`);
  assert.equal(seen.outside, 0, `${seen.outside} of ${seen.attempts} opens read the outside file`);
  assert.ok(seen.inside > 0, `${seen.inside} of ${seen.attempts} opens read the inside file`);
});

/** A walk as `walk` records it: `/x/<name>` (a directory, its time `mtime`), then a file. */
function walkOf(name: string, mtime: number, fileDirTime = 1_700_000_000_123): Walk {
  return {
    components: [
      { path: "/", dev: 1, ino: 1, mtime: 1_700_000_000_001 },
      { path: `/x-${name}`, dev: 1, ino: 2, mtime },
      { path: `/x-${name}/d`, dev: 1, ino: 3, mtime: fileDirTime },
      { path: `/x-${name}/d/f`, dev: 1, ino: 4, mtime: null },
    ],
    last: { isDirectory: false } as Deno.FileInfo,
  };
}

/** How long `settle` says to wait, or 0 when it passes. */
function waitOf(w: Walk, startedAt: number): number {
  try {
    settle(w, startedAt);
    return 0;
  } catch (e) {
    assert.ok(e instanceof Unsettled);
    return e.waitMs;
  }
}

Deno.test("a directory first seen is unsettled for the settling time, then settled while it holds still", () => {
  // Prevents opening through a directory whose last change could share its millisecond with
  // a change during the open, which its time would then not show.
  const held = walkOf("held", 1_700_000_000_457);
  const first = waitOf(held, performance.now());
  assert.ok(first > 0 && first <= SETTLE_MS + 1, `waits ${first} ms, at most the settling time`);
  assert.equal(waitOf(held, performance.now() + first), 0, "settled once it has held that long");
  // A new time (an entry made, renamed or removed) makes it fresh again.
  assert.ok(waitOf(walkOf("held", 1_700_000_000_789), performance.now()) > 0);
});

Deno.test("a directory whose time falls on a whole second waits a second more", () => {
  // Prevents a 12 ms wait on a file system that dates changes to the second, where a change
  // in the same second as the last one leaves the time as it was.
  const wait = waitOf(walkOf("grain", 1_700_000_000_000), performance.now());
  assert.ok(wait > 1_000 + SETTLE_MS - 2, `waits ${wait} ms on a one-second grain`);
});

Deno.test("an entry changed above a file's directory sends the open round again; one beside the file does not", async () => {
  // Prevents both misses: an exchange above the file that leaves every inode as walked, and a
  // refusal of a report whose own directory gains a file while one of its files is opened.
  const was = walkOf("bind", 1_700_000_000_457);
  assert.equal(changedBinding(was, walkOf("bind", 1_700_000_000_457, 1_700_000_009_999)), null);
  assert.equal(changedBinding(was, walkOf("bind", 1_700_000_000_458)), "/x-bind");
  // And the kernel dates it: an entry made in a directory changes the time a walk records.
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/a/b`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/a/b/f`, "x");
  const hourAgo = new Date(Date.now() - 3_600_000);
  await Deno.utime(`${dir.path}/a`, hourAgo, hourAgo);
  const before = walk(`${dir.path}/a/b/f`, null, "x");
  await Deno.writeTextFile(`${dir.path}/a/above`, "y");
  const after = walk(`${dir.path}/a/b/f`, null, "x");
  const at = before.components.findIndex((c) => c.path === `${dir.path}/a`);
  assert.notEqual(after.components[at].mtime, before.components[at].mtime);
});

Deno.test("a directory above the report that never holds still is refused by name after the wait", async () => {
  // Prevents an open that waits forever, or reads through a directory changing under it.
  await using dir = await tempDir();
  const root = `${dir.path}/root`;
  await Deno.mkdir(`${root}/report`, { recursive: true });
  await Deno.writeTextFile(`${root}/report/f.txt`, "inside");
  const roots = await Roots.of([root]);
  // Makes and removes an entry beside the report directory every millisecond or so.
  const churn = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const end = Date.now() + ${SETTLE_LIMIT_MS + 2_000};
       const rest = new Int32Array(new SharedArrayBuffer(4));
       while (Date.now() < end) {
         Deno.writeTextFileSync("${root}/churn", "x");
         Deno.removeSync("${root}/churn");
         Atomics.wait(rest, 0, 0, 1);
       }`,
    ],
  }).spawn();
  try {
    await new Promise((r) => setTimeout(r, 200));
    await assert.rejects(
      () => openReportFile(`${root}/report/f.txt`, "f.txt", roots, "performance_path"),
      (e: Error) => {
        assert.ok(e instanceof Refusal, String(e));
        assert.match(e.message, /performance_path kept changing/);
        assert.ok(e.message.includes(`${root} had an entry made, renamed or removed`), e.message);
        assert.match(e.message, /Load the report again once nothing is moving it/);
        return true;
      },
    );
  } finally {
    await churn.status;
  }
});
