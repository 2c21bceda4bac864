import assert from "node:assert/strict";
import { callOk, callRefused, connect } from "../_support/server.ts";
import { copyDemo, DEMO, tempDir, writeFiles } from "../_support/dirs.ts";
import { loadTools } from "../../src/tools/registry.ts";

/** Every tool, as the server loads them. */
const CATALOG = await loadTools();
import config from "../../deno.json" with { type: "json" };

Deno.test("an SDK client connects, sees the server's name and version, and pings", async () => {
  // Prevents a server a real MCP client cannot complete the handshake with.
  const { client, close } = await connect();
  try {
    assert.equal(client.getServerVersion()?.name, "ttnn-visualizer");
    assert.equal(client.getServerVersion()?.version, config.version);
    assert.match(client.getInstructions() ?? "", /load_report first/);
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    await client.ping();
  } finally {
    await close();
  }
});

Deno.test("tools/list gives every implemented tool a title, read-only hints and an object schema", async () => {
  // Prevents a tool listed without the annotations clients use to auto-approve read-only calls,
  // or a tool advertised before it exists.
  const { client, close } = await connect();
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), CATALOG.map((t) => t.name));
    assert.equal(tools[0].name, "load_report");
    for (const tool of tools) {
      assert.ok(tool.title && tool.title.length > 0, `${tool.name} has a title`);
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, "object");
      assert.deepEqual(tool.annotations, {
        readOnlyHint: true,
        openWorldHint: false,
      });
    }
    const load = tools[0].inputSchema as {
      properties: Record<string, { type: string }>;
      required?: string[];
    };
    assert.equal(load.properties.profiler_path.type, "string");
    assert.equal(load.properties.performance_path.type, "string");
    assert.equal(load.required, undefined);
  } finally {
    await close();
  }
});

Deno.test("load_report on both halves of the demo capture says what it holds", async () => {
  // Prevents an inventory that misreports arch, devices, tables or the chosen CSV.
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
      profiler_path: `${DEMO}profiler/`,
    });
    assert.equal(a.handle, "report-1");
    assert.equal(a.performance_path, `${DEMO}performance`);
    assert.equal(a.profiler_path, `${DEMO}profiler`);
    assert.deepEqual(a.capture, {
      ARCH: "wormhole_b0",
      "CHIP_FREQ[MHz]": "1000",
      "Max Compute Cores": "64",
    });
    assert.deepEqual(a.arch, {
      performance_csv: "wormhole_b0",
      device_log: "wormhole_b0",
      cluster_descriptor: "Wormhole",
    });
    assert.equal((a.device_count as Record<string, number>).profiler, 1);
    assert.equal(a.performance_csv, "ops_perf_results_demo.csv");
    assert.equal(a.performance_csv_problem, undefined);
    assert.deepEqual(a.device_log, {
      file: "profile_log_device.csv",
      decodes: true,
      has_data_rows: true,
      missing_columns: [],
      zone_boundary_column: "type",
    });
    const db = a.profiler_database as { tables: string[] };
    assert.ok(db.tables.includes("operations") && db.tables.includes("devices"));
    const named = [...(a.answerable as string[]), ...(a.unanswerable as string[])];
    const registered = new Set(CATALOG.map((t) => t.name));
    for (const name of named) assert.ok(registered.has(name), `${name} is a registered tool`);
    const second = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    assert.equal(second.handle, "report-2");
    assert.equal(second.profiler_path, null);
    assert.equal(second.profiler_database, undefined);
  } finally {
    await close();
  }
});

Deno.test("load_report refuses each bad request with a message naming the problem", async () => {
  // Prevents a silent success, a crash, or a protocol error where the agent needs a readable refusal.
  await using dir = await tempDir();
  await writeFiles(dir.path, { "a-file.txt": "x" });
  const { client, close } = await connect();
  try {
    assert.match(
      await callRefused(client, "load_report", {}),
      /one of profiler_path or performance_path is required/,
    );
    assert.match(
      await callRefused(client, "load_report", { performance_path: `${dir.path}/missing` }),
      /performance_path is not a directory: .*missing \(nothing exists there\)/,
    );
    assert.match(
      await callRefused(client, "load_report", { profiler_path: `${dir.path}/a-file.txt` }),
      /profiler_path is not a directory: .*a-file\.txt \(it is a file\)/,
    );
    assert.match(
      await callRefused(client, "load_report", { profiler_path: "" }),
      /profiler_path is empty/,
    );
    assert.match(
      await callRefused(client, "load_report", { profiler_path: 7 }),
      /bad arguments for load_report: profiler_path/,
    );
    assert.match(
      await callRefused(client, "load_report", { performance_path: dir.path, handle: "x" }),
      /unknown argument 'handle'/,
    );
  } finally {
    await close();
  }
});

