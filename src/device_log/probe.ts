/**
 * A first look at `profile_log_device.csv`: its preamble (the capture's arch, clock and core
 * count), its column header, whether it holds a data row — enough for `load_report` to say
 * whether the device-log tools can answer — from a bounded sample: a log of up to
 * `SAMPLE_HEAD_BYTES + SAMPLE_TAIL_BYTES` is read whole, a larger one only at its start and its
 * end (a log written device by device shows its last device there). What only the whole file
 * could tell — that every byte is UTF-8, how many devices have rows, whether counter rows and
 * kernel zones occur — is judged from the sample, and the probe says how much it read
 * (`sample`); the full read (`read.ts`) checks the UTF-8 of every byte and counts the devices
 * exactly.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";
import { type OpenedFile, openReportFile } from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";
import type { ReportFileKind } from "../kit/report_kind.ts";
import { addSlots } from "./_slot_count.ts";
import { badLineIn } from "./_utf8.ts";

/** The device log's file name inside a performance report directory. */
export const DEVICE_LOG_NAME = "profile_log_device.csv";

/** The device log as a kind of report file: probed from a sample at load, read whole by its tools. */
export const DEVICE_LOG_FILE = {
  key: "device_log",
  readBy: "tools",
  source: "device_log",
  side: "performance",
  name: DEVICE_LOG_NAME,
  cliName: DEVICE_LOG_NAME,
  title: "the device log",
  called: null,
  what: "tt-metal's device profiler log: every zone's start and end on every RISC of every " +
    "core, in cycles, with the capture's arch and clock on its first line.",
  capture: "tt-metal's device profiler writes it when the run " +
    "has TT_METAL_DEVICE_PROFILER=1: run the workload under tt-metal's tracy wrapper with its ops " +
    "report (`python -m tracy -r -m <command>`), which sets that and copies the log beside " +
    "the performance CSV, or set it yourself and copy " +
    `$TT_METAL_HOME/generated/profiler/.logs/${DEVICE_LOG_NAME} into the performance report ` +
    "directory, then call load_report again",
  beside: [],
  field: "deviceLog",
  newestWins: false,
  choose: (dir) => Promise.resolve({ name: DEVICE_LOG_NAME, path: `${dir}/${DEVICE_LOG_NAME}` }),
  probe: (opened) => probeOpenedDeviceLog(opened),
  unusable: (identity, problem) => unusableDeviceLog(identity, problem),
  identity: (probe) => probe.identity,
} as const satisfies ReportFileKind<DeviceLogProbe>;

/** Columns every device-log tool reads, as tt-metal writes them (names stripped). */
export const DEVICE_LOG_REQUIRED_COLUMNS = [
  "timer_id",
  "zone name",
  "run host ID",
  "PCIe slot",
  "RISC processor type",
  "core_x",
  "core_y",
  "time[cycles since reset]",
] as const;

/** Bytes the probe reads from the start of a log too large to read whole. */
export const SAMPLE_HEAD_BYTES = 4 << 20;

/** Bytes the probe reads from the end of a log too large to read whole. */
export const SAMPLE_TAIL_BYTES = 4 << 20;

/** How much of a log the probe read, when it did not read all of it. */
export interface ProbeSample {
  /** Bytes read: the first `head` and the last `tail`. */
  head: number;
  tail: number;
  /** The file's size. */
  bytes: number;
}

