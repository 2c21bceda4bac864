/**
 * Passes: a capture that runs the same operation sequence more than once (a model run twice,
 * warm-up then measure) holds one pass per run. Without signposts nothing else tells them
 * apart, and every total sums a cold first pass (program compiles, host-sized gaps) with the
 * warm ones. This finds the repeats in the whole report's row order and says what each pass
 * took, so a tool can read one pass by its row range.
 *
 * @module
 */
import { type PerfReport, type PerfRow, PythonSum } from "../perf_report/mod.ts";
import { round3 } from "../kit/rounding.ts";

/** One pass of a repeating capture. */
export interface Pass {
  /** 1-based. */
  pass: number;
  /** The first and last performance CSV line of the pass (`start_row`/`end_row`). */
  start_row: number;
  end_row: number;
  ops: number;
  device_time_us: number;
  /** Σ positive op-to-op gap between the pass's own operations (its first has none). */
  op_to_op_gap_us: number;
  /** Whether the pass looks cold: its gaps pass its device time, or it missed the cache. */
  cold: boolean;
}

/** The passes of a report: none unless its operation sequence repeats whole. */
export interface Passes {
  passes: Pass[];
  /** The last pass that does not look cold, or null. */
  warm_pass: number | null;
}

/**
 * The passes of `whole`, found as the shortest operation sequence (op codes of the rows that are
 * not signposts, in report order) that the whole sequence repeats exactly, at least twice. Rows
 * must be in CSV-line order for a pass to be a row range; otherwise none is found. `missed`
 * says whether a row's program missed the cache (PROGRAM CACHE HIT False), when recorded.
 *
 * @example
 * ```ts
 * import { passesOf } from "./passes.ts";
 * const row = (id: number, op_code: string, gap: number) =>
 *   ({ id, op_code, raw_op_code: op_code, is_signpost: false, device_time: 10, op_to_op_gap: gap });
 * const rows = [row(2, "A", 900), row(3, "B", 900), row(4, "A", 1), row(5, "B", 1)];
 * const { passes, warm_pass } = passesOf({ rows } as never);
 * if (passes.length !== 2 || passes[1].start_row !== 4 || warm_pass !== 2) throw new Error();
 * ```
 */
export function passesOf(
  whole: Pick<PerfReport, "rows">,
  missed: (row: PerfRow) => boolean = () => false,
): Passes {
  const rows = whole.rows;
  const none = { passes: [], warm_pass: null };
  for (let i = 1; i < rows.length; i++) if (rows[i].id <= rows[i - 1].id) return none;
  const ops = rows.filter((r) => !r.is_signpost);
  const period = shortestPeriod(ops.map((r) => r.raw_op_code));
  if (period === null) return none;
  const passes: Pass[] = [];
  // Ids rise strictly (checked above), so a pass's rows are the run from its first row to its
  // last: found by walking forward once, not by filtering every row for every pass.
  // Its sums are taken as its rows are walked, with no array of them.
  let from = 0;
  for (let k = 0; k * period < ops.length; k++) {
    const first = k === 0 ? rows[0] : ops[k * period];
    const last = k === ops.length / period - 1 ? rows[rows.length - 1] : ops[(k + 1) * period - 1];
    while (rows[from] !== first) from++;
    const device = new PythonSum();
    const gap = new PythonSum();
    let anyMissed = false;
    let to = from;
    for (;; to++) {
      const r = rows[to];
      if (finite(r.device_time)) device.add(r.device_time);
      if (to > from && finite(r.op_to_op_gap) && r.op_to_op_gap > 0) gap.add(r.op_to_op_gap);
      if (!anyMissed && missed(r)) anyMissed = true;
      if (r === last) break;
    }
    passes.push({
      pass: k + 1,
      start_row: first.id,
      end_row: last.id,
      ops: Math.min(period, ops.length - k * period),
      device_time_us: round3(device.value)!,
      op_to_op_gap_us: round3(gap.value)!,
      cold: gap.value > device.value || anyMissed,
    });
  }
  const warm = passes.filter((p) => !p.cold).at(-1);
  return { passes, warm_pass: warm?.pass ?? null };
}

function finite(v: number | null): v is number {
  return v !== null && Number.isFinite(v);
}

/** The fewest operations a pass holds (one op run over and over is not a sequence). */
const MIN_PASS_OPS = 2;

/** The shortest period p (p < n, dividing n) the sequence repeats exactly, or null. */
function shortestPeriod(seq: readonly string[]): number | null {
  const n = seq.length;
  for (let p = MIN_PASS_OPS; p <= n / 2; p++) {
    if (n % p !== 0) continue;
    let ok = true;
    for (let i = p; i < n && ok; i++) ok = seq[i] === seq[i - p];
    if (ok) return p;
  }
  return null;
}
