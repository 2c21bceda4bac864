/**
 * Signposts: the window tt-perf-report reads between two of them (`filter_by_signpost`), the
 * strict resolution the tools apply before asking for one, and the listing load_report shows.
 * @module
 */

import type { CsvTable } from "./csv_table.ts";
import { Frame } from "./_frame.ts";
import { hostStartOrder } from "./_order.ts";
import { nonNegativeInt } from "./cells.ts";
import { SignpostRangeError } from "./exceptions.ts";
import { rowIdOf } from "./row_id.ts";

/** A range bound longer than this many characters is refused. */
export const MAX_SIGNPOST_NAME_LENGTH = 256;

/**
 * A name's length in characters as Python's `len()` counts them (code points, so an emoji is
 * one), the length MAX_SIGNPOST_NAME_LENGTH bounds.
 *
 * @example
 * ```ts
 * import { signpostNameLength } from "./signposts.ts";
 * if (signpostNameLength("PERF_\u{1F600}") !== 6) throw new Error();
 * ```
 */
export function signpostNameLength(name: string): number {
  let n = 0;
  for (const _ of name) n++;
  return n;
}
/** A refusal lists at most this many of the report's names. */
export const MAX_LISTED_SIGNPOST_NAMES = 20;

/** tt-perf-report's signpost options. */
export interface SignpostFilterOptions {
  startSignpost?: string | null;
  endSignpost?: string | null;
  /**
   * Which occurrence of the start signpost (1-based; tt-perf-report's is always 1). Past the
   * first, the end is the end signpost's first occurrence after that start.
   */
  startOccurrence?: number;
  ignoreSignposts?: boolean;
  printSignposts?: boolean;
}

function isSignpostRow(frame: Frame, pos: number): boolean {
  return frame.value(pos, "OP TYPE") === "signpost";
}

function opCodeValue(frame: Frame, pos: number): string | null {
  const v = frame.value(pos, "OP CODE");
  return typeof v === "string" ? v : null;
}

/**
 * `filter_by_signpost` on positions already in host-start-time order. Membership is by file
 * position: a start keeps rows after its first (host-time) occurrence, an end keeps rows
 * before its first occurrence (second when it names the start too). Signposts inside the
 * window are dropped unless `printSignposts`. With no usable bound the window is what follows
 * the first row whose OP CODE is the last signpost's name.
 */
export function filterBySignpost(
  frame: Frame,
  sorted: readonly number[],
  options: SignpostFilterOptions,
): { positions: number[]; messages: string[] } {
  const messages: string[] = [];
  const signposts = sorted.filter((p) => isSignpostRow(frame, p));
  if (options.ignoreSignposts) {
    messages.push("Ignoring all signposts. Using the entire file for analysis.");
    return { positions: [...sorted], messages };
  }
  if (signposts.length === 0) {
    messages.push("No signposts found in the file. Using the entire file for analysis.");
    return { positions: [...sorted], messages };
  }
  const strip = (window: number[]) =>
    options.printSignposts ? window : window.filter((p) => !isSignpostRow(frame, p));
  const start = options.startSignpost || null;
  const end = options.endSignpost || null;
  let filtered = [...sorted];
  let applied = false;
  const occurrence = options.startOccurrence ?? 1;
  let startPos: number | null = null;
  if (start) {
    const matching = signposts.filter((p) => opCodeValue(frame, p) === start);
    if (matching.length >= occurrence) {
      messages.push(`Using operations after '${start}'.`);
      applied = true;
      startPos = matching[occurrence - 1];
      filtered = strip(filtered.filter((p) => p > startPos!));
    } else {
      messages.push(`Specified staring signpost '${start}' not found.`);
    }
  }
  if (end) {
    const all = signposts.filter((p) => opCodeValue(frame, p) === end);
    // Past the first occurrence of the start, the end is read after the start chosen.
    const matching = occurrence > 1 && startPos !== null ? all.filter((p) => p > startPos!) : all;
    if (matching.length > 0) {
      let index = 0;
      messages.push(`Using operations until '${end}'.`);
      if (start === end && occurrence === 1) {
        index = 1;
        if (matching.length > 2) {
          messages.push(
            `Multiple occurrences of signpost '${end}' found. Using the second occurrence for the end filter.`,
          );
        }
      }
      if (index < matching.length) {
        applied = true;
        filtered = strip(filtered.filter((p) => p < matching[index]));
      } else {
        messages.push(
          `Not enough occurrences of signpost '${end}' to apply to both start and end filters.`,
        );
      }
    } else {
      messages.push(`Specified ending signpost '${end}' not found.`);
    }
  }
  if (applied) return { positions: filtered, messages };
  const names = signposts.map((p) => frame.text(p, "OP CODE")!);
  const last = opCodeValue(frame, signposts[signposts.length - 1]);
  messages.push(`Detected signposts: ${names.join(", ")}`);
  messages.push(`Using last signpost: ${names[names.length - 1]} for analysis.`);
  const first = sorted.findIndex((p) => last !== null && opCodeValue(frame, p) === last);
  return { positions: strip(first === -1 ? [] : sorted.slice(first + 1)), messages };
}

