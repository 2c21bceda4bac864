/**
 * top_ops for a person: the ranked operations as an aligned table (rank, CSV row, op code, the
 * metric with its unit, cores, bound, category, the linked profiler id), the metric's total,
 * each row's `include`d fields beneath it, then the caveats and notes in sentences.
 *
 * @module
 */
import { figure, heading, phrase, type View, withUnit, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer, sentence } from "./beneath.ts";
import {
  linkSentence,
  METRIC_HEADERS,
  METRIC_UNITS,
  METRIC_WORDS,
  windowOf,
} from "./perf_parts.ts";
import type { FieldOf, FieldsOf, Rendered } from "./answer.ts";
import type { TopOpsAnswer, TopOpsRow } from "../../tools/top_ops.ts";

type Row = TopOpsRow;
type Answer = Rendered<TopOpsAnswer>;

/** A row's fields the table itself shows or explains. */
const TABLE_FIELDS: FieldsOf<Row> = [
  "id",
  "op_code",
  "cores",
  "cores_source",
  "csv_core_count",
  "bound",
  "op_category",
  "device",
  "operation_id",
];

/** A row's cores, starred where tt-perf-report substituted a DRAM-sharded matmul's count. */
function cores(row: Row): string {
  if (row.cores === null || row.cores === undefined) return figure(row.cores);
  return row.cores_source === "dram_sharded_matmul_cores"
    ? `${figure(row.cores)}*`
    : figure(row.cores);
}

/** tt-perf-report's per-row columns, when the rows carry them (`include`), in its order. */
const PERF_COLUMNS: readonly { field: FieldOf<Row>; header: string; drop: number }[] = [
  { field: "op_to_op_gap", header: "gap µs", drop: 1 },
  { field: "dram", header: "DRAM GB/s", drop: 7 },
  { field: "dram_percent", header: "DRAM %", drop: 2 },
  { field: "flops", header: "TFLOPs", drop: 8 },
  { field: "flops_percent", header: "FLOPs %", drop: 3 },
  { field: "math_fidelity", header: "fidelity", drop: 5 },
];

/** The fields the table shows as tt-perf-report's columns. */
const PERF_FIELDS: FieldsOf<Row> = PERF_COLUMNS.map((c) => c.field);

/** The row's named fields (not only those `include` adds), as plain names. */
const ROW_COLUMNS: ReadonlySet<string> = new Set([...TABLE_FIELDS, ...PERF_FIELDS]);

/**
 * Where an included field's column stands in the leaving-out order: asked for, it outlasts the
 * category, device and op id columns, and goes before tt-perf-report's own.
 */
const INCLUDED_DROP = 8;

/** An included field's column header: its name, the model's `pm_` and the unit words short. */
export function includedHeader(name: string): string {
  return name.replace(/^pm_/, "").replace(/_us$/, " µs").replace(/_percent$/, " %")
    .replaceAll("_", " ");
}

