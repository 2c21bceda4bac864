/**
 * tt-metal's four allocation failures, read from an error message: a bank out of memory, a
 * bank out of memory after considering other allocators' reservations, statically allocated
 * circular buffers growing beyond L1, and circular buffers clashing with an L1 buffer — each
 * in every textual generation tt-metal has written — with their figures and why the request
 * did not fit. Every bank figure except the whole request is per bank.
 *
 * @module
 */

/** Only this many characters of a message are read for an allocation failure. */
export const FIGURES_READ_CHARS = 32_768;

/** A core range longer than this many characters is cut, as a message is. */
export const CORE_RANGE_CAP_CHARS = 500;

/** Which of the four failures a message is. */
export type AllocationFailureKind =
  | "out_of_memory"
  | "out_of_memory_after_dependencies"
  | "circular_buffers_beyond_l1"
  | "circular_buffers_clash";

/** The figures a failure carries; a figure its message does not state is null. */
export interface AllocationFailure {
  kind: AllocationFailureKind;
  /** A BufferType name (DRAM, L1, SYSTEM_MEMORY, L1_SMALL, TRACE), or null when unrecognised. */
  buffer_type: string | null;
  /** The whole request, across num_banks. */
  requested_bytes: number | null;
  num_banks: number | null;
  bytes_per_bank: number | null;
  bank_size_bytes: number | null;
  allocated_bytes: number | null;
  free_bytes: number | null;
  largest_free_block_bytes: number | null;
  placeable_bytes: number | null;
  largest_placeable_bytes: number | null;
  core_range: string | null;
  core_range_full_length?: number;
  circular_buffer_region_end: number | null;
  max_l1_bytes: number | null;
  l1_buffer_address: number | null;
}

const BUFFER_TYPES = new Set(["DRAM", "L1", "SYSTEM_MEMORY", "L1_SMALL", "TRACE"]);

const STATS = String.raw`\(allocated: (\d+) B, free: (\d+) B, largest free block: (\d+) B\)`;

// Bank size is absent on the oldest plain form, "only" on the older one, and the statistics
// arrive with the current one.
const PLAIN = new RegExp(
  String.raw`Out of Memory: Not enough space to allocate (\d+) B (\S+) buffer across (\d+) ` +
    String.raw`banks, where each bank needs to store (\d+) B` +
    String.raw`(?:, but bank size is (?:only )?(\d+) B(?: ${STATS})?)?`,
);

// The oldest form stops after the per-bank figure, the middle one after the statistics, and
// the newest adds what stayed placeable.
const DEPENDENCIES = new RegExp(
  String.raw`Out of Memory: Not enough space after considering dependencies to allocate (\d+) B ` +
    String.raw`(\S+) across (\d+) banks \((\d+) B per bank\)` +
    String.raw`(?:, bank size is (\d+) B ${STATS}` +
    String.raw`(?:\. After subtracting \d+ dependency range\(s\) and \d+ additional occupied ` +
    String.raw`range\(s\), (\d+) B remained placeable across \d+ window\(s\), largest (\d+) B)?)?`,
);

const BEYOND = new RegExp(
  String.raw`Statically allocated circular buffers on core range (.+?) grow to (\d+) B which ` +
    String.raw`is beyond max L1 size of (\d+) B`,
);

const CLASH = new RegExp(
  String.raw`Statically allocated circular buffers in program \S+ clash with L1 buffers on ` +
    String.raw`core range (.+?)\. L1 buffer allocated at (\d+) and static circular buffer ` +
    String.raw`region ends at (\d+)`,
);

/**
 * The allocation failure a message reports, or null when it is not one of the four. The
 * message is searched, not anchored (tt-metal wraps it in a header, `info:` and a backtrace),
 * only its first 32,768 characters are read, and runs of whitespace count as one space, since
 * logged copies wrap lines.
 *
 * @example
 * ```ts
 * import { parseAllocationFailure } from "./allocation_failure.ts";
 * const f = parseAllocationFailure("TT_FATAL @ bank_manager.cpp:486: false\ninfo:\nOut of " +
 *   "Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each " +
 *   "bank needs to store 819200 B, but bank size is 1382720 B (allocated: 1000000 B, free: " +
 *   "382720 B, largest free block: 300000 B)\nbacktrace:\n --- lib(+0x1)");
 * if (f?.kind !== "out_of_memory" || f.bytes_per_bank !== 819200) throw new Error();
 * if (parseAllocationFailure("Shape mismatch") !== null) throw new Error();
 * ```
 */
