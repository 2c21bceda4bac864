import assert from "node:assert/strict";
import { RawServer } from "../_support/server.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";

const call = { name: "load_report", arguments: { performance_path: `${DEMO}performance` } };

async function serve(home: string, flags: string[] = [], env: Record<string, string> = {}) {
  const s = new RawServer([], { flags, env: { HOME: home, ...env } });
  await s.initialize();
  await s.request(1, "tools/call", call);
  return await s.end();
}

Deno.test("the default binary writes no usage file, says so, and logs the call on stderr", async () => {
  // Prevents the read-only server from writing into HOME by default.
  await using home = await tempDir();
  const end = await serve(home.path);
  assert.match(
    end.stderr,
    /usage events \(tool and outcome only\) go to stderr only: this process holds no write permission/,
  );
  assert.match(end.stderr, /^tool=load_report outcome=ok ms=\d+$/m);
  assert.deepEqual([...Deno.readDirSync(home.path)], []);
});

Deno.test("a user who grants the usage directory gets the events file", async () => {
  // Prevents the documented opt-in (--allow-write=<dir>) from recording nothing.
  await using home = await tempDir();
  const dir = `${home.path}/.ttnn-visualizer/usage`;
  await Deno.mkdir(dir, { recursive: true });
  const end = await serve(home.path, [`--allow-write=${dir}`]);
  assert.match(end.stderr, /are appended to .*events\.log/);
  const log = await Deno.readTextFile(`${dir}/events.log`);
  assert.match(
    log,
    /^ts=\S+Z event=mcp_tool_called schema_version=1 run_id=[0-9a-f]{8} tool=load_report outcome=ok\n$/,
  );
  assert.ok(!log.includes(DEMO), "no path is recorded");
});

Deno.test("USAGE_RECORDING_DISABLED stops the file even with write permission", async () => {
  // Prevents recording a user who opted out.
  await using home = await tempDir();
  const dir = `${home.path}/.ttnn-visualizer/usage`;
  await Deno.mkdir(dir, { recursive: true });
  const end = await serve(home.path, [`--allow-write=${dir}`], {
    USAGE_RECORDING_DISABLED: "true",
  });
  assert.match(end.stderr, /stderr only: USAGE_RECORDING_DISABLED is set/);
  assert.deepEqual([...Deno.readDirSync(dir)], []);
});
