/**
 * A first look at `profile_log_device.csv`: its preamble (the capture's arch, clock and core
 * count), its column header, whether it holds a data row, and whether the whole file decodes
 * as UTF-8 — enough for `load_report` to say whether the device-log tools can answer. The
 * full streaming reader is separate; this one reads the file once, in bounded chunks.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";
import { type OpenedFile, openReportFile } from "../kit/report_file.ts";
import { Roots } from "../kit/roots.ts";
import { SlotCounter } from "./_slot_count.ts";

/** The device log's file name inside a performance report directory. */
export const DEVICE_LOG_NAME = "profile_log_device.csv";

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
   * How many times the file holds `counter type` — once per performance-counter row, whose
   * `meta data` names it — counted in the same pass that checks the UTF-8.
   */
  counterRows: number;
  /** Whether the file holds a kernel zone (a zone name ending in `-KERNEL`) anywhere. */
  hasKernelZones: boolean;
  /**
   * Distinct PCIe slots with a data row; null when the header names no `PCIe slot` column or
   * does not end within the first read.
   */
  devices: number | null;
  /** Why the file cannot be read at all (empty, not UTF-8, unreadable), or null. */
  problem: string | null;
}

const CHUNK = 1 << 20;

/**
 * Probes the device log at `path`; a missing file yields `null`. Outside `roots`, refused;
 * a FIFO or device under its name is described as such, never opened.
 */
export async function probeDeviceLog(
  path: string,
  roots = Roots.any(),
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
    return await probeOpenedDeviceLog(outcome.opened);
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
    problem,
  };
}

/** Probes the device log open in `opened` (read from its start; it stays open). */
export async function probeOpenedDeviceLog(opened: OpenedFile): Promise<DeviceLogProbe> {
  const { file, identity } = opened;
  const probe: DeviceLogProbe = { ...unusableDeviceLog(identity, ""), problem: null };
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const head: string[] = []; // the first three lines, once complete
  let partial = "";
  // The last bytes of the file so far, for a mark split across reads.
  let carry: Uint8Array = new Uint8Array(0);
  // Whether the last read may have ended inside a multi-byte character.
  let pending = false;
  const buffer = new Uint8Array(CHUNK);
  let offset = 0;
  let slots: SlotCounter | null = null;
  // Up to the size the descriptor had when opened: bytes appended since are a change the
  // staleness check sees, and a file that keeps growing is not read without end.
  while (offset < identity.size) {
    const n = await file.read(buffer.subarray(0, Math.min(CHUNK, identity.size - offset)));
    if (n === null) break;
    const bytes = buffer.subarray(0, n);
    // Plain ASCII is UTF-8 as it stands: only reads that are not (or that finish a
    // character begun before them), and the head, go through the decoder — and, once the
    // header names the PCIe slot column, every read: the text the decoder checks is what the
    // slot count searches, at less than the ASCII check and a byte search would cost.
    const ascii = slots === null && isAscii(bytes);
    let text: string | null = null;
    if (slots !== null || !ascii || pending || head.length < 3) {
      try {
        text = decoder.decode(bytes, { stream: true });
      } catch {
        probe.problem =
          `${DEVICE_LOG_NAME} is not UTF-8 text (an invalid byte within bytes ${offset}-${
            offset + n
          })`;
        return probe;
      }
      if (head.length < 3) {
        partial += text;
        let nl: number;
        while (head.length < 3 && (nl = partial.indexOf("\n")) !== -1) {
          head.push(partial.slice(0, nl).replace(/\r$/, ""));
          partial = partial.slice(nl + 1);
        }
        if (partial.length > CHUNK * 4 && head.length < 2) {
          probe.problem =
            `${DEVICE_LOG_NAME} has no line break in its first ${partial.length} characters`;
          return probe;
        }
      }
    }
    if (slots !== null) slots.feed(text!);
    else if (offset === 0 && head.length >= 2 && text !== null) {
      // The header is in the first read: count slots from the file's start.
      const column = head[1].split(",").findIndex((c) => c.trim() === "PCIe slot");
      if (column >= 0) (slots = new SlotCounter(column)).feed(text);
    }
    pending = !ascii && !isAscii(bytes.subarray(Math.max(0, n - 3)));
    offset += n;
    probe.counterRows += COUNTER_BYTES.count(bytes, carry);
    if (!probe.hasKernelZones) probe.hasKernelZones = KERNEL_MARK.count(bytes, carry, 1) > 0;
    carry = lastBytes(carry, bytes, COUNTER_BYTES.length - 1);
  }
  try {
    partial += decoder.decode();
  } catch {
    probe.problem = `${DEVICE_LOG_NAME} is not UTF-8 text (it ends inside a multi-byte character)`;
    return probe;
  }
  if (head.length < 3 && partial.length > 0) head.push(partial);
  if (offset === 0) {
    probe.problem = `${DEVICE_LOG_NAME} is empty`;
    return probe;
  }
  probe.capture = parsePreamble(head[0] ?? "");
  probe.columns = (head[1] ?? "").split(",").map((c) => c.trim());
  const have = new Set(probe.columns);
  probe.missingColumns = DEVICE_LOG_REQUIRED_COLUMNS.filter((c) => !have.has(c));
  probe.boundaryColumn = have.has("type") ? "type" : have.has("zone phase") ? "zone phase" : null;
  const clock = Number(probe.capture["CHIP_FREQ[MHz]"]);
  probe.clockMhz = Number.isFinite(clock) && clock > 0 ? clock : null;
  probe.hasDataRow = head.length >= 3 && head[2].trim().length > 0;
  probe.devices = slots === null ? null : slots.slots.size;
  return probe;
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

/** Whether every byte is ASCII, read four at a time. */
function isAscii(bytes: Uint8Array): boolean {
  const whole = bytes.length & ~3;
  if (bytes.byteOffset % 4 === 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, whole >> 2);
    let acc = 0;
    for (let i = 0; i < words.length; i++) acc |= words[i];
    if ((acc & 0x80808080) !== 0) return false;
  } else {
    for (let i = 0; i < whole; i++) if (bytes[i] >= 0x80) return false;
  }
  for (let i = whole; i < bytes.length; i++) if (bytes[i] >= 0x80) return false;
  return true;
}

/** The last `count` bytes of `before` followed by `bytes`. */
function lastBytes(before: Uint8Array, bytes: Uint8Array, count: number): Uint8Array {
  if (bytes.length >= count) return bytes.slice(bytes.length - count);
  const joined = new Uint8Array(before.length + bytes.length);
  joined.set(before);
  joined.set(bytes, before.length);
  return joined.slice(Math.max(0, joined.length - count));
}

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