Deno.test("--root refuses a path outside it, including a symlink that escapes it", async () => {
  // Prevents a read-only server from being pointed at any report the user can read when confined.
  await using root = await tempDir();
  await using outside = await tempDir();
  const inside = await copyDemo(root.path);
  await copyDemo(outside.path);
  await Deno.symlink(`${outside.path}/performance`, `${root.path}/escape`);
  await Deno.symlink(`${root.path}/performance`, `${root.path}/alias`);
  const { client, close } = await connect(["--root", root.path]);
  try {
    const ok = await callOk(client, "load_report", { performance_path: inside.performance });
    assert.equal(ok.performance_path, inside.performance);
    const viaAlias = await callOk(client, "load_report", {
      performance_path: `${root.path}/alias`,
    });
    assert.equal(viaAlias.performance_path, inside.performance);
    assert.match(
      await callRefused(client, "load_report", { performance_path: `${outside.path}/performance` }),
      /performance_path is outside the directories this server may read/,
    );
    assert.match(
      await callRefused(client, "load_report", { performance_path: `${root.path}/escape` }),
      /outside the directories this server may read.*resolves to/,
    );
    assert.match(
      await callRefused(client, "load_report", {
        profiler_path: `${root.path}/performance/../../`,
      }),
      /profiler_path is outside/,
    );
  } finally {
    await close();
  }
});

Deno.test("--root refuses a report whose files are symlinks out of the root", async () => {
  // Prevents a confined server from reading a database that a symlink inside the root points away to.
  await using root = await tempDir();
  await using outside = await tempDir();
  const there = await copyDemo(outside.path);
  await Deno.mkdir(`${root.path}/profiler`);
  await Deno.symlink(`${there.profiler}/db.sqlite`, `${root.path}/profiler/db.sqlite`);
  const { client, close } = await connect(["--root", root.path]);
  try {
    assert.match(
      await callRefused(client, "load_report", { profiler_path: `${root.path}/profiler` }),
      /db\.sqlite is outside the directories this server may read/,
    );
  } finally {
    await close();
  }
});

Deno.test("a performance CSV that cannot be reported on is named with the reason", async () => {
  // Prevents advertising performance tools for a CSV they would fail on, without saying why.
  await using dir = await tempDir();
  const demoCsv = await Deno.readTextFile(`${DEMO}performance/ops_perf_results_demo.csv`);
  const header = demoCsv.slice(0, demoCsv.indexOf("\n") + 1);
  const cases: [string, string | Uint8Array, RegExp][] = [
    ["empty", "", /ops_perf_results_x\.csv is empty/],
    ["header-only", header, /has no data rows/],
    [
      "missing",
      "OP CODE,OP TYPE\nMatmul,tt_dnn_device\n",
      /is missing columns: DEVICE ID, ATTRIBUTES, INPUT_0_MEMORY, GLOBAL CALL COUNT, DEVICE KERNEL DURATION \[ns\], OP TO OP LATENCY \[ns\]$/,
    ],
    [
      "latin1",
      new Uint8Array([...new TextEncoder().encode(header), 0x4d, 0xe9, 0x0a]),
      /is not UTF-8 text \(the first invalid byte is on line 2\)/,
    ],
    [
      "semicolons",
      demoCsv.replaceAll(",", ";"),
      /is missing columns: OP CODE, OP TYPE, DEVICE ID/,
    ],
    [
      "truncated-in-quotes",
      demoCsv.slice(0, demoCsv.indexOf("{'compute_kernel_config'")) + "\"{'compute_kernel",
      /cannot be parsed as CSV: .*line 5: a quoted field is never closed \(the file may be truncated\)/,
    ],
    [
      "truncated-mid-row",
      demoCsv.slice(0, demoCsv.indexOf("{'compute_kernel_config'") + 20),
      /cannot be parsed as CSV: .*line 5: the file ends inside this line, after 6 of the header's \d+ fields and with no line break \(the file may be truncated\)$/,
    ],
  ];
  for (const [name, content] of cases) {
    await writeFiles(`${dir.path}/${name}`, { "ops_perf_results_x.csv": content });
  }
  await writeFiles(`${dir.path}/none`, { "other.csv": "a\n" });
  const { client, close } = await connect();
  try {
    for (const [name, , problem] of cases) {
      const a = await callOk(client, "load_report", { performance_path: `${dir.path}/${name}` });
      assert.match(String(a.performance_csv_problem), problem, name);
      assert.equal(a.performance_csv, "ops_perf_results_x.csv");
    }
    const none = await callOk(client, "load_report", { performance_path: `${dir.path}/none` });
    assert.equal(none.performance_csv, null);
    assert.match(String(none.performance_csv_problem), /no ops_perf_results\*\.csv/);
    assert.equal(none.device_log, null);
  } finally {
    await close();
  }
});

