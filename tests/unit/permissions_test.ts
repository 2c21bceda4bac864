import assert from "node:assert/strict";
import { FORBIDDEN_PERMISSIONS, PERMISSION_FLAGS } from "../../src/kit/permissions.ts";
import {
  chooseTargets,
  LAZY_MODULES,
  planBuilds,
  sumLine,
  TARGETS,
} from "../../scripts/compile_plan.ts";
import config from "../../deno.json" with { type: "json" };

Deno.test("the server's permission list grants no write, net, run, ffi, sys or all", () => {
  // Prevents a read-only server from gaining a capability by an edit to the flag list.
  for (const flag of PERMISSION_FLAGS) {
    for (const forbidden of FORBIDDEN_PERMISSIONS) {
      assert.ok(
        flag !== forbidden && !flag.startsWith(forbidden + "="),
        `${flag} is not ${forbidden}`,
      );
    }
    assert.ok(!/^--allow-(write|net|run|ffi|sys|all|import)/.test(flag), flag);
  }
  assert.ok(PERMISSION_FLAGS.includes("--no-prompt"));
  const env = PERMISSION_FLAGS.find((f) => f.startsWith("--allow-env"));
  assert.equal(
    env,
    "--allow-env=HOME,USAGE_RECORDING_DISABLED",
    "env access is limited to two variables",
  );
});

Deno.test("deno task mcp, call and demo run with exactly the server's flag list, no update check", () => {
  // Prevents the task a user runs from drifting from what the tests and binaries use, and
  // `deno run` looking up its latest version over the network before the server starts.
  const tasks = config.tasks as Record<string, string>;
  for (const name of ["mcp", "call", "demo"]) {
    const words = tasks[name].split(/\s+/);
    assert.deepEqual(words.slice(0, 3), ["DENO_NO_UPDATE_CHECK=1", "deno", "run"], name);
    words.shift();
    const flags = words.slice(2, words.indexOf("mod.ts"));
    assert.deepEqual(flags, [...PERMISSION_FLAGS], name);
  }
});

Deno.test("the README's from-source registration turns off deno's update check", async () => {
  // Prevents `deno task` (the process the client starts) looking up its latest version over
  // the network, which the task's own setting cannot stop.
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const registration = /From source, register[\s\S]*?"command": "deno"[\s\S]*?"env": \{([^}]*)\}/
    .exec(readme);
  assert.ok(registration, "the README gives the from-source registration with an env");
  assert.match(registration[1], /"DENO_NO_UPDATE_CHECK": "1"/);
});

/**
 * The modules under src/ that some module names with `new URL("…", import.meta.url)`: those it
 * starts a worker from (`workers`) and the others, which it imports by URL (`imported`).
 */
async function modulesNamedByUrl(): Promise<{ workers: string[]; imported: string[] }> {
  const root = new URL("../../", import.meta.url);
  const workers = new Set<string>();
  const imported = new Set<string>();
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      const at = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) await walk(at);
      else if (e.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(at);
        for (
          const m of text.matchAll(/(new Worker\(\s*)?new URL\("([^"]+)", import\.meta\.url\)/g)
        ) {
          const module = new URL(m[2], at).pathname.slice(root.pathname.length);
          if (m[1]) workers.add(module);
          else if (module.endsWith(".ts")) imported.add(module);
        }
      }
    }
  };
  await walk(new URL("src/", root));
  return { workers: [...workers].sort(), imported: [...imported].sort() };
}

Deno.test("every module loaded by URL is embedded by the compile plan", async () => {
  // Prevents a binary that starts, then fails on the first call or on `serve`, because a
  // module the program imports by URL (to keep a one-shot call small) was never embedded.
  const lazy = (await modulesNamedByUrl()).imported;
  assert.ok(
    lazy.includes("src/protocol/stdio.ts") && lazy.includes("src/tools/top_ops.ts"),
    `${lazy}`,
  );
  for (const module of lazy) {
    assert.ok(LAZY_MODULES.includes(module), `${module} is loaded by URL but not in LAZY_MODULES`);
  }
  for (const b of planBuilds(TARGETS, "dist")) {
    for (const module of LAZY_MODULES) {
      assert.equal(b.args[b.args.indexOf(module) - 1], "--include", `${module} is embedded`);
    }
  }
});

