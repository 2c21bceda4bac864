// Run with the server's flags and a profiler report directory: starts the buffers scan's
// worker and prints how many rows of the table's first range it built ("failed" when it
// could not start or build it).
import { columnsSql, ColumnsWorker, parseColumns } from "../../src/profiler_db/_buffer_columns.ts";
import { probeProfilerDb } from "../../src/profiler_db/probe.ts";

const probe = (await probeProfilerDb(`${Deno.args[0]}/db.sqlite`))!;
const worker = ColumnsWorker.start(probe, columnsSql(""), [{ from: 0, to: 1 << 20 }]);
const built = worker === null ? null : await worker.take();
worker?.close();
console.log(built === null ? "failed" : `built ${parseColumns(built).op.length}`);