export function parseAllocationFailure(message: unknown): AllocationFailure | null {
  if (typeof message !== "string") return null;
  const text = message.slice(0, FIGURES_READ_CHARS).replace(/\s+/g, " ");
  let m = PLAIN.exec(text);
  if (m) {
    return bank("out_of_memory", m, { size: 1, type: 2, banks: 3, perBank: 4, bank: 5, stats: 6 });
  }
  m = DEPENDENCIES.exec(text);
  if (m) {
    const f = bank("out_of_memory_after_dependencies", m, {
      size: 1,
      type: 2,
      banks: 3,
      perBank: 4,
      bank: 5,
      stats: 6,
    });
    f.placeable_bytes = int(m[9]);
    f.largest_placeable_bytes = int(m[10]);
    return f;
  }
  m = BEYOND.exec(text);
  if (m) {
    return {
      ...empty("circular_buffers_beyond_l1"),
      ...coreRange(m[1]),
      circular_buffer_region_end: int(m[2]),
      max_l1_bytes: int(m[3]),
    };
  }
  m = CLASH.exec(text);
  if (m) {
    return {
      ...empty("circular_buffers_clash"),
      ...coreRange(m[1]),
      l1_buffer_address: int(m[2]),
      circular_buffer_region_end: int(m[3]),
    };
  }
  return null;
}

/** Why the request did not fit. */
export interface Diagnosis {
  reason:
    | "larger_than_empty_bank"
    | "free_block_could_hold_it"
    | "fragmented"
    | "not_enough_free_space"
    | "beyond_end_of_l1"
    | "overlaps_l1_buffer";
  label: string;
  detail: string;
  /** not_enough_free_space: bytes per bank short (L1 may be short by more). */
  shortfall_bytes?: number;
  /** beyond_end_of_l1: bytes past the end of L1. */
  overrun_bytes?: number;
  /** overlaps_l1_buffer: bytes of the circular-buffer region over the L1 buffer. */
  overlap_bytes?: number;
}

const L1_REGION = " For L1 the free figure covers the allocator's whole range, while an " +
  "interleaved L1 buffer may only use the interleaved region above its address limit, so the " +
  "space it could use may be smaller.";

/**
 * Why a failure did not fit, comparing per-bank figures only, or null when its message
 * states too little to say: a request larger than an empty bank first (equal is not larger),
 * then — when the free figures are stated — a free block that could hold it, fragmentation,
 * or too little free space; for circular buffers, how far they run past L1 or over the
 * lowest L1 buffer.
 *
 * @example
 * ```ts
 * import { diagnose, parseAllocationFailure } from "./allocation_failure.ts";
 * const f = parseAllocationFailure("Out of Memory: Not enough space to allocate 1638400 B " +
 *   "DRAM buffer across 2 banks, where each bank needs to store 819200 B, but bank size is " +
 *   "1382720 B (allocated: 382720 B, free: 1000000 B, largest free block: 300000 B)");
 * if (diagnose(f!)?.reason !== "fragmented") throw new Error();
 * ```
 */
