/**
 * device_timeline for a person: the window's time as one bar — operation intervals, the gaps
 * between them and, when a wall time was given, the host wait — with each part's µs and share
 * beneath it, then the time per op code, the largest gaps and category as tables, and the
 * reconciliation with tt-perf-report's figures in sentences. Host wait without a wall time is
 * unknown, and said so, never drawn as none.
 *
 * @module
 */
import { figure, flow, heading, type View, withUnit } from "./text.ts";
import { type Column, layTable, tableNotes } from "./table.ts";
import { footer, sentence } from "./beneath.ts";
import { windowOf } from "./perf_parts.ts";
import type { FieldsOf, Rendered } from "./answer.ts";
import type {
  CategoryTime,
  DeviceTimelineAnswer,
  GapEntry,
  OpCodeTime,
  OpLabel,
} from "../../tools/device_timeline.ts";

type Answer = Rendered<DeviceTimelineAnswer>;

/** One part of the bar. */
export interface Segment {
  label: string;
  us: number;
  glyph: string;
  /** ANSI foreground colour where colour is on. */
  colour: number;
}

/**
 * `segments` as one bar of `width` columns, each part's length in proportion to its time (a
 * part above zero gets at least one column).
 *
 * @example
 * ```ts
 * import { bar } from "./device_timeline.ts";
 * const b = bar([
 *   { label: "ops", us: 75, glyph: "█", colour: 32 },
 *   { label: "gaps", us: 25, glyph: "░", colour: 33 },
 * ], 8, { width: 80, colour: false });
 * if (b !== "██████░░") throw new Error(b);
 * ```
 */
export function bar(segments: readonly Segment[], width: number, view: View): string {
  const total = segments.reduce((s, g) => s + Math.max(0, g.us), 0);
  if (total <= 0) return "";
  const lengths = segments.map((g) =>
    g.us > 0 ? Math.max(1, Math.round((g.us / total) * width)) : 0
  );
  // Rounding can overshoot or undershoot by a column or two: the longest part absorbs it.
  const longest = lengths.indexOf(Math.max(...lengths));
  lengths[longest] += width - lengths.reduce((s, n) => s + n, 0);
  const paint = (text: string, colour: number) =>
    view.colour ? `\x1b[${colour}m${text}\x1b[39m` : text;
  return segments.map((g, i) => paint(g.glyph.repeat(lengths[i]), g.colour)).join("");
}

function share(us: number, of: number): string {
  return of > 0 ? `${Math.round((us / of) * 1000) / 10} %` : "? %";
}

