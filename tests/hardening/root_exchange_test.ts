/**
 * `--root` holds under `renameat2(RENAME_EXCHANGE)`: while a child process exchanges the
 * report directory with a symlink to an outside directory — or one report file with a symlink
 * to an outside file — in bursts as fast as it can, a client loops load_report and then every
 * tool on the handle, through the real server with its production flags, and no answer ever
 * carries a byte of the outside files (each carries a marker). Each race runs SWAP_MS (10 s;
 * set TTNN_SWAP_SOAK_MS for a longer soak). Before the walk of every component (kit/confine.ts),
 * a path resolved and stated again after the open let outside content through in about one
 * load in seven. The rarer straddled walk the settling rule closes (one load in ~2,000 under
 * the suite's load) is held by root_settle_test.ts, whose in-process race makes far more opens.
 */
import assert from "node:assert/strict";
import { connect, REPO } from "../_support/server.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { perfCsvWithSignpost, writeNamedDb } from "../../scripts/make_adversarial_inputs.ts";
import { TOOL_NAMES } from "../../src/tools/registry.ts";

/** How long each race runs. */
const SWAP_MS = Number(Deno.env.get("TTNN_SWAP_SOAK_MS") ?? 10_000);

const MARK = "OUTSIDE_SECRET";

/** The files of a report side, inside (`marked` false) or outside (true). */
async function writeSide(dir: string, side: "performance" | "profiler", marked: boolean) {
  await Deno.mkdir(dir, { recursive: true });
  if (side === "performance") {
    await Deno.writeTextFile(
      `${dir}/ops_perf_results_x.csv`,
      await perfCsvWithSignpost(marked ? MARK : "inside"),
    );
    const log = await Deno.readTextFile(`${DEMO}performance/profile_log_device.csv`);
    await Deno.writeTextFile(
      `${dir}/profile_log_device.csv`,
      marked ? log.replace("wormhole_b0", MARK) : log,
    );
  } else {
    writeNamedDb(`${dir}/db.sqlite`, marked ? MARK : "inside", marked ? `${MARK}_T` : "operations");
    await Deno.writeTextFile(
      `${dir}/cluster_descriptor.yaml`,
      `arch: {0: ${marked ? MARK : "Wormhole"}}\nchips: {0: [0, 0, 0, 0]}\n`,
    );
  }
}

interface Race {
  loads: number;
  answered: number;
  calls: number;
  leaked: string[];
  swaps: number;
}

/**
 * Races one exchange: `target` is `report` (the directory) or a file name in it. Returns the
 * loads made and answered, the tool calls made, what carried outside bytes, and the swaps.
 */
async function race(side: "performance" | "profiler", target: string): Promise<Race> {
  await using dir = await tempDir();
  const root = `${dir.path}/root`;
  const report = `${root}/report`;
  await writeSide(report, side, false);
  await writeSide(`${dir.path}/outside`, side, true);
  const swapped = target === "report" ? report : `${report}/${target}`;
  const away = `${root}/away`;
  await Deno.symlink(
    target === "report" ? `${dir.path}/outside` : `${dir.path}/outside/${target}`,
    away,
  );
  const { client, close } = await connect(["--root", root]);
  const swapper = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-ffi",
      `${REPO}scripts/_exchange_swapper.ts`,
      swapped,
      away,
      `${SWAP_MS}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const out: Race = { loads: 0, answered: 0, calls: 0, leaked: [], swaps: 0 };
  const tools = TOOL_NAMES.filter((n) => n !== "load_report" && n !== "diff_reports");
  const arg = side === "profiler" ? { profiler_path: report } : { performance_path: report };
  const seen = (r: Awaited<ReturnType<typeof client.callTool>>) =>
    (r.content as { text: string }[]).map((c) => c.text).join("\n") +
    JSON.stringify(r.structuredContent ?? null);
  const done = swapper.output();
  let running = true;
  done.then(() => (running = false));
  try {
    while (running) {
      const r = await client.callTool({ name: "load_report", arguments: arg });
      out.loads++;
      let text = seen(r);
      if (!r.isError) {
        out.answered++;
        const handle = (r.structuredContent as { handle: string }).handle;
        for (const name of tools) {
          text += seen(await client.callTool({ name, arguments: { handle } }));
          out.calls++;
        }
      }
      if (text.includes(MARK)) out.leaked.push(text.slice(0, 200));
    }
  } finally {
    const { stdout } = await done;
    out.swaps = JSON.parse(new TextDecoder().decode(stdout)).swaps;
    await close();
  }
  return out;
}

const RACES: [string, "performance" | "profiler", string][] = [
  ["the performance report directory", "performance", "report"],
  ["the profiler report directory", "profiler", "report"],
  ["the performance CSV", "performance", "ops_perf_results_x.csv"],
  ["the device log", "performance", "profile_log_device.csv"],
  ["the profiler database", "profiler", "db.sqlite"],
  ["the cluster descriptor", "profiler", "cluster_descriptor.yaml"],
];

for (const [what, side, target] of RACES) {
  Deno.test(`${what} exchanged with a symlink outside --root never yields outside bytes`, async () => {
    // Prevents a check by path after the open (realPath, then stat): a symlink exchanged in
    // between made the check see the file it was meant to reject, and its bytes were served.
    const r = await race(side, target);
    console.log(`${what}: ${JSON.stringify({ ...r, leaked: r.leaked.length })}`);
    assert.ok(r.swaps > 1000, `the swapper exchanged the paths throughout (${r.swaps})`);
    assert.deepEqual(r.leaked, [], `${r.leaked.length} of ${r.loads} loads carried outside bytes`);
    assert.ok(r.loads > 10 && r.answered > 0, `${r.loads} loads, ${r.answered} answered`);
  });
}
