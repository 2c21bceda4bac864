/**
 * `--root` holds under a symlink race: while a worker flips a report file's symlink between a
 * file inside the root and one outside it as fast as it can, load_report (and the tools that
 * then read the file) is called again and again for a few seconds, and no answer ever carries
 * a byte of the outside file — each load reads the file it checked, or is refused. Before the
 * fix, roots were checked on the path and the file opened by path afterwards, and about one
 * load in six returned the outside file's contents.
 */
import assert from "node:assert/strict";
import { connect } from "../_support/server.ts";
import { DEMO, tempDir } from "../_support/dirs.ts";
import { perfCsvWithSignpost, writeNamedDb } from "../../scripts/make_adversarial_inputs.ts";

/** How long each race runs. */
const RACE_MS = 3_000;

type Kind = "csv" | "log" | "db";

const NAME: Record<Kind, string> = {
  csv: "ops_perf_results_x.csv",
  log: "profile_log_device.csv",
  db: "db.sqlite",
};

/** Writes the inside and outside versions of the file; only the outside one says SECRET. */
async function files(kind: Kind, inside: string, outside: string): Promise<void> {
  if (kind === "csv") {
    await Deno.writeTextFile(inside, await perfCsvWithSignpost("inside"));
    await Deno.writeTextFile(outside, await perfCsvWithSignpost("OUTSIDE_SECRET"));
  } else if (kind === "log") {
    const log = await Deno.readTextFile(`${DEMO}performance/profile_log_device.csv`);
    await Deno.writeTextFile(inside, log);
    await Deno.writeTextFile(outside, log.replace("wormhole_b0", "OUTSIDE_SECRET"));
  } else {
    writeNamedDb(inside, "inside");
    writeNamedDb(outside, "OUTSIDE_SECRET", "OUTSIDE_SECRET_TABLE");
  }
}

/** Races `kind` for RACE_MS; returns the loads made, answered, and those with outside bytes. */
async function race(kind: Kind): Promise<{ loads: number; answered: number; leaked: string[] }> {
  await using dir = await tempDir();
  const root = `${dir.path}/root`;
  const report = `${root}/report`;
  await Deno.mkdir(report, { recursive: true });
  await Deno.mkdir(`${dir.path}/outside`);
  const inside = `${root}/inside.file`;
  const outside = `${dir.path}/outside/secret.file`;
  await files(kind, inside, outside);
  const link = `${report}/${NAME[kind]}`;
  await Deno.symlink(inside, link);
  const { client, close } = await connect(["--root", root]);
  const swapper = new Worker(
    new URL("../../scripts/_symlink_swapper.ts", import.meta.url).href,
    { type: "module" },
  );
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const flips = new Promise<number>((resolve) =>
    swapper.onmessage = (e) => (e.data === "started" ? started() : resolve(e.data))
  );
  swapper.postMessage({ link, targets: [inside, outside] });
  // The race runs from the first flip: loading the worker's module may take a while.
  await running;
  let loads = 0;
  let answered = 0;
  const leaked: string[] = [];
  try {
    const arg = kind === "db" ? { profiler_path: report } : { performance_path: report };
    const start = Date.now();
    while (Date.now() - start < RACE_MS) {
      const r = await client.callTool({ name: "load_report", arguments: arg });
      loads++;
      let text = (r.content as { text: string }[])[0].text;
      if (!r.isError) {
        answered++;
        const handle = (r.structuredContent as { handle: string }).handle;
        const then = kind === "db"
          ? await client.callTool({ name: "find_operations", arguments: { handle } })
          : kind === "log"
          ? await client.callTool({ name: "zone_timings", arguments: { handle } })
          : await client.callTool({ name: "top_ops", arguments: { handle } });
        text += (then.content as { text: string }[])[0].text;
      }
      if (text.includes("OUTSIDE_SECRET")) leaked.push(text.slice(0, 300));
    }
  } finally {
    swapper.postMessage("stop");
    assert.ok((await flips) > 100, "the swapper flipped the link throughout");
    swapper.terminate();
    await close();
  }
  return { loads, answered, leaked };
}

for (const kind of ["csv", "log", "db"] as const) {
  Deno.test(`a symlink flipped outside --root during loads never yields the outside ${NAME[kind]}`, async () => {
    // Prevents a root checked on the path and a file opened by path afterwards: a swap between
    // the two returned the outside file's contents (signposts, device-log capture, tables).
    const { loads, answered, leaked } = await race(kind);
    assert.deepEqual(leaked, [], `${leaked.length} of ${loads} loads carried outside bytes`);
    assert.ok(loads > 10 && answered > 0, `${loads} loads, ${answered} answered`);
  });
}
