/**
 * `demo`: loads the sample capture bundled in `fixtures/demo/` through the same tools an
 * agent calls and prints what it holds and where its time went, for a newcomer's first run.
 *
 * @module
 */
import { callTool } from "../protocol/tool_call.ts";
import { loadTools } from "../tools/registry.ts";
import { HandleRegistry } from "../session/registry.ts";
import type { Roots } from "../kit/roots.ts";
import type { Tool, ToolEnvironment } from "../tools/tool.ts";

/** The bundled sample capture. */
export const DEMO_DIR = new URL("../../fixtures/demo/", import.meta.url);

/** Prints the demo; returns the exit code. */
export async function runDemo(
  _roots: Roots,
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const tools = await loadTools();
  const ctx: ToolEnvironment = {
    registry: new HandleRegistry(),
    roots: _roots,
    signal: new AbortController().signal,
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const called = await callTool(tools.find((t) => t.name === name) as Tool, args, ctx);
    if (called.outcome !== "ok") {
      const text = (called.result.content as { text: string }[])[0].text;
      throw new Error(`${name}: ${text}`);
    }
    return called.result.structuredContent as Record<string, unknown>;
  };
  try {
    const dir = decodeURIComponent(DEMO_DIR.pathname).replace(/^\/([A-Za-z]:)/, "$1");
    const loaded = await call("load_report", {
      profiler_path: `${dir}profiler`,
      performance_path: `${dir}performance`,
    });
    for (const line of summariseLoad(loaded)) out(line);
    for (const section of await demoSections(loaded, call)) out(section);
    out("");
    out(
      "Next: register the server with your agent (claude mcp add ttnn-visualizer -- ttnn-visualizer-mcp)",
    );
    out(
      `or ask one question here: deno task call top_ops '{"performance_path": "${dir}performance"}'`,
    );
    return 0;
  } catch (e) {
    err(`demo failed: ${(e as Error).message}`);
    return 1;
  }
}

/** The lines describing a load_report answer. */
export function summariseLoad(loaded: Record<string, unknown>): string[] {
  const lines = [`Loaded the sample capture as ${loaded.handle}.`];
  const arch = loaded.arch as Record<string, string>;
  const devices = loaded.device_count as Record<string, number>;
  for (const [file, value] of Object.entries(arch)) lines.push(`  arch (${file}): ${value}`);
  for (const [file, value] of Object.entries(devices)) lines.push(`  devices (${file}): ${value}`);
  if (loaded.performance_csv) lines.push(`  performance CSV: ${loaded.performance_csv}`);
  const signposts = (loaded.signposts ?? []) as { name: string; count: number }[];
  if (signposts.length > 0) {
    lines.push(`  signposts: ${signposts.map((s) => `${s.name} ×${s.count}`).join(", ")}`);
  }
  const db = loaded.profiler_database as { tables: string[] } | null | undefined;
  if (db) lines.push(`  profiler database tables: ${db.tables.join(", ")}`);
  const answerable = loaded.answerable as string[];
  lines.push(
    `  tools that can answer: ${answerable.length > 0 ? answerable.join(", ") : "none yet"}`,
  );
  const reasons = loaded.unanswerable_reasons as Record<string, string>;
  for (const [tool, why] of Object.entries(reasons)) lines.push(`  ${tool} cannot: ${why}`);
  const idle = loaded.data_present_without_tools as string[];
  if (idle.length > 0) lines.push(`  present, but no tool reads it yet: ${idle.join(", ")}`);
  return lines;
}

/**
 * A top_ops row's cores, saying whose count it is when tt-perf-report substituted a
 * DRAM-sharded matmul's.
 */
function coresText(row: Record<string, unknown>): string {
  if (row.cores === null || row.cores === undefined) return "no cores";
  return row.cores_source === "dram_sharded_matmul_cores"
    ? `${row.cores} cores as tt-perf-report counts a DRAM-sharded matmul; ${
      row.csv_core_count ?? "?"
    } in the CSV`
    : `${row.cores} cores`;
}

