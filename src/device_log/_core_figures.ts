/**
 * Internal: core_spread's figures for one operation's window — each core's span from its
 * first kernel start to its last kernel end across its RISCs, summarised over the cores whose
 * span is known; the cores whose span is unknown (an unpaired kernel zone, a record that had
 * stopped) are listed apart and left out of every figure.
 *
 * @module
 */
import type { ByteInterner } from "./_intern.ts";
import { medianOfSorted } from "./_median.ts";
import type { CoreSpanFigures, KernelWindows } from "./summary.ts";
import { type CoreOfLane, sortUnknown, unknownCoresIn } from "./unknown_cores.ts";

/** The slowest cores named per operation. */
export const SLOWEST_CORES = 5;

/** A lane as the figures need it: its core and RISC. */
export interface FigureLane extends CoreOfLane {
  risc: number;
}

/** The figures of window `w`, or undefined when it holds no record and no stopped core. */
export function coreFigures(
  w: number,
  windows: KernelWindows,
  lanes: readonly FigureLane[],
  riscs: ByteInterner,
  coreAt: ReadonlyMap<number, CoreOfLane>,
): CoreSpanFigures | undefined {
  if (windows.starts[w] === windows.starts[w + 1]) return undefined;
  const unknown = unknownCoresIn(w, windows, lanes, coreAt);
  const perCore = new Map<number, { x: number; y: number; first: number; last: number }>();
  const byRisc = new Map<number, number[]>();
  const recorded = new Set<number>();
  for (let k = windows.starts[w]; k < windows.starts[w + 1]; k++) {
    const lane = lanes[windows.lane[k]];
    recorded.add(lane.core);
    if (unknown.has(lane.core)) continue;
    const first = windows.first[k];
    const last = windows.last[k];
    const core = perCore.get(lane.core);
    if (core === undefined) perCore.set(lane.core, { x: lane.x, y: lane.y, first, last });
    else {
      if (first < core.first) core.first = first;
      if (last > core.last) core.last = last;
    }
    let spans = byRisc.get(lane.risc);
    if (spans === undefined) byRisc.set(lane.risc, spans = []);
    spans.push(last - first);
  }
  const cores = [...perCore.values()].map((c) => ({ x: c.x, y: c.y, span: c.last - c.first }));
  const spans = Float64Array.from(cores, (c) => c.span).sort();
  const slowest = cores.sort((a, b) => b.span - a.span || a.x - b.x || a.y - b.y)
    .slice(0, SLOWEST_CORES);
  const perRisc = [...byRisc].map(([risc, values]) => {
    const sorted = Float64Array.from(values).sort();
    return {
      risc: riscs.names[risc],
      cores: sorted.length,
      min: sorted[0],
      median: medianOfSorted(sorted)!,
      max: sorted[sorted.length - 1],
    };
  }).sort((a, b) => (a.risc < b.risc ? -1 : a.risc > b.risc ? 1 : 0));
  let sum = 0;
  for (const s of spans) sum += s;
  const known = spans.length;
  return {
    cores: recorded.size,
    known,
    min: known > 0 ? spans[0] : null,
    median: medianOfSorted(spans),
    max: known > 0 ? spans[known - 1] : null,
    mean: known > 0 ? sum / known : null,
    perRisc,
    slowest,
    unknown: sortUnknown(unknown.values()),
    stoppedAbsent: [...unknown.values()].filter((c) => !recorded.has(c.core)).length,
  };
}
