/**
 * The sandbox, proven by attempt rather than by reading the flag list: a process started with
 * the server's flags is stopped at every write, socket, spawn, library load and writable
 * database open; and no module of the server calls an API that would need one (the only
 * writer, the usage-events file, runs only when write permission was granted beforehand).
 */
import assert from "node:assert/strict";
import { PERMISSION_FLAGS } from "../../src/kit/permissions.ts";
import { tempDir, writeFiles } from "../_support/dirs.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("under the server's flags every write, socket, spawn and library load is refused", async () => {
  // Prevents a capability slipping in through a flag nobody reads closely (e.g. --allow-all).
  await using dir = await tempDir();
  await writeFiles(dir.path, { "report.txt": "data", "db.sqlite": "" });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSION_FLAGS, `${ROOT}tests/_support/sandbox_attempts.ts`, dir.path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const result = JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, string>;
  for (const [attempt, outcome] of Object.entries(result)) {
    assert.equal(outcome, "NotCapable", `${attempt} was ${outcome}`);
  }
  assert.equal(Object.keys(result).length, 12);
  assert.equal(await Deno.readTextFile(`${dir.path}/report.txt`), "data", "nothing was changed");
});

/** Calls that need a permission the server is never granted, or open for writing. */
const FORBIDDEN = [
  /\bDeno\.(writeFile|writeTextFile|open|create|mkdir|remove|rename|symlink|link|chmod|chown|truncate|makeTemp\w*|copyFile|utime)(Sync)?\(/,
  /\bDeno\.(connect\w*|listen\w*|serve\w*|startTls|resolveDns)\(/,
  /\bDeno\.(Command|run|kill|dlopen)\b/,
  /\bfetch\(|\bnew WebSocket\(|\bnew EventSource\(/,
  /from "node:(child_process|net|http|https|dgram|tls|fs|worker_threads)"/,
  /\bnew DatabaseSync\(/,
];

/** Where a forbidden-looking call is allowed, and why. */
const ALLOWED: Record<string, RegExp[]> = {
  // The usage-events file, written only when write permission to its directory was granted.
  "src/protocol/usage.ts": [/Deno\.mkdirSync\(/, /Deno\.writeTextFileSync\(/],
  // Read-only opens: the file read-only, or a private in-memory copy.
  "src/profiler_db/open.ts": [
    /new DatabaseSync\(path, \{ readOnly: true \}\)/,
    /new DatabaseSync\(":memory:"\)/,
    /Deno\.openSync\(path, \{ read: true \}\)/,
  ],
  // A port read synchronously, and node's Worker for its `unref`, started from our own module
  // by URL (never `eval`); its thread reads the database's bytes it is handed.
  "src/profiler_db/_db_thread.ts": [
    /^import \{ MessageChannel, Worker \} from "node:worker_threads";$/,
  ],
  "src/profiler_db/_db_thread_messages.ts": [
    /^import \{ receiveMessageOnPort \} from "node:worker_threads";$/,
  ],
  "src/profiler_db/_db_thread_worker.ts": [
    /new DatabaseSync\(":memory:"\)/,
    /^import \{ parentPort, workerData \} from "node:worker_threads";$/,
  ],
};

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sources(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

Deno.test("no module of the server calls an API that writes, connects, spawns or loads code", async () => {
  // Prevents a code path that would need a forbidden permission (denied at run time, an error
  // the agent would meet) — or an open for writing — being added unnoticed.
  const found: string[] = [];
  let files = 0;
  for await (const path of sources(`${ROOT}src`)) {
    files++;
    const rel = path.slice(ROOT.length);
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines.forEach((line, i) => {
      if (/^\s*(\*|\/\/)/.test(line)) return; // documentation
      for (const pattern of FORBIDDEN) {
        if (!pattern.test(line)) continue;
        if (/Deno\.open(Sync)?\([^)]*\{ read: true \}\)/.test(line)) continue; // read-only open
        if ((ALLOWED[rel] ?? []).some((ok) => ok.test(line))) continue;
        found.push(`${rel}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  assert.ok(files > 50, `scanned ${files} modules`);
  assert.deepEqual(found, []);
});