/** One signpost name and how often it occurs. */
export interface SignpostName {
  name: string;
  count: number;
}

function signpostNamesInOrder(frame: Frame): { name: string; positions: number[] }[] {
  const byName = new Map<string, number[]>();
  for (const p of hostStartOrder(frame)) {
    if (!isSignpostRow(frame, p)) continue;
    const name = opCodeValue(frame, p);
    if (name === null) continue;
    const list = byName.get(name);
    if (list) list.push(p);
    else byName.set(name, [p]);
  }
  return [...byName].map(([name, positions]) => ({ name, positions }));
}

/**
 * The report's signpost names in the order tt-perf-report resolves them (first occurrence by
 * host start time), with how often each occurs. Every name is listed, however long.
 */
export function listSignposts(table: CsvTable): SignpostName[] {
  const frame = Frame.of(table);
  if (!frame.has("OP TYPE") || !frame.has("OP CODE")) return [];
  return signpostNamesInOrder(frame).map((s) => ({
    name: s.name,
    count: s.positions.length,
  }));
}

/** Every signpost row with its ID (CSV line), in host-start-time order. */
export function listSignpostOccurrences(table: CsvTable): { id: number; name: string }[] {
  const frame = Frame.of(table);
  if (!frame.has("OP TYPE") || !frame.has("OP CODE")) return [];
  return hostStartOrder(frame)
    .filter((p) => isSignpostRow(frame, p))
    .map((p) => ({ id: rowIdOf(p), name: frame.text(p, "OP CODE")! }));
}

