/**
 * The fixed explanations answers rely on, said once: each note has an id and a text a client
 * reads once, as the MCP resource `ttnn://notes/<id>`, rather than on every call. An answer
 * names the notes it rests on by id in its `notes` (`ctx.parts.note(id)`); the CLI's
 * `--explain` prints their text from here. A note's text lives here and nowhere else: an
 * answer keeps only what is particular to it (its figures, counts, cuts).
 *
 * @module
 */
import { DEVICE_LOG_FILE } from "../session/report_files.ts";
import { HOW_TO_CAPTURE } from "../device_log/mod.ts";

/** One fixed explanation. */
export interface Note {
  /** The id answers name, dotted: `<subject>.<topic>`. */
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

/** lower_bounds' formulas, one field a line. */
const LOWER_BOUNDS_METHOD = [
  "dram_bound_us: Σ bytes of the tensors in DRAM (inputs read once, outputs written once) ÷ " +
  "dram_bandwidth_gbps; tiled tensors by whole 32×32 tiles (BFLOAT16 2048 B, FLOAT32 4096 B, " +
  "BFLOAT8_B 1088 B, BFLOAT4_B 576 B), row-major ones by element size.",
  "compute_bound_us: FLOPs ÷ (worker_cores × peak TFLOP/s per core at the row's MATH " +
  "FIDELITY): the compute limit on every worker core of the device; FLOPs = tt-perf-report's " +
  "FLOPs rate × device_time, so only ops tt-perf-report models (matmul, conv) have one.",
  "worker_cores: the row's AVAILABLE WORKER CORE COUNT, else the architecture's worker cores " +
  "(worker_cores_source says which).",
  "lower_bound_us: max(dram_bound_us, compute_bound_us) per row, summed over a group's rows: " +
  "the theoretical limit; without a compute model, dram_bound_us alone (a floor).",
  "gap_us: measured_us − lower_bound_us, ranked by (measured_us is tt-perf-report's " +
  "device_time: the kernel duration).",
  "not_kept_busy_us: measured_us − max(lower_bound_us, compute_at_cores_used_us), where compute " +
  "binds on the cores used: time those cores were not kept busy.",
  "dram_not_kept_busy_us: the same residual where DRAM binds on the cores used (dram_bound_us ≥ " +
  "compute_at_cores_used_us): time DRAM ran below its bandwidth, a data-movement fix, not a " +
  "compute one.",
  "cores_used: tt-perf-report's core count (a DRAM-sharded matmul's substituted, the CSV's " +
  "CORE COUNT then in csv_core_count); core_spread counts the cores the device log saw run.",
  "too_few_cores: a finding when cores_used is under a quarter of worker_cores.",
  "too_few_cores_us: max(0, compute_at_cores_used_us − lower_bound_us), where " +
  "compute_at_cores_used_us = FLOPs ÷ (cores_used × peak): time lost by running on too few " +
  "cores to reach the limit; not_kept_busy_us + dram_not_kept_busy_us + too_few_cores_us = " +
  "gap_us.",
  "cores_needed_for_limit: FLOPs ÷ (lower_bound_us × peak per core).",
  "ratio: measured_us ÷ lower_bound_us, shown but never used to rank.",
  "effective_dram_gbps: dram bytes ÷ measured time.",
  "model_ideal_us: the performance model's PM IDEAL, shown beside an op without a compute " +
  "model, never used to rank.",
].join("\n");

/** Every note, in id order of first use. */
export const NOTES = [
  {
    id: "basis.op_interval",
    title: "Op interval (device log)",
    text: "Times are op intervals from the device log: an operation's earliest kernel start " +
      "on any core to DEVICE FW END CYCLE (its last core's done), as the users' method " +
      "measures them; tt-perf-report's device time (top_ops, op_breakdown, lower_bounds) is " +
      "DEVICE KERNEL DURATION, which ends at the last kernel end and so leaves out each " +
      "operation's firmware tail.",
  },
  {
    id: "basis.device_kernel_duration",
    title: "Device time (tt-perf-report)",
    text: "Times are tt-perf-report's device time, the CSV's DEVICE KERNEL DURATION (an " +
      "operation's first kernel start to its last kernel end on any core), and op-to-op gaps " +
      "its OP TO OP LATENCY; device_timeline's op intervals run on to DEVICE FW END CYCLE (the " +
      "last core's done), so they also hold each operation's firmware tail.",
  },
  {
    id: "top_ops.rows",
    title: "How to read a top_ops row",
    text: "Rows are tt-perf-report's: devices merged (the slowest device's row; collectives " +
      "averaged), host ops and signposts kept; a row without a value for the metric is left " +
      "out of the ranking. A row's id is its line in the performance CSV, not a profiler id: " +
      "pass its operation_id (set when the handle holds both reports and they link) to " +
      "operation_detail or operation_provenance. A null bound is not a clean bill of health: " +
      "bound_analysis says whether a roofline model ran at all (full for matmuls, flops_only " +
      "for convolutions, none otherwise). cores is the CSV's CORE COUNT unless cores_source " +
      "says dram_sharded_matmul_cores: tt-perf-report's count for a DRAM-sharded matmul, the " +
      "CSV's own then in csv_core_count. Totals sum every row read, not only those returned, " +
      "and exist only for the additive metrics.",
  },
  {
    id: "gaps.host_time",
    title: "Op-to-op gaps are host time",
    text: "tt-perf-report's op-to-op gap is the time from one operation's end to the next " +
      "one's start as the host saw it: dispatch, program compiles on first calls and Python " +
      "between operations all land there. It is host-side time, not device work: where the " +
      "gaps add up to more than the device time, rank by device_time rather than " +
      "op_to_op_gap, and read a steady state (warm iterations, or a metal trace).",
  },
  {
    id: "timing.no_device_time",
    title: "A device operation without a device time",
    text: "A device operation has no device time when its DEVICE KERNEL DURATION [ns] cell is " +
      "blank, not a number or negative, or its OP TO OP LATENCY [ns] is below -1 ms, as in a " +
      "trace replay (tt-perf-report's invalid device duration). As in tt-perf-report, it is " +
      "left out of every device-time ranking, total and share, and of the roofline figures.",
  },
  {
    id: "lower_bounds.method",
    title: "How lower_bounds computes each figure",
    text: LOWER_BOUNDS_METHOD,
  },
  {
    id: "lower_bounds.assumptions",
    title: "What every lower bound assumes",
    text: "Every input and output tensor whose memory is DRAM is read or written exactly " +
      "once; tensors in L1 cost no DRAM time. Intermediate traffic (circular-buffer spills, " +
      "re-reads, halo exchanges) and dispatch are not counted, so the bound is a floor. " +
      "Compute limits exist only for ops tt-perf-report models (matmul, conv), on every worker " +
      "core of the device at the op's math fidelity; other ops are bounded by DRAM alone. The " +
      "measured time is tt-perf-report's device time (the device kernel duration; for a " +
      "collective, the mean over devices).",
  },
  {
    id: "lower_bounds.dram_only",
    title: "A bound from DRAM alone (bound_note dram_only)",
    text: "No compute model for this op (tt-perf-report models matmul and conv): the bound is " +
      "a floor from DRAM alone, so its gap overstates what could be won; model_ideal_us, when " +
      "given, is the performance model's own ideal time for comparison.",
  },
  {
    id: "lower_bounds.zero_bound",
    title: "A bound of 0 (note zero_bound)",
    text: "No tensor in DRAM and no compute model: the bound is 0, not a measurement.",
  },
  {
    id: "program_cache.calls",
    title: "First calls, repeat calls and misses",
    text: "A row is its program's first call when no earlier row of the report carries its " +
      "PROGRAM HASH; a first call builds its program and misses the cache by design. A repeat " +
      "miss rebuilt a program the run had already built (the performance view's recompute " +
      "candidate). The whole report is read, never a signpost range: a program first called " +
      "before a window would read as a first call inside it. first_repeat_miss_perf_id is a " +
      "performance-CSV row, not a profiler operation_id; first_repeat_miss_operation_id, when " +
      "the handle also holds a profiler report that links, is the id to pass to " +
      "operation_provenance.",
  },
  {
    id: "device_timeline.intervals",
    title: "How device_timeline splits busy time",
    text: "An operation's interval runs from its earliest kernel start on any core and RISC " +
      "to DEVICE FW END CYCLE (the last core's done), on one device's clock. busy is the first " +
      "interval's start to the last one's end; op_interval_sum + gap_sum + residual = busy, " +
      "and residual is 0 unless intervals overlap (overlapping_op_pairs). firmware gives the " +
      "same sums over DEVICE FW START→END CYCLE for contrast, and firmware.reading says what " +
      "they show here; overlapping_pairs_sharing_a_core counts the overlapping pairs in which " +
      "one core ran both. tt_perf_report sums tt-perf-report's device time and op-to-op gaps " +
      "over the window's rows on this device, and why_they_differ reconciles them with these " +
      "(note device_timeline.reconciliation). op_intervals_from_unpaired_start counts " +
      "intervals whose first kernel start opens a zone that did not pair. Figures are cycles " +
      "and µs (cycles ÷ clock_mhz).",
  },
  {
    id: "device_timeline.reconciliation",
    title: "Why op intervals and tt-perf-report's totals differ",
    text: "Op intervals run on past each operation's last kernel end to DEVICE FW END CYCLE: " +
      "those firmware tails are in op_interval_sum_us and not in tt-perf-report's device time " +
      "(DEVICE KERNEL DURATION ends at the last kernel end). What the tails do not explain is " +
      "where the CSV's DEVICE KERNEL DURATION and the log's kernel zones disagree: a row the " +
      "log did not place, a CSV written from another run than this log, or a multi-device row " +
      "whose device time is another device's (or, for a collective, a mean). A gap here runs " +
      "from the previous operation's DEVICE FW END CYCLE; tt-perf-report's is the CSV's OP TO " +
      "OP LATENCY, which tt-metal measures from the previous operation's last kernel end, and " +
      "the window's first operation has none: the firmware tails left out of device time " +
      "count in its gaps instead, and a latency across overlapping intervals is negative.",
  },
  {
    id: "device_timeline.gaps",
    title: "What makes gaps inside busy time",
    text: "Gaps inside busy time are device idle between one operation's last core done and " +
      "the next one's first kernel start: usually dispatch (the host or the dispatch cores " +
      "preparing and sending the next program), program loads on a cache miss, or a host sync " +
      "between operations. To confirm, capture the run with a metal trace (dispatch replayed " +
      "from device memory: gaps that shrink were dispatch) and with dispatch-core profiling " +
      "(TT_METAL_DEVICE_PROFILER_DISPATCH=1 beside TT_METAL_DEVICE_PROFILER=1: the dispatch " +
      "cores' own zones in the log).",
  },
  {
    id: "device_timeline.host_wait",
    title: "Host wait (wall_time_us)",
    text: "host_wait_us = wall_time_us − busy.us: a subtraction, valid only when the wall time " +
      "was measured over the same operations of the same run; it holds host-side work and " +
      "whatever the device log does not record.",
  },
  {
    id: "core_spread.spans",
    title: "How core_spread measures a core's span",
    text: "A core's span runs from its first kernel start to its last kernel end across its " +
      "RISCs, as tt-metal measures DEVICE KERNEL DURATION PER CORE; per_risc gives each RISC's " +
      "own per-core spans. Figures are µs (cycles ÷ clock_mhz) on the operation's own device " +
      "(its PCIe slot), from the kernel zones of its call count (run host ID) inside its " +
      "DEVICE FW START to END CYCLE, which keeps trace replays apart. imbalance is max ÷ " +
      "median. slowest_cores are NoC coordinates as the device log records them, not logical " +
      "worker coordinates (Wormhole's worker (0,0) logs as (1,1)). csv_per_core_us is the " +
      "performance CSV's own per-core min, max and average. in_log false means the log holds " +
      "no kernel zone for the operation; it then has no figures. A core's span is unknown " +
      "(null, never 0) when a kernel zone of it inside the window did not pair " +
      "(cores_unpaired) or its record had stopped mid-kernel in an earlier operation " +
      "(cores_record_stopped: a filled profiler buffer or a cut log); such cores are left out " +
      "of span_us, imbalance, per_risc and slowest_cores, and unknown_cores names up to 5 of " +
      "them. The log was read once for this handle, at clock_mhz; later calls answer from " +
      "that read.",
  },
  {
    id: "core_states.states",
    title: "The five states of a computing core",
    text: "For each core that ran a math kernel (a TRISC_1 kernel zone), the operation's " +
      "interval — from the first kernel start on any core to the last core's firmware end — " +
      "divides into five states: not_started (until this core's first kernel start), " +
      "before_math (until its math kernel starts), math (the math kernel), after_math (math " +
      "end to this core's last kernel end: the writer's write-back, BRISC), waiting_for_others " +
      "(until the last core is done). Each state is summed over the computing cores, so it is " +
      "core-time: core_cycles and core_us (µs × cores), not elapsed µs. share_percent is each " +
      "state's core_cycles ÷ (computing cores × interval), summed over the instances; the " +
      "five add to 100. A core whose kernel time in an instance is unknown (a kernel zone " +
      "that did not pair, or a record that had stopped mid-kernel earlier) is left out of the " +
      "states and counted in unknown_cores.",
  },
  {
    id: "core_utilisation.busy",
    title: "How core_utilisation counts a core busy",
    text: "A core's busy time is the union of its RISCs' kernel intervals (a RISC's first " +
      "kernel start to its last kernel end in each operation), inside the selected operation " +
      "intervals; firmware time outside kernels is not busy. utilisation = busy ÷ interval, " +
      "where interval is the sum of the selected operations' intervals (perf_id, op_code) or " +
      "the device's busy time over the window (neither). Classes: idle = no kernel, near_zero " +
      "= above 0 and below 0.5 %, active = 0.5 % to 95 %, saturated = 95 % and up, unknown = " +
      "the log cannot tell: in a selected operation a kernel zone of the core did not pair, or " +
      "its record had stopped mid-kernel earlier (a filled profiler buffer or a cut log). The " +
      "histogram bins the active and saturated cores in 5 % steps [a, a+5), the last one " +
      'closed. grid rows are NoC y, columns NoC x; a cell is utilisation %, "unknown", or null ' +
      "where the log recorded no Tensix core. cores_in_log counts the Tensix cores the log " +
      "recorded on the device (any row); cores with a command-queue zone (dispatch) and cores " +
      "with ERISC rows only (ethernet) are left out of it, the classes and the grid, and " +
      "counted in left_out_of_cores_in_log. mean_utilisation = Σ busy ÷ cores ÷ interval over " +
      "the cores mean_utilisation_over counts: cores_in_log less the unknown.",
  },
  {
    id: "capture.device_log",
    title: "How to capture the device log",
    text: DEVICE_LOG_FILE.capture,
  },
  {
    id: "capture.perf_counters",
    title: "How to capture performance counters",
    text: HOW_TO_CAPTURE,
  },
] as const satisfies readonly Note[];

/** The id of a note in the registry: what an answer's `notes` holds. */
export type NoteId = typeof NOTES[number]["id"];

/**
 * The note with `id`, or undefined.
 *
 * @example
 * ```ts
 * import { noteById } from "./notes.ts";
 * if (!noteById("basis.op_interval")?.text.includes("FW END")) throw new Error();
 * if (noteById("nope") !== undefined) throw new Error();
 * ```
 */
export function noteById(id: string): Note | undefined {
  return NOTES.find((n) => n.id === id);
}

/** The capture recipes a reason may end in, with the note that says them. */
const RECIPES: readonly { id: NoteId; text: string }[] = NOTES.filter((n) =>
  n.id.startsWith("capture.")
);

/**
 * `reason` with any capture recipe it ends in replaced by the note that says it, and the ids
 * of those notes: load_report gives the recipe once, by id, where a refusal gives it whole.
 *
 * @example
 * ```ts
 * import { noteById, recipesToNotes } from "./notes.ts";
 * const recipe = noteById("capture.device_log")!.text;
 * const { reason, notes } = recipesToNotes(`no log in /d: ${recipe}`);
 * if (reason !== "no log in /d (how to capture it: note capture.device_log)") throw new Error(reason);
 * if (notes[0] !== "capture.device_log") throw new Error();
 * ```
 */
export function recipesToNotes(reason: string): { reason: string; notes: NoteId[] } {
  for (const r of RECIPES) {
    const tail = `: ${r.text}`;
    if (reason.endsWith(tail)) {
      return {
        reason: `${reason.slice(0, -tail.length)} (how to capture it: note ${r.id})`,
        notes: [r.id],
      };
    }
  }
  return { reason, notes: [] };
}