/** What `probeDeviceLog` found. */
export interface DeviceLogProbe {
  path: string;
  identity: FileIdentity;
  /** The preamble's `key: value` pairs, values as written (strings). */
  capture: Record<string, string>;
  /** The header's column names, stripped. */
  columns: string[];
  /** Required columns the header lacks. */
  missingColumns: string[];
  /** The column that marks zone starts and ends: `type` (current) or `zone phase` (older). */
  boundaryColumn: "type" | "zone phase" | null;
  /** `CHIP_FREQ[MHz]` when it is a positive number. */
  clockMhz: number | null;
  /** Whether a data row follows the header. */
  hasDataRow: boolean;
  /**
   * How many times the bytes read hold `counter type` — once per performance-counter row, whose
   * `meta data` names it (in the sample only, when `sample` is set).
   */
  counterRows: number;
  /** Whether the bytes read hold a kernel zone (a zone name ending in `-KERNEL`). */
  hasKernelZones: boolean;
  /**
   * Distinct PCIe slots with a data row in the bytes read; null when the header names no
   * `PCIe slot` column.
   */
  devices: number | null;
  /** How much was read, when not the whole file (the figures above are the sample's). */
  sample: ProbeSample | null;
  /**
   * Why the file cannot be read at all (empty, not UTF-8 where read, unreadable), or null.
   */
  problem: string | null;
}

/** How much to read: the start and end of a log larger than their sum, else all of it. */
export interface SampleSize {
  head: number;
  tail: number;
}

/**
 * Probes the device log at `path`; a missing file yields `null`. Outside `roots`, refused;
 * a FIFO or device under its name is described as such, never opened.
 */
export async function probeDeviceLog(
  path: string,
  roots = Roots.any(),
  size?: SampleSize,
): Promise<DeviceLogProbe | null> {
  const outcome = await openReportFile(
    path,
    DEVICE_LOG_NAME,
    roots,
    `performance_path's ${DEVICE_LOG_NAME}`,
  );
  if (outcome.kind === "missing") return null;
  if (outcome.kind === "unusable") {
    return unusableDeviceLog(
      outcome.identity ?? { path, size: 0, mtimeMs: null, ctimeMs: null, ino: null, dev: null },
      outcome.problem,
    );
  }
  try {
    return await probeOpenedDeviceLog(outcome.opened, size);
  } finally {
    outcome.opened.file.close();
  }
}

/** The probe of a device log that cannot be read at all, saying why. */
export function unusableDeviceLog(identity: FileIdentity, problem: string): DeviceLogProbe {
  return {
    path: identity.path,
    identity,
    capture: {},
    columns: [],
    missingColumns: [...DEVICE_LOG_REQUIRED_COLUMNS],
    boundaryColumn: null,
    clockMhz: null,
    hasDataRow: false,
    counterRows: 0,
    hasKernelZones: false,
    devices: null,
    sample: null,
    problem,
  };
}

/** `profile_log_device.csv is not UTF-8 text (…)`, as the probe and the full read say it. */
export function notUtf8(where: string): string {
  return `${DEVICE_LOG_NAME} is not UTF-8 text (${where})`;
}

/**
 * Probes the device log open in `opened` (read from its start; it stays open): all of it when
 * it is no larger than `size.head + size.tail`, else its first `size.head` and last
 * `size.tail` bytes.
 */
