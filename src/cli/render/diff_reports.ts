/**
 * diff_reports for a person: per op code, the metric before and after the change and the
 * delta, largest movement first, as an aligned table with the totals beneath a rule.
 *
 * @module
 */
import { figure, heading, type View, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer } from "./beneath.ts";
import { METRIC_UNITS, METRIC_WORDS, windowOf } from "./perf_parts.ts";
import type { FieldsOf, Rendered } from "./answer.ts";
import type { DiffReportsAnswer, DiffReportsChange } from "../../tools/diff_reports.ts";

/** A line of the table: an op code's change, or the totals under the op code `total`. */
type Row = Omit<DiffReportsChange, "count_before" | "count_after"> & Partial<DiffReportsChange>;

/** A delta with its sign, so a growth and a saving read apart. */
function signed(value: unknown): unknown {
  return typeof value === "number" && value > 0 ? `+${figure(value)}` : value;
}

/** Renders a diff_reports answer. */
export function render(answer: Rendered<DiffReportsAnswer>, view: View): string[] {
  const metric = answer.metric;
  const unit = METRIC_UNITS[metric] ?? "";
  const columns: Column<Row>[] = [
    { header: "op code", value: (r) => r.op_code, shrink: true },
    {
      header: "ops",
      value: (r) => r.count_before === undefined ? "" : `${r.count_before} → ${r.count_after}`,
      align: "right",
      drop: 1,
    },
    { header: `before ${unit}`, value: (r) => r[`${metric}_before`] },
    { header: `after ${unit}`, value: (r) => r[`${metric}_after`] },
    { header: `Δ ${unit}`, value: (r) => signed(r.delta), align: "right" },
  ];
  const changes: Row[] = answer.changes ?? [];
  const projection = answer.projection ?? {};
  const lines = heading(
    `${METRIC_WORDS[metric] ?? metric} by op code, ${figure(answer.before)} (before, ${
      windowOf(projection.before)
    }) → ${figure(answer.after)} (after, ${windowOf(projection.after)}): ${
      figure(answer.returned)
    } of ${figure(answer.op_code_count)} op codes, largest movement first`,
    view,
  );
  const laid = layTable(columns, changes, view, {
    op_code: "total",
    [`${metric}_before`]: answer[`${metric}_total_before`],
    [`${metric}_after`]: answer[`${metric}_total_after`],
    delta: answer.delta_total,
  });
  lines.push(...laid.lines);
  const own = [
    ...wrap(
      "Δ is after − before: negative is less (faster, for a time). An op code missing from one " +
        "report counts 0 operations there.",
      view.width,
      "",
      "  ",
    ),
    ...tableNotes(laid, view),
  ];
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<DiffReportsAnswer> = [
  "metric",
  "before",
  "after",
  "op_code_count",
  "returned",
  "changes",
  "projection",
  "grouped_by",
  "delta_total",
  ...(["device_time", "op_to_op_gap", "total_percent"] as const).flatMap((m) => [
    `${m}_total_before` as const,
    `${m}_total_after` as const,
  ]),
];
