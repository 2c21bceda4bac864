/**
 * op_breakdown for a person: the groups as an aligned table (count, device time and op-to-op
 * gap with their shares, Total %), the groups past the limit as one `rest` row, the totals
 * beneath a rule, then the caveats and notes in sentences.
 *
 * @module
 */
import { count, figure, heading, type View, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer } from "./beneath.ts";
import { METRIC_WORDS, windowOf } from "./perf_parts.ts";
import type { FieldsOf, Rendered } from "./answer.ts";
import type { OpBreakdownAnswer, OpBreakdownGroup } from "../../tools/op_breakdown.ts";

/** A line of the table: a group, the rest summed, or the totals (its count and times only). */
type Row =
  & Pick<OpBreakdownGroup, "group" | "count" | "device_time" | "op_to_op_gap">
  & Partial<OpBreakdownGroup>;

const COLUMNS: Column<Row>[] = [
  { header: "group", value: (r) => r.group, shrink: true },
  { header: "ops", value: (r) => r.count },
  { header: "device µs", value: (r) => r.device_time },
  { header: "device %", value: (r) => r.device_time_share_percent },
  { header: "gap µs", value: (r) => r.op_to_op_gap, drop: 2 },
  { header: "gap %", value: (r) => r.op_to_op_gap_share_percent },
  { header: "Total %", value: (r) => r.total_percent, drop: 1 },
];

/** Renders an op_breakdown answer. */
export function render(answer: Rendered<OpBreakdownAnswer>, view: View): string[] {
  const groups: Row[] = answer.groups ?? [];
  const rest = answer.rest ?? null;
  const rows = rest === null
    ? groups
    : [...groups, { ...rest, group: `rest (${count(rest.group_count, "group")})` }];
  const total: Row = {
    group: "total",
    count: answer.op_count,
    device_time: answer.device_time_total,
    op_to_op_gap: answer.op_to_op_gap_total,
  };
  const by = answer.by;
  const lines = heading(
    `Where the time went by ${answer.group_by === "op_category" ? "op category" : "op"}, ` +
      `${windowOf(answer.projection)}: ${figure(answer.group_count)} groups, ` +
      `most ${METRIC_WORDS[by] ?? by} first`,
    view,
  );
  const laid = layTable(COLUMNS, rows, view, total);
  lines.push(...laid.lines);
  const own = [
    ...wrap(
      "Shares are of the window's device time and op-to-op gap; a row's gap is the dispatch " +
        "wait before it. Total % is tt-perf-report's, summed.",
      view.width,
      "",
      "  ",
    ),
    ...tableNotes(laid, view),
  ];
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<OpBreakdownAnswer> = [
  "handle",
  "group_by",
  "by",
  "group_count",
  "returned",
  "groups",
  "rest",
  "op_count",
  "device_time_total",
  "op_to_op_gap_total",
  "projection",
  "basis",
];
