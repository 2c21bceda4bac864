/**
 * program_cache for a person: per raw op code, its calls, distinct programs and how its repeat
 * calls hit or missed the program cache, as an aligned table with the totals beneath a rule,
 * then the first repeat miss of each op code and the notes in sentences.
 *
 * @module
 */
import { figure, heading, type View, wrap } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer, sentence } from "./beneath.ts";
import { linkSentence, windowOf } from "./perf_parts.ts";
import type { FieldsOf, Rendered } from "./answer.ts";
import type {
  ProgramCacheAnswer,
  ProgramCacheEntry,
  ProgramCacheTotals,
} from "../../tools/program_cache.ts";

/** A line of the table: an op code, or the totals under the op code `total`. */
type Row = ProgramCacheTotals & Partial<ProgramCacheEntry> & { op_code: string };

const COLUMNS: Column<Row>[] = [
  { header: "op code", value: (r) => r.op_code, shrink: true },
  { header: "calls", value: (r) => r.calls },
  { header: "programs", value: (r) => r.distinct_programs },
  { header: "repeats", value: (r) => r.repeat_calls },
  { header: "hits", value: (r) => r.repeat_hits },
  { header: "misses", value: (r) => r.repeat_misses },
  { header: "unrecorded", value: (r) => r.repeat_unrecorded, drop: 2 },
  { header: "no hash", value: (r) => r.calls_without_hash, drop: 3 },
  // No repeat calls: a hit rate of nothing, not an unknown one.
  { header: "hit %", value: (r) => r.repeat_calls === 0 ? "–" : r.repeat_hit_percent },
];

/** Renders a program_cache answer. */
export function render(answer: Rendered<ProgramCacheAnswer>, view: View): string[] {
  const rows: Row[] = answer.op_codes ?? [];
  const lines = heading(
    `Program cache by op code, ${windowOf(answer.projection)}: ${
      figure(answer.op_code_count)
    } op codes, most repeat misses first`,
    view,
  );
  const laid = layTable(COLUMNS, rows, view, { op_code: "total", ...answer.totals });
  lines.push(...laid.lines);
  const misses = rows.filter((r) => r.first_repeat_miss_perf_id !== null);
  const own = [
    ...(rows.some((r) => r.repeat_calls === 0)
      ? wrap("– in hit % is an op code without repeat calls: nothing to hit.", view.width, "", "  ")
      : []),
    ...tableNotes(laid, view),
  ];
  if (misses.length > 0) {
    own.push(
      ...sentence(
        "First repeat miss",
        misses.map((r) =>
          `${r.op_code} at row ${r.first_repeat_miss_perf_id}` +
          (r.first_repeat_miss_operation_id === undefined
            ? ""
            : ` (op id ${figure(r.first_repeat_miss_operation_id)})`)
        ).join(", "),
        view,
      ),
    );
  }
  const link = linkSentence(answer.operation_link);
  if (link) own.push(...sentence("Link", link, view));
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<ProgramCacheAnswer> = [
  "handle",
  "op_code_count",
  "returned",
  "op_codes",
  "totals",
  "projection",
  "operation_link",
];
