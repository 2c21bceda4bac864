/**
 * Internal: tt-metal's Tensix performance-counter names and the group (hardware bank) each
 * belongs to. A group's counters are started, stopped and read together and share one
 * reference count, so only counters of one group may be subtracted from one another.
 *
 * Sources (public tt-metal and tt-llk, found with the code search; names carried over exactly):
 * - tenstorrent/tt-metal `tt_metal/tools/profiler/perf_counters.hpp`
 *   @ 00d3c16b7efdd49fb6cb8ce458a5d0590131f4e8: `PerfCounterGroup { FPU, PACK, UNPACK, L1_0,
 *   L1_1, INSTRN, L1_2, L1_3, L1_4 }`; the `PerfCounterType` enum, commented by group (FPU
 *   group, TDMA_UNPACK group, TDMA_PACK group, INSTRN_THREAD group, L1 banks 0–4, grant-side
 *   counters); `PERF_COUNTER_PROFILER_ID = 9090` (the counter rows' timer_id); the enable
 *   bits of `PROFILE_PERF_COUNTERS` (FPU 1, PACK 2, UNPACK 4, L1_0 8, L1_1 16, INSTRN 32,
 *   L1_2 64, L1_3 128, L1_4 256); counters start and stop on TRISC1 around the compute kernel
 *   and BRISC reads them out; each read gives `ref_cnt` (cycles between start and stop, the
 *   `PERF_CNT_OUT_L` register) and the counter's value (`PERF_CNT_OUT_H`, the req count, or
 *   the grant count when bit 16 of the select is set).
 * - tenstorrent/tt-metal `tt_metal/hw/inc/internal/tt-1xx/blackhole/hw_counters.h`
 *   @ 041e09e2e9886dbf97d49b29fd9def952773b051: which counters each group reads on Blackhole
 *   (unpack 18, pack 5, L1 banks 16 each, INSTRN_THREAD 59).
 * - An older tt-metal `perf_counters.hpp` (index id 51764592327): groups `{ FPU, PACK, UNPACK,
 *   L1, INSTRN }` with INSTRN on bit 16, `ref_cnt` a 25-bit field (28-bit in an older one
 *   still), and the L1 names without a bank prefix (`NOC_RING0_INCOMING_1`, `L1_ARB_UNPACKER`,
 *   `TDMA_PACKER_2_WR` …) and `SRCA_WRITE`/`SRCB_WRITE`, kept here so older logs group too.
 * - tenstorrent/tt-metal `tech_reports/PerfCounters/perf-counters.md`
 *   @ 0183393c65bf4e5d92cd544240471e195007ee18: a newer Blackhole bank, L1 bank 5 (bit 512).
 * - tenstorrent/tt-llk `docs/performance_counters/performance_counters.md`: the five banks
 *   INSTRN_THREAD, FPU, TDMA_UNPACK, L1, TDMA_PACK.
 *
 * @module
 */

/** The groups, as tt-metal's perf_counters.hpp comments name them. */
export type CounterGroup =
  | "FPU"
  | "TDMA_UNPACK"
  | "TDMA_PACK"
  | "INSTRN_THREAD"
  | "L1_0"
  | "L1_1"
  | "L1_2"
  | "L1_3"
  | "L1_4"
  | "L1_5"
  | "L1"
  | "unknown";

/** The groups in the order answers list them. */
export const GROUP_ORDER: readonly CounterGroup[] = [
  "FPU",
  "INSTRN_THREAD",
  "TDMA_UNPACK",
  "TDMA_PACK",
  "L1_0",
  "L1_1",
  "L1_2",
  "L1_3",
  "L1_4",
  "L1_5",
  "L1",
  "unknown",
];

const FPU = ["FPU_COUNTER", "SFPU_COUNTER", "MATH_COUNTER"];

const UNPACK = [
  "MATH_SRC_DATA_READY",
  "DATA_HAZARD_STALLS_MOVD2A",
  "MATH_FIDELITY_STALL",
  "MATH_INSTRN_STARTED",
  "MATH_INSTRN_AVAILABLE",
  "SRCB_WRITE_AVAILABLE",
  "SRCA_WRITE_AVAILABLE",
  "UNPACK0_BUSY_THREAD0",
  "UNPACK1_BUSY_THREAD0",
  "UNPACK0_BUSY_THREAD1",
  "UNPACK1_BUSY_THREAD1",
  "MATH_INSTRN_HF_1_CYCLE",
  "MATH_INSTRN_HF_2_CYCLE",
  "MATH_INSTRN_HF_4_CYCLE",
  "SRCB_WRITE_ACTUAL",
  "SRCA_WRITE_NOT_BLOCKED_OVR",
  "SRCA_WRITE_ACTUAL",
  "SRCB_WRITE_NOT_BLOCKED_PORT",
  "SRCA_WRITE_THREAD0",
  "SRCB_WRITE_THREAD0",
  "SRCA_WRITE_THREAD1",
  "SRCB_WRITE_THREAD1",
  // Older tt-metal.
  "SRCB_WRITE",
  "SRCA_WRITE",
];