Deno.test("the compile plan bakes the same flags into every target", async () => {
  // Prevents a release binary with broader permissions than the tested server, or one
  // missing a module it starts a worker from.
  const { workers } = await modulesNamedByUrl();
  assert.equal(workers.length, 3);
  const builds = planBuilds(TARGETS, "dist");
  assert.equal(builds.length, 5);
  assert.deepEqual(builds.map((b) => b.target), [
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
  ]);
  for (const b of builds) {
    assert.equal(b.args[0], "compile");
    assert.deepEqual(b.args.slice(1, 1 + PERMISSION_FLAGS.length), [...PERMISSION_FLAGS]);
    assert.equal(b.args[b.args.indexOf("--target") + 1], b.target);
    assert.equal(b.args[b.args.indexOf("--output") + 1], b.output);
    assert.equal(b.args.at(-1), "mod.ts");
    assert.ok(
      b.args.includes("--include") && b.args.includes("fixtures/demo"),
      "the demo capture is embedded",
    );
    for (const module of workers) assert.ok(b.args.includes(module), `${module} is embedded`);
  }
  assert.equal(builds[0].output, "dist/ttnn-visualizer-mcp-x86_64-unknown-linux-gnu");
  assert.equal(builds[4].output, "dist/ttnn-visualizer-mcp-x86_64-pc-windows-msvc.exe");
});

Deno.test("DENORT_BIN needs exactly one named target", () => {
  // Prevents a local runtime for one platform being baked into binaries for the others.
  assert.deepEqual(chooseTargets([], undefined), [...TARGETS]);
  assert.throws(() => chooseTargets([], "/opt/denort"), /name its target with --target/);
  assert.deepEqual(chooseTargets(["aarch64-apple-darwin"], "/opt/denort"), [
    "aarch64-apple-darwin",
  ]);
  assert.throws(() => chooseTargets(["riscv-none"], undefined), /unknown target riscv-none/);
});

Deno.test("SHA256SUMS lines are in the format sha256sum -c reads", () => {
  // Prevents a checksum file users cannot verify with the standard tool.
  assert.equal(
    sumLine("ab".repeat(32), "ttnn-visualizer-mcp-x86_64-apple-darwin"),
    `${"ab".repeat(32)}  ttnn-visualizer-mcp-x86_64-apple-darwin`,
  );
});

Deno.test("a process started with the flag list can read and see HOME, and nothing more", async () => {
  // Prevents the flags from granting more at run time than the list says (e.g. an implied grant).
  const probe = new URL("../_support/permission_probe.ts", import.meta.url).pathname;
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSION_FLAGS, probe],
    stderr: "inherit",
  }).output();
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
    write: "prompt",
    net: "prompt",
    run: "prompt",
    ffi: "prompt",
    sys: "prompt",
    "env:PATH": "prompt",
    "env:HOME": "granted",
    read: "granted",
  });
});

Deno.test("a process started with the flag list can run the buffers scan's worker", async () => {
  // Prevents the flags (or a change to the worker) silently sending every large scan back to
  // one thread: the scan falls back quietly, so only this shows the worker really runs.
  const probe = new URL("../_support/buffer_worker_probe.ts", import.meta.url).pathname;
  const report = new URL("../../fixtures/profiler/v2_mesh_two_devices", import.meta.url).pathname;
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSION_FLAGS, probe, report],
    stderr: "inherit",
  }).output();
  assert.equal(code, 0);
  assert.equal(new TextDecoder().decode(stdout).trim(), "built 121");
});
