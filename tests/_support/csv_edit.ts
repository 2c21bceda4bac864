/** Test support: performance CSVs made by editing the demo capture's, cell by column name. */
import { parseCsvTable } from "../../src/perf_report/csv_table.ts";
import { DEMO } from "./dirs.ts";

/** One CSV row as column → cell. */
export type Cells = Record<string, string>;

/** The demo performance CSV's text. */
export function demoCsvText(): string {
  return Deno.readTextFileSync(`${DEMO}performance/ops_perf_results_demo.csv`);
}

/**
 * The demo CSV (or `text`) with its rows edited: `edit` may change cells (adding a column by
 * naming it), return false to drop the row, or return extra rows to insert after it.
 */
export function editCsv(
  edit: (row: Cells, index: number) => void | boolean | Cells[],
  options: { text?: string; drop?: string[]; repeat?: number } = {},
): string {
  const table = parseCsvTable(options.text ?? demoCsvText(), "demo.csv");
  const header = [...table.header];
  const out: Cells[] = [];
  const source = Array.from({ length: options.repeat ?? 1 }, () => table.rows).flat();
  source.forEach((cells, i) => {
    const row: Cells = Object.fromEntries(header.map((h, j) => [h, cells[j] ?? ""]));
    const r = edit(row, i);
    if (r === false) return;
    out.push(row);
    if (Array.isArray(r)) out.push(...r);
  });
  for (const row of out) for (const k of Object.keys(row)) if (!header.includes(k)) header.push(k);
  const columns = header.filter((h) => !(options.drop ?? []).includes(h));
  const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  return [columns.join(","), ...out.map((r) => columns.map((c) => quote(r[c] ?? "")).join(","))]
    .join("\n") + "\n";
}