const PACK = [
  "PACKER_DEST_READ_AVAILABLE",
  "PACKER_BUSY",
  "AVAILABLE_MATH",
  "PACKER_DEST_READ_1",
  "PACKER_DEST_READ_2",
  "PACKER_DEST_READ_3",
  "PACKER_BUSY_0",
  "PACKER_BUSY_1",
  "PACKER_BUSY_2",
  "DEST_READ_GRANTED_0",
  "DEST_READ_GRANTED_1",
  "DEST_READ_GRANTED_2",
  "DEST_READ_GRANTED_3",
  "MATH_NOT_STALLED_DEST_WR_PORT",
];

/** Instruction classes whose `<CLASS>_INSTRN_AVAILABLE_<thread>` counters exist. */
export const INSTRUCTION_CLASSES = [
  "CFG",
  "SYNC",
  "THCON",
  "XSEARCH",
  "MOVE",
  "FPU",
  "UNPACK",
  "PACK",
] as const;

const WAITS = [
  "SRCA_CLEAR",
  "SRCB_CLEAR",
  "SRCA_VALID",
  "SRCB_VALID",
];
const PER_THREAD_WAITS = [
  "THCON_IDLE",
  "UNPACK_IDLE",
  "PACK_IDLE",
  "MATH_IDLE",
  "NONZERO_SEM",
  "NONFULL_SEM",
  "MOVE_IDLE",
  "MMIO_IDLE",
  "SFPU_IDLE",
];

const INSTRN: string[] = [
  ...INSTRUCTION_CLASSES.flatMap((c) => [0, 1, 2].map((t) => `${c}_INSTRN_AVAILABLE_${t}`)),
  ...[0, 1, 2].map((t) => `THREAD_STALLS_${t}`),
  ...WAITS.map((w) => `WAITING_FOR_${w}`),
  ...PER_THREAD_WAITS.flatMap((w) => [0, 1, 2].map((t) => `WAITING_FOR_${w}_${t}`)),
  ...[0, 1, 2].map((t) => `THREAD_INSTRUCTIONS_${t}`),
  "ANY_THREAD_STALL",
];

/** The older L1 names, before the bank prefix. */
const L1_UNBANKED = [
  "NOC_RING0_INCOMING_1",
  "NOC_RING0_INCOMING_0",
  "NOC_RING0_OUTGOING_1",
  "NOC_RING0_OUTGOING_0",
  "L1_ARB_TDMA_BUNDLE_1",
  "L1_ARB_TDMA_BUNDLE_0",
  "L1_ARB_UNPACKER",
  "L1_NO_ARB_UNPACKER",
  "NOC_RING1_INCOMING_1",
  "NOC_RING1_INCOMING_0",
  "NOC_RING1_OUTGOING_1",
  "NOC_RING1_OUTGOING_0",
  "TDMA_BUNDLE_1_ARB",
  "TDMA_BUNDLE_0_ARB",
  "TDMA_EXT_UNPACK_9_10",
  "TDMA_PACKER_2_WR",
];

const GROUP_OF = new Map<string, CounterGroup>([
  ...FPU.map((n) => [n, "FPU"] as const),
  ...UNPACK.map((n) => [n, "TDMA_UNPACK"] as const),
  ...PACK.map((n) => [n, "TDMA_PACK"] as const),
  ...INSTRN.map((n) => [n, "INSTRN_THREAD"] as const),
  ...L1_UNBANKED.map((n) => [n, "L1"] as const),
]);

/**
 * The group a counter name belongs to: the tables above, then the bank prefix of the L1
 * counters (`L1_0_…` to `L1_5_…`); anything else is `unknown`.
 *
 * @example
 * ```ts
 * import { groupOf } from "./_counter_names.ts";
 * if (groupOf("FPU_COUNTER") !== "FPU" || groupOf("THREAD_STALLS_1") !== "INSTRN_THREAD") {
 *   throw new Error();
 * }
 * if (groupOf("L1_5_X") !== "L1_5" || groupOf("NEW_THING") !== "unknown") {
 *   throw new Error();
 * }
 * ```
 */
export function groupOf(name: string): CounterGroup {
  const known = GROUP_OF.get(name);
  if (known) return known;
  const bank = /^L1_([0-5])_/.exec(name);
  return bank ? (`L1_${bank[1]}` as CounterGroup) : "unknown";
}

/** The Tensix instruction threads: TRISC0 issues unpack, TRISC1 math, TRISC2 pack. */
export const THREAD_ROLES = ["unpack (TRISC0)", "math (TRISC1)", "pack (TRISC2)"] as const;
