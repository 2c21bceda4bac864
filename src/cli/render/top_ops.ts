/**
 * top_ops for a person: the ranked operations as an aligned table (rank, CSV row, op code, the
 * metric with its unit, cores, bound, category, the linked profiler id), the metric's total,
 * each row's `include`d fields beneath it, then the caveats and notes in sentences.
 *
 * @module
 */
import { figure, heading, listOf, phrase, recordOf, type View, withUnit, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer, sentence } from "./beneath.ts";
import {
  linkSentence,
  METRIC_HEADERS,
  METRIC_UNITS,
  METRIC_WORDS,
  windowOf,
} from "./perf_parts.ts";

type Row = Record<string, unknown>;

/** A row's fields the table itself shows or explains. */
const TABLE_FIELDS = [
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

/** Renders a top_ops answer. */
export function render(answer: Row, view: View): string[] {
  const metric = String(answer.metric);
  const rows = listOf(answer.ops);
  const devices = new Set(rows.map((r) => r.device));
  const columns: Column<Row>[] = [
    { header: "#", value: (r) => rows.indexOf(r) + 1 },
    { header: "row", value: (r) => r.id, align: "right" },
    { header: "op code", value: (r) => r.op_code, shrink: true },
    { header: METRIC_HEADERS[metric] ?? metric, value: (r) => r[metric] },
    ...(metric === "cores" ? [] : [{ header: "cores", value: cores, align: "right" as const }]),
    { header: "bound", value: (r) => r.bound, drop: 3 },
    { header: "category", value: (r) => r.op_category, drop: 4 },
    ...(devices.size > 1 ? [{ header: "device", value: (r: Row) => r.device, drop: 2 }] : []),
    { header: "op id", value: (r) => r.operation_id, drop: 1 },
  ];
  const ranked = recordOf(recordOf(answer.cut).ops).total_rows ?? answer.returned;
  const lines = heading(
    `Top ${figure(answer.returned)} of ${figure(ranked)} operations by ${
      METRIC_WORDS[metric] ?? metric
    }, ${windowOf(answer.projection)}`,
    view,
  );
  const laid = layTable(columns, rows, view);
  lines.push(...laid.lines);
  const own: string[] = [];
  const total = answer[`${metric}_total`];
  if (total !== undefined) {
    own.push(
      ...sentence(
        "Total",
        `${METRIC_WORDS[metric] ?? metric} over the ${figure(answer.op_count)} rows read: ${
          withUnit(total as number | null, METRIC_UNITS[metric] ?? "")
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
  own.push(...tableNotes(laid, view));
  const link = linkSentence(answer.operation_link);
  if (link) own.push(...sentence("Link", link, view));
  own.push(...detail(answer, rows, view));
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The `include`d fields of each row, beneath the table, and the fields the report lacks. */
function detail(answer: Row, rows: Row[], view: View): string[] {
  const lines: string[] = [];
  const fields = new Set<string>((recordOf(answer.included).fields as string[] | undefined) ?? []);
  const metric = String(answer.metric);
  const left = new Set<string>();
  rows.forEach((r, i) => {
    for (const k of Object.keys(r)) {
      if (!fields.has(k) && !TABLE_FIELDS.includes(k) && k !== metric && k !== "flags") {
        left.add(k);
      }
    }
    const extra = Object.fromEntries(
      Object.entries(r).filter(([k]) =>
        (fields.has(k) || k === "flags") && k !== metric && !TABLE_FIELDS.includes(k)
      ),
    );
    if (Object.keys(extra).length === 0) return;
    lines.push(...wrap(`#${i + 1} row ${r.id}: ${phrase(extra)}`, view.width, "", "    "));
  });
  const empty = listOf(answer.empty_in_report);
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
const SHOWN = [
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
