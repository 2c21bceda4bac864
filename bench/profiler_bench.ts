/**
 * `deno run --allow-read --allow-write --allow-run --allow-env bench/profiler_bench.ts [--ops N]
 * [--rounds R]`: times find_operations and memory_profile on a generated profiler database of
 * N operations (200,000 by default) — a W1-shaped report with five live buffers per operation
 * (three DRAM, two L1: one persistent, one the operation's own output), a CPython trace per
 * operation and one device — written into a temporary directory and deleted afterwards.
 *
 * Reports, in-process: load_report (the probe: tables, columns, devices), then each call's
 * time on a fresh handle (cold: opens the connection, scans; in a session of its own, since
 * one session's loads of an unchanged report share its work) and repeated on one handle, as
 * medians of R rounds (5 by default) with min–max; and the whole process — `mod.ts call`,
 * with the server's permission flags. Prints a markdown table; copy it into bench/RESULTS.md
 * with the machine and date.
 */
import { DatabaseSync } from "node:sqlite";
import { session } from "../tests/_support/in_process.ts";
import { PERMISSION_FLAGS } from "../src/kit/permissions.ts";
import { createSchema, spread } from "./_profiler_db.ts";

const opsArg = Deno.args.indexOf("--ops");
const OPS = opsArg >= 0 ? Number(Deno.args[opsArg + 1]) : 200_000;
const roundsArg = Deno.args.indexOf("--rounds");
const ROUNDS = roundsArg >= 0 ? Number(Deno.args[roundsArg + 1]) : 5;
const root = new URL("../", import.meta.url).pathname;

const dir = await Deno.makeTempDir({ prefix: "ttnn-mcp-bench-" });
try {
  const t0 = performance.now();
  const size = generate(`${dir}/db.sqlite`, OPS);
  console.error(
    `generated ${OPS} operations (${(size / 2 ** 20).toFixed(0)} MiB) in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s`,
  );
  const rows: string[] = [];
  const s = session();
  let t = performance.now();
  const { handle } = await s.call("load_report", { profiler_path: dir });
  rows.push(`| load_report (probe) | ${ms(performance.now() - t)} | – |`);
  const calls: [string, string, Record<string, unknown>][] = [
    ["find_operations name_contains", "find_operations", { name_contains: "matmul", limit: 10 }],
    ["find_operations called_from", "find_operations", {
      called_from: "attention.py",
      limit: 10,
    }],
    ["memory_profile (all types, l1_pressure)", "memory_profile", { limit: 10 }],
    ["memory_profile buffer_type L1", "memory_profile", { buffer_type: "L1", limit: 10 }],
  ];
  for (const [label, tool, args] of calls) {
    // Cold: a fresh handle each round (its own connection, nothing derived yet) — in a fresh
    // session, since one session's loads of an unchanged report share one report's work.
    const cold: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const own = session();
      const fresh = (await own.call("load_report", { profiler_path: dir })).handle;
      if (tool === "memory_profile" && args.buffer_type) {
        await own.call(tool, { handle: fresh, limit: 10 }); // the scan is shared with the call above
      }
      t = performance.now();
      await own.call(tool, { handle: fresh, ...args });
      cold.push(performance.now() - t);
    }
    const warm: number[] = [];
    await s.call(tool, { handle, ...args }); // the first call on this handle is a cold one
    for (let i = 0; i < ROUNDS; i++) {
      t = performance.now();
      await s.call(tool, { handle, ...args });
      warm.push(performance.now() - t);
    }
    rows.push(`| ${label} | ${spread(cold)} | ${spread(warm)} |`);
  }
  for (const tool of ["find_operations", "memory_profile"]) {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      t = performance.now();
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...PERMISSION_FLAGS, `${root}mod.ts`, "call", tool, "{}", "--profiler", dir],
        stdout: "null",
        stderr: "null",
      }).output();
      if (out.code !== 0) throw new Error(`call ${tool} failed`);
      times.push(performance.now() - t);
    }
    rows.push(`| whole process: \`mod.ts call ${tool}\` | ${spread(times)} | – |`);
  }
  console.log(
    `${OPS.toLocaleString("en")} operations, ${(OPS * 5).toLocaleString("en")} buffers rows, ${
      (size / 2 ** 20).toFixed(0)
    } MiB\n\n| call (median of ${ROUNDS} (min–max)) | first on a fresh handle | repeated |\n|---|---:|---:|\n${
      rows.join("\n")
    }`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}

function ms(x: number): string {
  return `${x.toFixed(0)} ms`;
}

/** Writes the database; returns its size in bytes. */
function generate(path: string, ops: number): number {
  const db = new DatabaseSync(path);
  createSchema(db, ["operation_arguments", "stack_traces"]);
  const names = ["ttnn.matmul", "ttnn.add", "ttnn.softmax", "ttnn.layer_norm", "ttnn.reshape"];
  const files = ["attention.py", "mlp.py", "decoder.py", "embedding.py"];
  const op = db.prepare("INSERT INTO operations VALUES (?, ?, ?)");
  const trace = db.prepare("INSERT INTO stack_traces VALUES (?, ?)");
  const arg = db.prepare("INSERT INTO operation_arguments VALUES (?, ?, ?)");
  const buf = db.prepare("INSERT INTO buffers VALUES (?, 0, ?, ?, ?)");
  db.exec("BEGIN");
  for (let id = 1; id <= ops; id++) {
    const name = names[id % names.length];
    op.run(id, name, 0.0001 * (id % 97));
    const file = files[id % files.length];
    trace.run(
      id,
      `  File "/home/user/tt-metal/models/tt_transformers/tt/${file}", line ${
        id % 500
      }, in forward\n` +
        `    x = ${name}(x)\n\n` +
        `  File "/home/user/tt-metal/models/tt_transformers/tt/model.py", line 120, in forward\n` +
        `    x = layer(x)\n\n` +
        `  File "/home/user/tt-metal/models/tt_transformers/tests/test_model.py", line 88, in test_model\n` +
        `    out = model(x)\n`,
    );
    arg.run(id, "memory_config", "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED)");
    buf.run(id, 1920032, 34816, 0);
    buf.run(id, 1954848, 6144, 0);
    buf.run(id, 1960992 + 2048 * (id % 7), 2048, 0);
    buf.run(id, 1474560 - 8192, 8192, 1);
    buf.run(id, 1474560 - 8192 - 2048 * (1 + (id % 13)), 2048 * (1 + (id % 13)), 1);
  }
  db.exec("COMMIT");
  db.close();
  return Deno.statSync(path).size;
}