export function diagnose(f: AllocationFailure): Diagnosis | null {
  if (f.kind === "circular_buffers_beyond_l1") {
    if (f.circular_buffer_region_end === null || f.max_l1_bytes === null) return null;
    const over = f.circular_buffer_region_end - f.max_l1_bytes;
    return {
      reason: "beyond_end_of_l1",
      label: "Beyond the end of L1",
      detail: `The program's circular buffers end at ${f.circular_buffer_region_end} B on each ` +
        `core, ${size(over)} past the ${size(f.max_l1_bytes)} of L1 a core has.`,
      overrun_bytes: over,
    };
  }
  if (f.kind === "circular_buffers_clash") {
    if (f.circular_buffer_region_end === null || f.l1_buffer_address === null) return null;
    const overlap = f.circular_buffer_region_end - f.l1_buffer_address;
    return {
      reason: "overlaps_l1_buffer",
      label: "Overlaps an L1 buffer",
      detail: `The circular-buffer region ends at ${f.circular_buffer_region_end}, ` +
        `${size(overlap)} above the L1 buffer allocated at ${f.l1_buffer_address} (the lowest ` +
        "live L1 buffer on those cores, not necessarily one this operation uses).",
      overlap_bytes: overlap,
    };
  }
  const need = f.bytes_per_bank;
  if (need === null) return null;
  const l1 = f.buffer_type === "L1" || f.buffer_type === "L1_SMALL";
  if (f.bank_size_bytes !== null && need > f.bank_size_bytes) {
    return {
      reason: "larger_than_empty_bank",
      label: "Larger than an empty bank",
      detail: `It needs ${size(need)} per bank, more than a whole empty bank holds ` +
        `(${size(f.bank_size_bytes)}), so it cannot fit however memory is freed; spread it ` +
        "over more banks or make it smaller.",
    };
  }
  const free = f.free_bytes;
  const largest = f.largest_free_block_bytes;
  if (free === null || largest === null) return null;
  if (largest >= need) {
    const why = f.kind === "out_of_memory_after_dependencies"
      ? " Ranges reserved by other allocators overlap it" +
        (f.largest_placeable_bytes !== null
          ? `, leaving no placeable window larger than ${size(f.largest_placeable_bytes)}.`
          : ".")
      : " The allocator still could not use it, and the message does not say why.";
    return {
      reason: "free_block_could_hold_it",
      label: "A free block could hold it",
      detail: `The largest free block (${size(largest)} per bank) is at least the ` +
        `${size(need)} it needed.${why}${l1 ? L1_REGION : ""}`,
    };
  }
  if (free >= need) {
    return {
      reason: "fragmented",
      label: "Fragmented",
      detail: `${size(free)} is free per bank, enough for the ${size(need)} it needed, but ` +
        `no single block holds it: the largest is ${size(largest)}.${l1 ? L1_REGION : ""}`,
    };
  }
  const short = need - free;
  return {
    reason: "not_enough_free_space",
    label: "Not enough free space",
    detail: `It needed ${size(need)} per bank with ${size(free)} free: short by ` +
      `${size(short)} per bank${l1 ? ", and possibly by more." + L1_REGION : "."}`,
    shortfall_bytes: short,
  };
}

/**
 * Bytes in 1024-based units: B and KiB whole, MiB and above to at most two decimals.
 *
 * @example
 * ```ts
 * import { size } from "./allocation_failure.ts";
 * if (size(436480) !== "426 KiB" || size(3276800) !== "3.13 MiB" || size(0) !== "0 B") throw new Error();
 * ```
 */
export function size(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const shown = u < 2 ? String(Math.round(v)) : String(Math.round(v * 100) / 100);
  return `${shown} ${units[u]}`;
}

function bank(
  kind: AllocationFailureKind,
  m: RegExpExecArray,
  at: { size: number; type: number; banks: number; perBank: number; bank: number; stats: number },
): AllocationFailure {
  return {
    ...empty(kind),
    buffer_type: BUFFER_TYPES.has(m[at.type]) ? m[at.type] : null,
    requested_bytes: int(m[at.size]),
    num_banks: int(m[at.banks]),
    bytes_per_bank: int(m[at.perBank]),
    bank_size_bytes: int(m[at.bank]),
    allocated_bytes: int(m[at.stats]),
    free_bytes: int(m[at.stats + 1]),
    largest_free_block_bytes: int(m[at.stats + 2]),
  };
}

function empty(kind: AllocationFailureKind): AllocationFailure {
  return {
    kind,
    buffer_type: null,
    requested_bytes: null,
    num_banks: null,
    bytes_per_bank: null,
    bank_size_bytes: null,
    allocated_bytes: null,
    free_bytes: null,
    largest_free_block_bytes: null,
    placeable_bytes: null,
    largest_placeable_bytes: null,
    core_range: null,
    circular_buffer_region_end: null,
    max_l1_bytes: null,
    l1_buffer_address: null,
  };
}

function coreRange(text: string): { core_range: string; core_range_full_length?: number } {
  return text.length > CORE_RANGE_CAP_CHARS
    ? { core_range: text.slice(0, CORE_RANGE_CAP_CHARS), core_range_full_length: text.length }
    : { core_range: text };
}

function int(v: string | undefined): number | null {
  return v === undefined ? null : Number(v);
}