export async function probeOpenedDeviceLog(
  opened: OpenedFile,
  size: SampleSize = { head: SAMPLE_HEAD_BYTES, tail: SAMPLE_TAIL_BYTES },
): Promise<DeviceLogProbe> {
  const { file, identity } = opened;
  const probe: DeviceLogProbe = { ...unusableDeviceLog(identity, ""), problem: null };
  // Up to the size the descriptor had when opened: bytes appended since are a change the
  // staleness check sees, and a file that keeps growing is not read without end.
  const total = identity.size;
  const whole = total <= size.head + size.tail;
  // One buffer, for the head and then the tail.
  const buffer = new Uint8Array(whole ? total : Math.max(size.head, size.tail));
  const head = await readAt(file, buffer, 0, whole ? total : size.head);
  if (head.length === 0) {
    probe.problem = `${DEVICE_LOG_NAME} is empty`;
    return probe;
  }
  // The head's whole lines (all of a log read whole, its last line with or without a break).
  const headEnd = whole ? head.length : head.lastIndexOf(10) + 1;
  // The first four line starts: the third line, the first data row, ends at the fourth.
  const lines = lineStarts(head, headEnd, 4);
  if (lines.length < 3 && !whole) {
    probe.problem = `${DEVICE_LOG_NAME} has no line break in its first ${head.length} bytes`;
    return probe;
  }
  const bad = badLineIn(head, 0, headEnd);
  if (bad >= 0) {
    probe.problem = notUtf8(
      whole && endsMidCharacter(head, headEnd)
        ? "it ends inside a multi-byte character"
        : `the first invalid byte is on line ${bad + 1}`,
    );
    return probe;
  }
  const text = (i: number) =>
    i >= lines.length ? "" : DECODER.decode(head.subarray(
      lines[i],
      i + 1 < lines.length ? lines[i + 1] - 1 : headEnd,
    )).replace(/[\r\n]+$/, "");
  probe.capture = parsePreamble(text(0));
  probe.columns = text(1).split(",").map((c) => c.trim());
  const have = new Set(probe.columns);
  probe.missingColumns = DEVICE_LOG_REQUIRED_COLUMNS.filter((c) => !have.has(c));
  probe.boundaryColumn = have.has("type") ? "type" : have.has("zone phase") ? "zone phase" : null;
  const clock = Number(probe.capture["CHIP_FREQ[MHz]"]);
  probe.clockMhz = Number.isFinite(clock) && clock > 0 ? clock : null;
  probe.hasDataRow = lines.length >= 3 && text(2).trim().length > 0;
  // The head's data lines, then the tail's from its first whole line.
  const column = probe.columns.indexOf("PCIe slot");
  const slots = column < 0 ? null : new Set<number>();
  const count = (bytes: Uint8Array, from: number, to: number) => {
    if (from >= to) return;
    const view = bytes.subarray(from, to);
    probe.counterRows += COUNTER_BYTES.count(view, EMPTY);
    if (!probe.hasKernelZones) probe.hasKernelZones = KERNEL_MARK.count(view, EMPTY, 1) > 0;
    if (slots !== null) addSlots(bytes, from, to, column, slots);
  };
  count(head, lines[2] ?? headEnd, headEnd);
  if (!whole) {
    const tail = await readAt(file, buffer, total - size.tail, size.tail);
    probe.sample = { head: head.length, tail: tail.length, bytes: total };
    const from = tail.indexOf(10) + 1;
    if (from > 0) {
      const tailBad = badLineIn(tail, from, tail.length);
      if (tailBad >= 0) {
        probe.problem = notUtf8(
          endsMidCharacter(tail, tail.length)
            ? "it ends inside a multi-byte character"
            : `the first invalid byte of its last ${tail.length} bytes is on the line at byte ${
              total - tail.length + lineAfter(tail, from, tailBad)
            }`,
        );
        return probe;
      }
      count(tail, from, tail.length);
    }
  }
  probe.devices = slots === null ? null : slots.size;
  return probe;
}

const DECODER = new TextDecoder();
const EMPTY = new Uint8Array(0);

/** Whether `bytes[0, end)` is UTF-8 but for a last character cut short. */
function endsMidCharacter(bytes: Uint8Array, end: number): boolean {
  const line = bytes.lastIndexOf(10, end - 1) + 1;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    decoder.decode(bytes.subarray(line, end), { stream: true });
  } catch {
    return false;
  }
  try {
    decoder.decode();
    return false;
  } catch {
    return true;
  }
}

/** Up to `count` bytes of the file from `at`, read into the start of `buf`. */
async function readAt(
  file: Deno.FsFile,
  buf: Uint8Array,
  at: number,
  count: number,
): Promise<Uint8Array> {
  await file.seek(at, Deno.SeekMode.Start);
  let used = 0;
  while (used < count) {
    const n = await file.read(buf.subarray(used, count));
    if (n === null) break;
    used += n;
  }
  return buf.subarray(0, used);
}

