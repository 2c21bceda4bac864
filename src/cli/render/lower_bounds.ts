/**
 * lower_bounds for a person: operations ranked by their gap to the theoretical limit, as an
 * aligned table (measured, limit, gap, ratio, what limits it, DRAM bandwidth reached), the
 * totals beneath a rule, how the gap splits, and what this answer's limits assume (the
 * method and the assumptions every limit rests on are notes, said on --explain).
 *
 * @module
 */
import { figure, heading, type View, withUnit, wrap } from "./text.ts";
import { noteById } from "../../tools/notes.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer, sentence } from "./beneath.ts";
import { windowOf } from "./perf_parts.ts";
import type { FieldsOf, Rendered } from "./answer.ts";
import type {
  BoundArchitecture,
  LowerBoundsAnswer,
  LowerBoundsEntry,
  LowerBoundsTotals,
} from "../../tools/lower_bounds.ts";

/** A line of the table: an entry, or the totals (their op code and times only). */
type Row = Pick<LowerBoundsEntry, "op_code"> & Partial<LowerBoundsEntry>;

/** The entry's limiting resource, starred when it is a DRAM floor for want of a compute model. */
function limitedBy(r: Row): string {
  return r.compute_modelled === false ? `${figure(r.limited_by)}*` : figure(r.limited_by);
}

/** Renders a lower_bounds answer. */
export function render(answer: Rendered<LowerBoundsAnswer>, view: View): string[] {
  // An answer may come partial (a test's, a hand-made one): what it lacks reads as unknown.
  const entries: Row[] = answer.entries ?? [];
  const totals: Partial<LowerBoundsTotals> = answer.totals ?? {};
  const total: Row = {
    op_code: `total (${figure(totals.rows)} rows)`,
    measured_us: totals.measured_us,
    lower_bound_us: totals.lower_bound_us,
    gap_us: totals.gap_us,
  };
  const columns: Column<Row>[] = [
    { header: "#", value: (r) => r === total ? "" : entries.indexOf(r) + 1 },
    // The label holds the shape (three rows of `Matmul` read alike): every other column is left
    // out before it is shortened.
    { header: "op code", value: (r) => r.label ?? r.op_code, shrink: true, floor: Infinity },
    { header: "n", value: (r) => r === total ? undefined : r.count ?? 1 },
    { header: "measured µs", value: (r) => r.measured_us },
    { header: "limit µs", value: (r) => r.lower_bound_us },
    { header: "gap µs", value: (r) => r.gap_us },
    { header: "×", value: (r) => r.ratio, drop: 2 },
    { header: "limited by", value: (r) => r === total ? "" : limitedBy(r), align: "left" },
    { header: "DRAM %", value: (r) => r.effective_dram_percent, drop: 3 },
    { header: "rows", value: (r) => r.ids ?? r.id, shrink: true, floor: 8, drop: 4 },
    { header: "shape", value: (r) => r.shape, shrink: true, floor: 30, drop: 5 },
  ];
  const arch: Partial<BoundArchitecture> = answer.architecture ?? {};
  const lines = heading(
    `Furthest from the theoretical limit, ${windowOf(answer.projection)}: ${
      figure(answer.returned)
    } of ${figure(answer.entry_count)} ${answer.group_by === "op" ? "op codes" : "shapes"} on ${
      figure(arch.name)
    } (${figure(arch.worker_cores)} worker cores, ${
      figure(answer.dram_bandwidth_gbps)
    } GB/s DRAM from ${figure(answer.dram_bandwidth_from)})`,
    view,
  );
  const laid = layTable(columns, entries, view, total);
  lines.push(...laid.lines);
  const own = [
    ...sentence(
      "Gap split",
      `of the entries with a compute model, ${
        withUnit(totals.not_kept_busy_us, "µs")
      } is cores not kept busy, ${
        withUnit(totals.dram_not_kept_busy_us, "µs")
      } DRAM below its bandwidth and ${withUnit(totals.too_few_cores_us, "µs")} too few cores.`,
      view,
    ),
  ];
  // The star's legend is the note the answer names for such entries, said here once.
  const said: string[] = [];
  if (entries.some((r) => r.compute_modelled === false)) {
    said.push("lower_bounds.dram_only");
    own.push(
      ...wrap(
        `* ${noteById("lower_bounds.dram_only")!.text.replace(/\.$/, "")}${modelIdeals(entries)}.`,
        view.width,
        "",
        "  ",
      ),
    );
  }
  own.push(...tableNotes(laid, view));
  // What this answer's bounds assume beyond every bound's (the note, on --explain).
  for (const a of answer.assumptions ?? []) own.push(...sentence("Assumed", a, view));
  return [...lines, ...footer(answer, SHOWN, view, own, said)];
}

/** The performance model's own ideal times of the entries without a compute model. */
function modelIdeals(entries: Row[]): string {
  const ideals = entries.filter((r) => r.compute_modelled === false && r.model_ideal_us != null)
    .map((r) => `#${entries.indexOf(r) + 1} ${figure(r.model_ideal_us)} µs`);
  return ideals.length > 0 ? `; the performance model's ideal: ${ideals.join(", ")}` : "";
}

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<LowerBoundsAnswer> = [
  "handle",
  "group_by",
  "architecture",
  "dram_bandwidth_gbps",
  "dram_bandwidth_from",
  "entry_count",
  "returned",
  "entries",
  "totals",
  "assumptions",
  "projection",
];
