/**
 * The list of report file kinds (`src/session/report_files.ts`) is the one place outside a
 * kind's own source where its file name is written: loading, staleness, the inventory, the
 * help, the command line and the instructions take it from there.
 */
import assert from "node:assert/strict";
import { filesOf, REPORT_FILES, sourceFolders } from "../../src/session/report_files.ts";
import { artifactsPresent, identitiesOf } from "../../src/session/inventory.ts";
import type { ReportFileKind } from "../../src/kit/report_kind.ts";

const SRC = new URL("../../src/", import.meta.url);

/** Every module under src/, by its path from src/. */
async function modules(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: URL, prefix: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`);
      else if (e.name.endsWith(".ts")) {
        out.set(`${prefix}${e.name}`, await Deno.readTextFile(new URL(e.name, dir)));
      }
    }
  };
  await walk(SRC, "");
  return out;
}

/** What a kind's name is spelled as in text: its name up to what varies (`ops_perf_results`). */
function spelling(kind: ReportFileKind): string {
  const star = kind.name.indexOf("*");
  const stem = star < 0 ? kind.name : kind.name.slice(0, star);
  // A varying name is known by its stem, without the separator before what varies.
  return star < 0 ? stem : stem.replace(/[_.-]$/, "");
}

/** The names of files beside a kind's that nothing reads, spelled in its descriptor alone. */
const besides = () => REPORT_FILES.flatMap((k) => k.beside.map((name) => ({ name, kind: k })));

/** Where src/ spells a report file's name outside its own source, as `path: name`. */
function strayNames(all: Map<string, string>): string[] {
  const stray: string[] = [];
  const spelled = [
    ...REPORT_FILES.map((k) => ({ name: spelling(k), kind: k })),
    ...besides(),
  ];
  for (const [path, text] of all) {
    const folder = path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
    for (const { name, kind } of spelled) {
      if (folder !== kind.source && text.includes(name)) stray.push(`${path}: ${name}`);
    }
  }
  return stray;
}

Deno.test("a report file's name is written in src/ only in its own source", async () => {
  // Prevents a module above the sources spelling a file name again (in a message, a help
  // text or a comment), which a new or renamed kind of file would then leave behind.
  assert.deepEqual(strayNames(await modules()), []);
});

Deno.test("the stray-name scan finds a name spelled outside its source", () => {
  // Prevents the test above passing because it recognised no name at all.
  const all = new Map([
    ["cli/a.ts", 'const m = "the folder holding profile_log_device.csv";'],
    ["tools/b.ts", "// reads ops_perf_results_x.csv"],
    ["session/c.ts", "`config.json` beside it"],
    ["device_log/d.ts", 'export const NAME = "profile_log_device.csv";'],
  ]);
  assert.deepEqual(strayNames(all), [
    "cli/a.ts: profile_log_device.csv",
    "tools/b.ts: ops_perf_results",
    "session/c.ts: config.json",
  ]);
});

Deno.test("every kind of report file says what it is and how to capture one", () => {
  // Prevents a kind added without the sentence load_report's help and refusals rest on.
  const keys = REPORT_FILES.map((k) => k.key);
  assert.equal(new Set(keys).size, keys.length, "each kind has its own key");
  for (const kind of REPORT_FILES) {
    assert.ok(kind.what.length > 20 && kind.capture.length > 20, kind.key);
    assert.ok(sourceFolders().includes(kind.source));
  }
  assert.equal(filesOf("performance")[0].key, "performance_csv");
  assert.equal(filesOf("profiler")[0].key, "profiler_db");
});

Deno.test("the inventory's artifacts and identities come from every kind in the list", () => {
  // Prevents a kind the list holds being left out of the staleness check or load_report's
  // data_present_without_tools.
  const identity = (path: string) => ({ path, size: 1, mtimeMs: 1, ctimeMs: 1, ino: 1, dev: 1 });
  const inv = {
    performance: {
      dir: "/p",
      csv: {
        name: "ops_perf_results.csv",
        path: "/p/ops_perf_results.csv",
        identity: identity("/p/ops_perf_results.csv"),
      },
      csvIdentity: identity("/p/ops_perf_results.csv"),
      csvBytesHeld: 0,
      csvRead: null,
      whole: null,
      wholeProblem: null,
      deviceLog: null,
    },
    profiler: {
      dir: "/d",
      db: null,
      clusterDescriptor: {
        path: "/d/c.yaml",
        identity: identity("/d/c.yaml"),
        arch: null,
        problem: null,
      },
    },
  };
  assert.deepEqual(artifactsPresent(inv), ["performance_csv"]);
  assert.deepEqual(identitiesOf(inv).map((i) => i.path), ["/p/ops_perf_results.csv", "/d/c.yaml"]);
});