Deno.test("the newest ops_perf_results CSV is the one chosen", async () => {
  // Prevents answering from a stale capture left beside a newer one.
  await using dir = await tempDir();
  const csv = await Deno.readTextFile(`${DEMO}performance/ops_perf_results_demo.csv`);
  await writeFiles(dir.path, {
    "ops_perf_results_2025_01_01.csv": csv,
    "ops_perf_results_2024_01_01.csv": csv,
  });
  await Deno.utime(
    `${dir.path}/ops_perf_results_2025_01_01.csv`,
    new Date(2020, 1, 1),
    new Date(2020, 1, 1),
  );
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: dir.path });
    assert.equal(a.performance_csv, "ops_perf_results_2024_01_01.csv");
  } finally {
    await close();
  }
});

Deno.test("a device log and a database that cannot be read are reported, not fatal", async () => {
  // Prevents a corrupt capture file from crashing load_report or being advertised as usable.
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "perf/profile_log_device.csv": new Uint8Array([0x41, 0x52, 0x43, 0x48, 0xff, 0x0a]),
    "perf2/profile_log_device.csv":
      "ARCH: blackhole, CHIP_FREQ[MHz]: 1350, Max Compute Cores: 120\nPCIe slot, core_x\n",
    "prof/db.sqlite": "this is not a database, just text that is long enough to be read",
    "prof/cluster_descriptor.yaml": "arch: {0: [unclosed\n",
  });
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: `${dir.path}/perf` });
    const log = a.device_log as Record<string, unknown>;
    assert.equal(log.decodes, false);
    assert.match(String(log.problem), /not UTF-8/);
    const b = await callOk(client, "load_report", { performance_path: `${dir.path}/perf2` });
    const log2 = b.device_log as Record<string, unknown>;
    assert.equal(log2.has_data_rows, false);
    assert.deepEqual(log2.missing_columns, [
      "timer_id",
      "zone name",
      "run host ID",
      "RISC processor type",
      "core_y",
      "time[cycles since reset]",
    ]);
    assert.deepEqual(b.arch, { device_log: "blackhole" });
    const c = await callOk(client, "load_report", { profiler_path: `${dir.path}/prof` });
    const db = c.profiler_database as Record<string, unknown>;
    assert.deepEqual(db.tables, []);
    assert.match(String(db.problem), /cannot be read as SQLite|is not a SQLite database/);
    assert.match(
      String((c.cluster_descriptor as Record<string, unknown>).problem),
      /cannot be read as YAML/,
    );
    assert.deepEqual(c.arch, {});
  } finally {
    await close();
  }
});

Deno.test("--app-url makes load_report return a link template for profiler operations", async () => {
  // Prevents an agent from building links by guesswork, or from opening a performance row's id.
  const { client, close } = await connect(["--app-url", "http://localhost:8000/"]);
  try {
    const a = await callOk(client, "load_report", { profiler_path: `${DEMO}profiler` });
    assert.equal(a.app_link_template, "http://localhost:8000/operations/{operation_id}");
    assert.match(String(a.app_link_note), /profiler operation_id \(never a performance row's id\)/);
    const perfOnly = await callOk(client, "load_report", {
      performance_path: `${DEMO}performance`,
    });
    assert.equal(perfOnly.app_link_template, undefined);
  } finally {
    await close();
  }
  const plain = await connect();
  try {
    const a = await callOk(plain.client, "load_report", { profiler_path: `${DEMO}profiler` });
    assert.equal(a.app_link_template, undefined);
  } finally {
    await plain.close();
  }
});

Deno.test("load_report states a reason shared by several tools once, with every tool it covers", async () => {
  // Prevents one reason (the missing profiler report) repeated once per tool it applies to.
  const { client, close } = await connect();
  try {
    const a = await callOk(client, "load_report", { performance_path: `${DEMO}performance` });
    const groups = a.unanswerable_reasons as { reason: string; tools: string[] }[];
    assert.ok(Array.isArray(groups), "unanswerable_reasons is a list of groups");
    const texts = groups.map((g) => g.reason);
    assert.equal(new Set(texts).size, texts.length, "each reason is stated once");
    const profiler = groups.filter((g) => /without a profiler_path/.test(g.reason));
    assert.equal(profiler.length, 1);
    assert.ok(profiler[0].tools.length > 1, "the profiler reason covers several tools");
    for (const tool of ["find_operations", "operation_detail", "memory_profile", "l1_peak"]) {
      assert.ok(profiler[0].tools.includes(tool), `${tool} is named with its reason`);
    }
    // Every unanswerable tool is still named with its reason, once, in unanswerable's order.
    assert.deepEqual(
      groups.flatMap((g) => g.tools).sort(),
      [...(a.unanswerable as string[])].sort(),
    );
  } finally {
    await close();
  }
});
