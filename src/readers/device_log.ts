/**
 * A first look at `profile_log_device.csv`: its preamble (the capture's arch, clock and core
 * count), its column header, whether it holds a data row, and whether the whole file decodes
 * as UTF-8 — enough for `load_report` to say whether the device-log tools can answer. The
 * full streaming reader is separate; this one reads the file once, in bounded chunks.
 *
 * @module
 */
import { type FileIdentity, fromInfo } from "../report/file_identity.ts";

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
  /** Why the file cannot be read at all (empty, not UTF-8, unreadable), or null. */
  problem: string | null;
}

const CHUNK = 1 << 20;

/** Probes the device log at `path`; a missing file yields `null`. */
export async function probeDeviceLog(path: string): Promise<DeviceLogProbe | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  try {
    const info = await file.stat();
    const probe: DeviceLogProbe = {
      path,
      identity: fromInfo(path, info),
      capture: {},
      columns: [],
      missingColumns: [...DEVICE_LOG_REQUIRED_COLUMNS],
      boundaryColumn: null,
      clockMhz: null,
      hasDataRow: false,
      counterRows: 0,
      hasKernelZones: false,
      problem: null,
    };
    if (!info.isFile) {
      probe.problem = `${DEVICE_LOG_NAME} is not a regular file`;
      return probe;
    }
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const head: string[] = []; // the first three lines, once complete
    let partial = "";
    let tail = ""; // the last characters of the text so far, for a mark split across reads
    const buffer = new Uint8Array(CHUNK);
    let offset = 0;
    while (true) {
      const n = await file.read(buffer);
      if (n === null) break;
      const bytes = buffer.subarray(0, n);
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: true });
      } catch {
        probe.problem =
          `${DEVICE_LOG_NAME} is not UTF-8 text (an invalid byte within bytes ${offset}-${
            offset + n
          })`;
        return probe;
      }
      offset += n;
      probe.counterRows += countMarks(tail, text);
      if (!probe.hasKernelZones) {
        probe.hasKernelZones = (tail + text.slice(0, KERNEL_MARK.length - 1)).includes(
          KERNEL_MARK,
        ) || text.includes(KERNEL_MARK);
      }
      tail = text.length >= MARK.length ? text.slice(1 - MARK.length) : (tail + text).slice(
        1 - MARK.length,
      );
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
    try {
      partial += decoder.decode();
    } catch {
      probe.problem =
        `${DEVICE_LOG_NAME} is not UTF-8 text (it ends inside a multi-byte character)`;
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
    return probe;
  } finally {
    file.close();
  }
}

/** What every kernel zone's name ends with (BRISC-KERNEL, TRISC-KERNEL …). */
const KERNEL_MARK = "-KERNEL";

/** What every performance-counter row's `meta data` holds (the counter reader's mark too). */
const MARK = "counter type";

/** Marks in `text`, and the one (if any) that starts in `before` and ends in `text`. */
function countMarks(before: string, text: string): number {
  let n = 0;
  for (let i = text.indexOf(MARK); i !== -1; i = text.indexOf(MARK, i + MARK.length)) n++;
  if (before.length > 0 && (before + text.slice(0, MARK.length - 1)).includes(MARK)) n++;
  return n;
}

/**
 * Reads the device log's first line into its `key: value` pairs, values kept as strings as
 * written. A line without pairs (the legacy `Chip clock is at …`) gives `{}`.
 *
 * @example
 * ```ts
 * import { parsePreamble } from "./device_log.ts";
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
