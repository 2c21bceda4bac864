import assert from "node:assert/strict";
import { MAX_LOG_BYTES, type UsageEnvironment, usageRecorder } from "../../src/protocol/usage.ts";

function fakeEnv(over: Partial<UsageEnvironment> = {}) {
  const files = new Map<string, string>();
  const stderr: string[] = [];
  const env: UsageEnvironment = {
    home: "/home/u",
    disabledVariable: undefined,
    markerExists: () => false,
    canWrite: () => true,
    append: (path, line) => files.set(path, (files.get(path) ?? "") + line),
    size: (path) => (files.get(path) ?? "").length,
    stderr: (line) => stderr.push(line),
    now: () => new Date("2026-11-29T12:00:00.123Z"),
    runId: "0a1b2c3d",
    ...over,
  };
  return { env, files, stderr };
}
const LOG = "/home/u/.ttnn-visualizer/usage/events.log";

Deno.test("with write permission and no opt-out, each call is appended as one logfmt event", () => {
  // Prevents a user who granted the events directory from getting no record, or a malformed one.
  const { env, files, stderr } = fakeEnv();
  const u = usageRecorder(env);
  assert.match(u.startupLine, /appended to \/home\/u\/\.ttnn-visualizer\/usage\/events\.log/);
  u.record("top_ops", "ok", 12);
  u.record("load_report", "refused", 3);
  assert.equal(
    files.get(LOG),
    "ts=2026-11-29T12:00:00Z event=mcp_tool_called schema_version=1 run_id=0a1b2c3d tool=top_ops outcome=ok\n" +
      "ts=2026-11-29T12:00:00Z event=mcp_tool_called schema_version=1 run_id=0a1b2c3d tool=load_report outcome=refused\n",
  );
  assert.deepEqual(stderr, [
    "tool=top_ops outcome=ok ms=12",
    "tool=load_report outcome=refused ms=3",
  ]);
});

Deno.test("without write permission nothing is written and stderr still gets the line", () => {
  // Prevents the default read-only binary from writing, or from losing the usage line.
  const { env, files, stderr } = fakeEnv({ canWrite: () => false });
  const u = usageRecorder(env);
  assert.match(
    u.startupLine,
    /stderr only: this process holds no write permission.*--allow-write=\/home\/u\/\.ttnn-visualizer\/usage/,
  );
  u.record("top_ops", "ok", 1);
  assert.equal(files.size, 0);
  assert.equal(stderr.length, 1);
});

Deno.test("USAGE_RECORDING_DISABLED and the marker file each switch the file off", () => {
  // Prevents recording a user who opted out.
  for (
    const over of [{ disabledVariable: "true" }, { disabledVariable: "1" }, {
      disabledVariable: "bogus",
    }, { markerExists: () => true }]
  ) {
    const { env, files } = fakeEnv(over);
    const u = usageRecorder(env);
    assert.match(
      u.startupLine,
      /stderr only: (USAGE_RECORDING_DISABLED is set|the marker .*disabled exists)/,
    );
    u.record("top_ops", "ok", 1);
    assert.equal(files.size, 0);
  }
  for (const value of ["false", "0", ""]) {
    const { env, files } = fakeEnv({ disabledVariable: value });
    usageRecorder(env).record("top_ops", "ok", 1);
    assert.equal(files.size, 1, `USAGE_RECORDING_DISABLED=${value} keeps recording on`);
  }
});

Deno.test("a log at its size cap takes no more events", () => {
  // Prevents an unbounded events file.
  const { env, files } = fakeEnv({ size: () => MAX_LOG_BYTES - 10 });
  usageRecorder(env).record("top_ops", "ok", 1);
  assert.equal(files.size, 0);
});

Deno.test("a failed append disables the file once and the session goes on", () => {
  // Prevents a full disk from failing tool calls or flooding stderr.
  let tries = 0;
  const { env, stderr } = fakeEnv({
    append: () => {
      tries++;
      throw new Error("disk full");
    },
  });
  const u = usageRecorder(env);
  u.record("top_ops", "ok", 1);
  u.record("top_ops", "ok", 1);
  assert.equal(tries, 1);
  assert.equal(stderr.filter((l) => l.includes("disk full")).length, 1);
});

Deno.test("a value that is not logfmt-safe is never written to the file", () => {
  // Prevents a crafted tool name from injecting fields into the events log.
  const { env, files } = fakeEnv();
  usageRecorder(env).record("top ops=1", "ok", 1);
  assert.equal(files.size, 0);
});