/** Renders a device_timeline answer. */
export function render(answer: Answer, view: View): string[] {
  const busy = answer.busy_us;
  const gaps = answer.gap_sum_us;
  const hostWait = typeof answer.host_wait_us === "number" ? answer.host_wait_us : null;
  const segments: Segment[] = [
    { label: "op intervals", us: busy - gaps, glyph: "█", colour: 32 },
    { label: "gaps", us: gaps, glyph: "▒", colour: 33 },
    ...(hostWait !== null && hostWait > 0
      ? [{ label: "host wait", us: hostWait, glyph: "░", colour: 31 }]
      : []),
  ];
  const whole = busy + (hostWait !== null && hostWait > 0 ? hostWait : 0);
  const lines = heading(
    `Device ${figure(answer.device)}, ${windowOf(answer.projection)}: ${
      figure(answer.operations)
    } operations, busy ${withUnit(answer.busy_us, "µs")} at ${figure(answer.clock_mhz)} MHz`,
    view,
  );
  lines.push(bar(segments, view.width, view));
  const key = (g: Segment) =>
    `${view.colour ? `\x1b[${g.colour}m${g.glyph}\x1b[39m` : g.glyph} ${g.label} ${
      withUnit(g.label === "op intervals" ? answer.op_interval_sum_us : g.us, "µs")
    } (${share(g.us, whole)})`;
  const legend = [
    ...segments.map(key),
    ...(hostWait === null
      ? ["host wait unknown: pass --wall-time-us (the window's measured wall-clock time)"]
      : []),
  ];
  lines.push(...flow(legend, view.width));
  const own: string[] = [];
  if (answer.residual_us !== 0) {
    own.push(
      ...sentence(
        "Overlap",
        `${figure(answer.overlapping_op_pairs)} pairs of op intervals overlap; residual ${
          withUnit(answer.residual_us, "µs")
        } (op_interval_sum + gap_sum + residual = busy).`,
        view,
      ),
    );
  }
  if (hostWait !== null && hostWait <= 0) {
    own.push(
      ...sentence(
        "Host wait",
        `${withUnit(hostWait, "µs")}: the wall time given is not longer than busy time, so it ` +
          "was not measured over the same window; the bar leaves it out.",
        view,
      ),
    );
  }
  lines.push(...tables(answer, view, own));
  // An answer may come partial (a test's, a hand-made one): what it lacks reads as unknown.
  const perf = answer.tt_perf_report ?? {};
  const firmware = answer.firmware ?? {};
  own.push(
    ...sentence(
      "tt-perf-report",
      `over the same ${figure(perf.rows)} rows: device time ${
        withUnit(perf.device_time_sum_us, "µs")
      }, op-to-op gaps ${withUnit(perf.op_to_op_gap_sum_us, "µs")}, firmware ` +
        `tails ${withUnit(perf.firmware_tail_sum_us, "µs")}${
          view.explain ? "" : " (why they differ, and the firmware: --explain)"
        }.`,
      view,
    ),
  );
  // Why the two ledgers differ and how the firmware intervals read run to a paragraph each:
  // a person at a terminal asks for them, rather than scrolling past them on every call.
  if (view.explain) {
    own.push(
      ...sentence("Why they differ", figure(perf.why_they_differ), view),
      ...sentence("Firmware", figure(firmware.reading), view),
    );
  }
  return [...lines, ...footer(answer, SHOWN, view, own)];
}

/** The time per op code, the largest gaps and the time per category, as tables. */
function tables(answer: Answer, view: View, own: string[]): string[] {
  const lines: string[] = [];
  // The columns an op code's and a category's interval time share.
  const times: Column<Omit<OpCodeTime, "op_code">>[] = [
    { header: "ops", value: (r) => r.count },
    { header: "interval µs", value: (r) => r.interval_us },
    { header: "share %", value: (r) => r.share_percent },
  ];
  const byOp: Column<OpCodeTime>[] = [
    { header: "op code", value: (r) => r.op_code, shrink: true },
    ...times,
  ];
  const opCodes = answer.by_op_code ?? [];
  if (opCodes.length > 0) {
    const laid = layTable(byOp, opCodes, view);
    lines.push(
      "",
      ...heading(`Time by op code (${opCodes.length} of ${figure(answer.op_code_count)})`, view),
      ...laid.lines,
    );
    own.push(...tableNotes(laid, view));
  }
  const g = answer.gaps;
  const largest = g?.largest ?? [];
  if (largest.length > 0) {
    const side = (o: OpLabel) => `row ${figure(o.perf_id)} ${figure(o.op_code)}`;
    const laid = layTable<GapEntry>(
      [
        { header: "gap µs", value: (r) => r.us },
        { header: "after", value: (r) => side(r.before), shrink: true },
        { header: "before", value: (r) => side(r.after), shrink: true },
      ],
      largest,
      view,
    );
    lines.push(
      "",
      ...heading(
        `Largest gaps (${largest.length} of ${figure(g.count)}; median ${
          withUnit(g.median_us, "µs")
        })`,
        view,
      ),
      ...laid.lines,
    );
  }
  const categories = answer.by_category ?? [];
  if (categories.length > 0) {
    const laid = layTable<CategoryTime>(
      [
        { header: "category", value: (r) => r.op_category },
        ...times,
      ],
      categories,
      view,
    );
    lines.push("", ...heading("Time by category", view), ...laid.lines);
  }
  const it = answer.iterations;
  if (it !== undefined) {
    const b = it.busy_us;
    own.push(
      ...sentence(
        "Iterations",
        `${figure(it.count)} by ${figure(it.by)}: busy min ${figure(b.min)} / median ${
          figure(b.median)
        } / max ${figure(b.max)} µs (spread ${figure(b.spread_percent)} %); ${
          figure(it.operations_outside)
        } operations outside them. The list is in --json.`,
        view,
      ),
    );
  }
  return lines;
}

/** The answer fields this rendering shows. */
const SHOWN: FieldsOf<DeviceTimelineAnswer> = [
  "handle",
  "device",
  "clock_mhz",
  "basis",
  "operations",
  "busy_us",
  "op_interval_sum_us",
  "gap_sum_us",
  "residual_us",
  "overlapping_op_pairs",
  "firmware",
  "tt_perf_report",
  "gaps",
  "by_op_code",
  "op_code_count",
  "by_category",
  "projection",
  "iterations",
  "host_wait_us",
];