/** Renders a top_ops answer. */
export function render(answer: Answer, view: View): string[] {
  const metric = answer.metric;
  const rows = answer.ops ?? [];
  const devices = new Set(rows.map((r) => r.device));
  const has = (field: FieldOf<Row>) => rows.some((r) => r[field] !== undefined);
  const linked = answer.operation_link?.status === "linked" ||
    rows.some((r) => r.operation_id !== null && r.operation_id !== undefined);
  const unasked = new Set(view.unasked ?? []);
  const extra = includedColumns(answer, rows, unasked);
  // The op code holds the shape: every other column is left out before it is shortened.
  const columns: Column<Row>[] = [
    { header: "#", value: (r) => rows.indexOf(r) + 1 },
    { header: "row", value: (r) => r.id, align: "right" },
    { header: "op code", value: (r) => r.op_code, shrink: true, floor: Infinity },
    { header: METRIC_HEADERS[metric] ?? metric, value: (r) => r[metric] },
    ...PERF_COLUMNS.filter((c) => c.field !== metric && has(c.field)).map((c) => ({
      header: c.header,
      value: (r: Row) => r[c.field],
      drop: c.drop,
    })),
    ...(metric === "cores"
      ? []
      : [{ header: "cores", value: cores, align: "right" as const, drop: 4 }]),
    { header: "bound", value: (r) => r.bound, drop: 6 },
    { header: "category", value: (r) => r.op_category, drop: 10 },
    ...(devices.size > 1 ? [{ header: "device", value: (r: Row) => r.device, drop: 9 }] : []),
    ...(linked ? [{ header: "op id", value: (r: Row) => r.operation_id, drop: 11 }] : []),
    ...extra.map((field, i) => ({
      header: includedHeader(field),
      value: (r: Row) => r[field],
      drop: INCLUDED_DROP + (extra.length - i) / (extra.length + 1),
    })),
  ];
  const ranked = answer.cut?.ops?.total_rows ?? answer.returned;
  const lines = heading(
    `Top ${figure(answer.returned)} of ${figure(ranked)} operations by ${
      METRIC_WORDS[metric] ?? metric
    }, ${windowOf(answer.projection)}`,
    view,
  );
  const laid = layTable(columns, rows, view);
  lines.push(...laid.lines);
  // An included field whose column did not fit is said beneath, row by row.
  const asColumns = extra.filter((f) => !laid.dropped.includes(includedHeader(f)));
  const own: string[] = [];
  const total = metric === "device_time" || metric === "op_to_op_gap" ||
      metric === "total_percent"
    ? answer[`${metric}_total`]
    : undefined;
  if (total !== undefined) {
    own.push(
      ...sentence(
        "Total",
        `${METRIC_WORDS[metric] ?? metric} over the ${figure(answer.op_count)} rows read: ${
          withUnit(total, METRIC_UNITS[metric] ?? "")
        }`,
        view,
      ),
    );
  }
  if (rows.some((r) => r.cores_source === "dram_sharded_matmul_cores")) {
    own.push(
      ...wrap(
        "* cores as tt-perf-report counts a DRAM-sharded matmul; the CSV's own count: " +
          rows.filter((r) => r.cores_source === "dram_sharded_matmul_cores")
            .map((r) => `row ${r.id} ${figure(r.csv_core_count)}`).join(", ") +
          ".",
        view.width,
        "",
        "  ",
      ),
    );
  }
  own.push(
    ...tableNotes({
      ...laid,
      dropped: laid.dropped.filter((h) => !extra.some((f) => includedHeader(f) === h)),
    }, view),
  );
  const block = answer.operation_link;
  const link = linked || block?.status === undefined
    ? linkSentence(block)
    : `no op id column: the rows are not linked to a profiler report (${figure(block.status)}${
      block.reason ? `: ${block.reason}` : ""
    }).`;
  if (link) own.push(...sentence("Link", link, view));
  own.push(...detail(answer, rows, new Set([...asColumns, ...unasked]), view));
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The `include`d fields the person asked for that the table has no column of its own for. */
function includedColumns(answer: Answer, rows: Row[], unasked: Set<string>): string[] {
  const metric = answer.metric;
  const fields = answer.included?.fields ?? [];
  return fields.filter((f) =>
    !unasked.has(f) && !ROW_COLUMNS.has(f) && f !== metric &&
    rows.some((r) => r[f] !== undefined) &&
    rows.every((r) => r[f] === null || typeof r[f] !== "object")
  );
}

/**
 * Beneath the table: the `include`d fields not `shown` as columns (and `flags`), row by row; the fields the report lacks; and the fields of the rows not shown at all.
 */
function detail(
  answer: Answer,
  rows: Row[],
  shown: Set<string>,
  view: View,
): string[] {
  const lines: string[] = [];
  const fields = new Set<string>(answer.included?.fields ?? []);
  const metric = answer.metric;
  const columns = new Set<string>([...ROW_COLUMNS, metric]);
  const left = new Set<string>();
  rows.forEach((r, i) => {
    for (const k of Object.keys(r)) {
      if (!fields.has(k) && !columns.has(k) && k !== "flags") left.add(k);
    }
    const extra = Object.fromEntries(
      Object.entries(r).filter(([k]) =>
        k === "flags" ||
        (fields.has(k) && !columns.has(k) && !shown.has(k))
      ),
    );
    if (Object.keys(extra).length === 0) return;
    lines.push(...wrap(`#${i + 1} row ${r.id}: ${phrase(extra)}`, view.width, "", "    "));
  });
  const empty = (answer.empty_in_report ?? []).filter((e) =>
    !(view.unasked ?? []).includes(e.field) || (PERF_FIELDS as readonly string[]).includes(e.field)
  );
  if (empty.length > 0) {
    lines.push(
      ...sentence(
        "Empty in this report",
        empty.map((e) =>
          `${e.field} (${e.group}: ${e.why}${e.column ? `, column ${e.column}` : ""})`
        ).join(", "),
        view,
      ),
    );
  }
  if (left.size > 0) {
    lines.push(
      ...wrap(`Rows also carry ${[...left].join(", ")} (in --json).`, view.width, "", "  "),
    );
  }
  return lines.length > 0 ? ["", ...lines] : [];
}

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<TopOpsAnswer> = [
  "handle",
  "metric",
  "op_count",
  "returned",
  "ops",
  "projection",
  "basis",
  "operation_link",
  "device_time_total",
  "op_to_op_gap_total",
  "total_percent_total",
  "included",
  "empty_in_report",
];