/** The offsets where the first `most` lines of `bytes[0, end)` start. */
function lineStarts(bytes: Uint8Array, end: number, most: number): number[] {
  const out = end > 0 ? [0] : [];
  for (
    let k = bytes.indexOf(10);
    k !== -1 && k + 1 < end && out.length < most;
    k = bytes.indexOf(10, k + 1)
  ) {
    out.push(k + 1);
  }
  return out;
}

/** The offset of the line `count` line breaks after `from`. */
function lineAfter(bytes: Uint8Array, from: number, count: number): number {
  let at = from;
  for (let i = 0; i < count; i++) at = bytes.indexOf(10, at) + 1;
  return at;
}

/** An ASCII text searched for in bytes, from its rarest byte outwards. */
class ByteMark {
  readonly #bytes: Uint8Array;
  readonly #pivot: number;

  /** `text` (ASCII), searched for by its byte at `pivot`. */
  constructor(text: string, pivot: number) {
    this.#bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    this.#pivot = pivot;
  }

  get length(): number {
    return this.#bytes.length;
  }

  /**
   * Occurrences in `bytes` (up to `most`), with any that begins in `before` (the bytes just
   * ahead of them, shorter than the mark) and ends in `bytes`. UTF-8 never puts an ASCII byte
   * inside a multi-byte character, so a match in the bytes is a match in the text.
   */
  count(bytes: Uint8Array, before: Uint8Array, most = Infinity): number {
    let n = 0;
    if (before.length > 0) {
      const joined = new Uint8Array(before.length + Math.min(bytes.length, this.length - 1));
      joined.set(before);
      joined.set(bytes.subarray(0, joined.length - before.length), before.length);
      n += this.#count(joined, most);
    }
    return n >= most ? n : n + this.#count(bytes, most - n);
  }

  #count(bytes: Uint8Array, most: number): number {
    const mark = this.#bytes;
    const p = this.#pivot;
    let n = 0;
    for (
      let i = bytes.indexOf(mark[p], p);
      i !== -1 && n < most;
      i = bytes.indexOf(mark[p], i + 1)
    ) {
      const start = i - p;
      if (start + mark.length > bytes.length) break;
      let k = 0;
      while (k < mark.length && bytes[start + k] === mark[k]) k++;
      if (k === mark.length) n++;
    }
    return n;
  }
}

/** What every kernel zone's name holds (BRISC-KERNEL, TRISC-KERNEL …), found by its `K`. */
const KERNEL_MARK = new ByteMark("-KERNEL", 1);

/** What every performance-counter row's `meta data` holds: the counter reader's mark too. */
export const COUNTER_MARK = "counter type";

/** COUNTER_MARK, found by its `y`, a byte rare in device logs. */
const COUNTER_BYTES = new ByteMark(COUNTER_MARK, 9);

/**
 * Reads the device log's first line into its `key: value` pairs, values kept as strings as
 * written. A line without pairs (the legacy `Chip clock is at …`) gives `{}`.
 *
 * @example
 * ```ts
 * import { parsePreamble } from "./probe.ts";
 * const c = parsePreamble("ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64");
 * if (c["CHIP_FREQ[MHz]"] !== "1000" || c.ARCH !== "wormhole_b0") throw new Error();
 * ```
 */
export function parsePreamble(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of line.split(",")) {
    const colon = piece.indexOf(":");
    if (colon === -1) continue;
    const key = piece.slice(0, colon).trim();
    if (key) out[key] = piece.slice(colon + 1).trim();
  }
  return out;
}

/** Why the preamble gives no clock, e.g. `names no CHIP_FREQ[MHz] on its first line`. */
export function clockProblem(capture: Record<string, string>): string {
  const raw = capture["CHIP_FREQ[MHz]"];
  return raw === undefined
    ? "names no CHIP_FREQ[MHz] on its first line"
    : `gives CHIP_FREQ[MHz] as ${JSON.stringify(raw)} on its first line, not a positive clock`;
}