/** The distinct usable device ids (whole, ≥ 0) the CSV has rows for, ascending. */
export function listDeviceIds(table: CsvTable): number[] {
  const frame = Frame.of(table);
  if (!frame.has("DEVICE ID")) return [];
  const ids = new Set<number>();
  for (let i = 0; i < frame.length; i++) {
    const id = nonNegativeInt(frame.numeric(i, "DEVICE ID"));
    if (id !== null) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** How many CSV rows each device has, by DEVICE ID ascending. */
export function deviceRowCounts(table: CsvTable): { device: number; rows: number }[] {
  const frame = Frame.of(table);
  if (!frame.has("DEVICE ID")) return [];
  const counts = new Map<number, number>();
  for (let i = 0; i < frame.length; i++) {
    const id = nonNegativeInt(frame.numeric(i, "DEVICE ID"));
    if (id !== null) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => a[0] - b[0]).map(([device, rows]) => ({ device, rows }));
}

/** The number of devices the CSV has rows for (`device_count.performance_csv`). */
export function countDevices(table: CsvTable): number {
  return listDeviceIds(table).length;
}

/** A resolved signpost range. */
export interface SignpostWindow {
  /** The report holds no signposts: the whole file is read (`signpost_range_ignored`). */
  ignored: boolean;
  start: { name: string; id: number } | null;
  end: { name: string; id: number } | null;
  /** Which occurrence of the start signpost was used, and how many the report holds. */
  startOccurrence: { used: number; of: number } | null;
}

function refuseUnknown(
  bound: "start" | "end",
  name: string,
  names: readonly { name: string }[],
): never {
  const shown = names.slice(0, MAX_LISTED_SIGNPOST_NAMES).map((n) => JSON.stringify(n.name));
  const more = names.length > MAX_LISTED_SIGNPOST_NAMES
    ? ` and ${names.length - MAX_LISTED_SIGNPOST_NAMES} more`
    : "";
  throw new SignpostRangeError(
    "unknown_name",
    bound,
    `${bound}_signpost ${JSON.stringify(name)} is not a signpost in this report; ` +
      `it holds ${names.length} signpost name(s): ${shown.join(", ")}${more}`,
  );
}

/**
 * Resolves a signpost range as tt-perf-report does, refusing what it cannot honour: a name
 * longer than 256 characters, a name the report does not hold, one name for both bounds that
 * occurs only once, and an end that falls before the start. An empty name means no bound.
 * A report without signposts gives `ignored: true` rather than an error.
 * @throws {SignpostRangeError}
 */
export function resolveSignpostWindow(
  table: CsvTable,
  startSignpost?: string | null,
  endSignpost?: string | null,
  startOccurrence = 1,
): SignpostWindow {
  const start = startSignpost || null;
  const end = endSignpost || null;
  for (const [bound, name] of [["start", start], ["end", end]] as const) {
    if (name !== null && signpostNameLength(name) > MAX_SIGNPOST_NAME_LENGTH) {
      throw new SignpostRangeError(
        "name_too_long",
        bound,
        `${bound}_signpost is ${
          signpostNameLength(name)
        } characters long; a signpost name is at most ${MAX_SIGNPOST_NAME_LENGTH}`,
      );
    }
  }
  if (!Number.isInteger(startOccurrence) || startOccurrence < 1) {
    throw new SignpostRangeError(
      "occurrence_out_of_range",
      "start",
      `start_occurrence is ${startOccurrence}; it counts occurrences from 1`,
    );
  }
  if (startOccurrence > 1 && start === null) {
    throw new SignpostRangeError(
      "occurrence_out_of_range",
      "start",
      `start_occurrence ${startOccurrence} needs a start_signpost to count occurrences of`,
    );
  }
  const frame = Frame.of(table);
  const names = frame.has("OP TYPE") && frame.has("OP CODE") ? signpostNamesInOrder(frame) : [];
  if (names.length === 0) {
    return { ignored: true, start: null, end: null, startOccurrence: null };
  }
  const find = (name: string) => names.find((n) => n.name === name);
  let startPos: number | null = null;
  let occurrences = 0;
  if (start !== null) {
    const s = find(start);
    if (!s) refuseUnknown("start", start, names);
    occurrences = s.positions.length;
    if (startOccurrence > occurrences) {
      throw new SignpostRangeError(
        "occurrence_out_of_range",
        "start",
        `start_signpost ${JSON.stringify(start)} occurs ${occurrences} time${
          occurrences === 1 ? "" : "s"
        } in this report; start_occurrence ${startOccurrence} is past the last (1 to ${occurrences})`,
      );
    }
    startPos = s.positions[startOccurrence - 1];
  }
  const endPos = end === null ? null : endPosition(end, start, startPos, startOccurrence, names);
  if (startPos !== null && endPos !== null && endPos < startPos) {
    throw new SignpostRangeError(
      "end_before_start",
      "end",
      `end_signpost ${JSON.stringify(end)} (CSV line ${rowIdOf(endPos)}) comes before ` +
        `start_signpost ${JSON.stringify(start)} (CSV line ${
          rowIdOf(startPos)
        }), so the range is empty`,
    );
  }
  return {
    ignored: false,
    start: start === null ? null : { name: start, id: rowIdOf(startPos!) },
    end: end === null ? null : { name: end, id: rowIdOf(endPos!) },
    startOccurrence: start === null ? null : { used: startOccurrence, of: occurrences },
  };
}

/**
 * Where the end bound falls: tt-perf-report's rule at the first start occurrence (the end's
 * first occurrence, or its second when it names the start too); past the first, the end's
 * first occurrence after the chosen start.
 */
function endPosition(
  end: string,
  start: string | null,
  startPos: number | null,
  startOccurrence: number,
  names: readonly { name: string; positions: number[] }[],
): number {
  const e = names.find((n) => n.name === end);
  if (!e) refuseUnknown("end", end, names);
  if (startOccurrence > 1 && startPos !== null) {
    const after = e.positions.find((p) => p > startPos);
    if (after === undefined) {
      throw new SignpostRangeError(
        "end_before_start",
        "end",
        `end_signpost ${JSON.stringify(end)} does not occur after occurrence ${startOccurrence} ` +
          `of start_signpost ${JSON.stringify(start)} (CSV line ${rowIdOf(startPos)})`,
      );
    }
    return after;
  }
  if (start === end) {
    if (e.positions.length < 2) {
      throw new SignpostRangeError(
        "single_occurrence",
        "both",
        `start_signpost and end_signpost are both ${JSON.stringify(end)}, which then means ` +
          "its first and second occurrence, but it occurs only once in this report",
      );
    }
    return e.positions[1];
  }
  return e.positions[0];
}
