// Run with the server's flags and a profiler report directory: starts the database worker on
// l1_peak's captured-graph ranges (every range of 2 rowids, the worker alone) and prints how
// many rows it read ("failed" when it read none).
import { chunkSql, type GraphAnswer, graphRanges } from "../../src/profiler_db/l1/_graph_chunks.ts";
import { probeProfilerDb } from "../../src/profiler_db/probe.ts";

const probe = (await probeProfilerDb(`${Deno.args[0]}/db.sqlite`))!;
const ranges = graphRanges(1, 1000, 2);
const worker = new Worker(new URL("../../src/profiler_db/_db_worker.ts", import.meta.url).href, {
  type: "module",
});
let rows = 0;
await new Promise<void>((resolve) => {
  worker.onmessage = (event: MessageEvent<GraphAnswer>) => {
    if (event.data.kind === "done") resolve();
    else if (event.data.kind === "chunk") rows += event.data.chunk?.ids.length ?? 0;
  };
  worker.onerror = (event) => {
    event.preventDefault();
    resolve();
  };
  worker.postMessage({
    kind: "graphs",
    path: probe.path,
    sql: chunkSql(""),
    ranges,
    claims: new SharedArrayBuffer(4 * ranges.length),
    bankCount: 64,
    maxChars: 2 ** 30,
    maxQueryBytes: 1 << 20,
    lastUses: null,
  });
});
worker.terminate();
console.log(rows === 0 ? "failed" : `read ${rows}`);