/** Sections the answerable tools add (their top rows), in tool order. */
async function demoSections(
  loaded: Record<string, unknown>,
  call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<string[]> {
  const sections: string[] = [];
  const answerable = new Set(loaded.answerable as string[]);
  if (answerable.has("top_ops")) {
    const top = await call("top_ops", { handle: loaded.handle, by: "device_time", limit: 5 });
    sections.push("", `Top operations by device time (of ${top.op_count} rows; µs):`);
    for (const row of top.ops as Record<string, unknown>[]) {
      sections.push(
        `  ${String(row.device_time).padStart(10)}  ${row.op_code}  (row ${row.id}, ${
          coresText(row)
        }, ${row.bound ?? "no bound"})`,
      );
    }
    sections.push(`  total device time: ${top.device_time_total} µs`);
    if (top.caveat) sections.push(`  note: ${top.caveat}`);
  }
  if (answerable.has("op_breakdown")) {
    const signposts = (loaded.signposts ?? []) as { name: string; count: number }[];
    const [first, second] = signposts;
    const range = first && second ? { start_signpost: first.name, end_signpost: second.name } : {};
    const where = first && second
      ? `between ${first.name} and ${second.name}`
      : "over the whole report";
    const b = await call("op_breakdown", { handle: loaded.handle, limit: 5, ...range });
    sections.push("", `Where the time went ${where} (${b.op_count} ops):`);
    for (const g of b.groups as Record<string, unknown>[]) {
      sections.push(
        `  ${String(g.group).padEnd(40)} ${String(g.count).padStart(3)} ops  ` +
          `${String(g.device_time_share_percent).padStart(5)}% of device time, ` +
          `${String(g.op_to_op_gap_share_percent ?? 0).padStart(5)}% of op-to-op gaps`,
      );
    }
  }
  if (answerable.has("lower_bounds")) {
    const lb = await call("lower_bounds", { handle: loaded.handle, limit: 3 });
    sections.push(
      "",
      `Furthest from the theoretical limit (${lb.dram_bandwidth_gbps} GB/s DRAM; µs):`,
    );
    for (const e of lb.entries as Record<string, unknown>[]) {
      const split = e.gap_split as Record<string, unknown> | undefined;
      sections.push(
        `  gap ${
          String(e.gap_us).padStart(9)
        }  measured ${e.measured_us}, limit ${e.lower_bound_us} ` +
          `(${e.limited_by})  ${e.op_code} ×${e.count}` +
          (split
            ? `: ${split.not_kept_busy_us} µs cores not kept busy + ${split.too_few_cores_us} µs ` +
              `too few cores (${split.cores_used} used, ${split.cores_needed_for_limit} needed)`
            : e.compute_modelled === false
            ? `: no compute model, a DRAM floor (perf model's ideal ${e.model_ideal_us ?? "?"} µs)`
            : ""),
      );
    }
  }
  if (answerable.has("device_timeline")) {
    const t = await call("device_timeline", { handle: loaded.handle });
    const fw = t.firmware as Record<string, unknown>;
    sections.push(
      "",
      `Device ${t.device} busy ${t.busy_us} µs over ${t.operations} ops: ${t.op_interval_sum_us} µs ` +
        `in op intervals + ${t.gap_sum_us} µs of gaps (summing firmware intervals instead gives ` +
        `${fw.interval_sum_us} µs, ${fw.sum_to_busy_ratio}× busy)`,
    );
  }
  if (answerable.has("core_spread")) {
    const cs = await call("core_spread", { handle: loaded.handle, limit: 1 });
    const op = (cs.operations as Record<string, unknown>[])[0];
    if (op?.in_log) {
      const span = op.span_us as Record<string, number>;
      sections.push(
        "",
        `Inside the costliest op (row ${op.id}, ${op.op_code}): ${op.cores_recorded} of the CSV's ` +
          `${op.core_count} cores recorded zones in the device log; per-core span min ${span.min} / median ${span.median} / max ${span.max} µs, ` +
          `imbalance ${op.imbalance}`,
      );
    }
  }
  return sections;
}
