/**
 * Internal: joins the slices of one read, in file order, into the log's summary. Per lane,
 * each slice's unpaired ends are matched — in order, innermost first — against the starts
 * the slices before it left open, and its own open starts are then stacked on top: exactly
 * what one pass over the whole file pairs, since within a slice a start always pairs with the
 * nearest end it could have paired with anyway. Whatever stays open at the end is unmatched.
 *
 * @module
 */
import type { FileIdentity } from "../kit/file_identity.ts";
import { ByteInterner, TextNumbers } from "./_intern.ts";
import { groupKey, Lanes } from "./_lanes.ts";
import type { SliceResult } from "./_slice.ts";
import { SpanRecorder } from "./_spans.ts";
import type { WindowTable } from "./_windows.ts";
import { MAX_OPEN_PER_LANE } from "./summary.ts";
import { pause, WorkClock } from "../kit/work_clock.ts";
import { LOW_BASE } from "./cycles.ts";
import type { DeviceLogSummary, PairingCounts, ZoneTotals } from "./summary.ts";

/** What the merge needs besides the slices. */
export interface MergeContext {
  identity: FileIdentity;
  capture: Record<string, string>;
  clockMhz: number | null;
  boundaryColumn: "type" | "zone phase" | null;
  /** The performance CSV's windows the slices placed kernel rows in, or null. */
  windows: WindowTable | null;
  /** Lines before the first slice (the preamble and the header). */
  linesBefore: number;
  /** Bytes before the first slice. */
  bytesBefore: number;
}

interface Open {
  /** Zone numbers (in the merge's own numbering). */
  zone: number[];
  run: number[];
  hi: number[];
  lo: number[];
}

/**
 * The summary of a log read as `slices`, in file order. Long stretches of work yield to the
 * event loop now and then, so a request that arrives meanwhile is answered.
 */
export async function mergeSlices(
  slices: readonly SliceResult[],
  ctx: MergeContext,
): Promise<DeviceLogSummary> {
  const paired = ctx.boundaryColumn !== null;
  const riscs = new ByteInterner();
  const lanes = new Lanes();
  // Zones are numbered once per slice (one lookup of each name), then found by number and
  // the RISC's number in `riscs`, so a log of a million distinct zone names merges in
  // linear time.
  const zoneNumbers = new TextNumbers();
  const zoneNames = zoneNumbers.names;
  const stats: ZoneTotals[][] = [];
  const zones: ZoneTotals[] = [];
  const statOf = (zone: number, risc: number): ZoneTotals => {
    const byRisc = stats[zone] ??= [];
    let s = byRisc[risc];
    if (s === undefined) {
      s = {
        zone: zoneNames[zone],
        risc: riscs.names[risc],
        occurrences: 0,
        cores: 0,
        totalCycles: paired ? 0 : null,
        unmatchedStarts: 0,
        unmatchedEnds: 0,
        endsBeforeStarts: 0,
        droppedStarts: 0,
      };
      byRisc[risc] = s;
      zones.push(s);
    }
    return s;
  };
  // Long loops over zones let a ping or a cancellation in every SLICE_MS.
  const clock = new WorkClock();
  const groupPairing = new Map<number | string, { starts: number; ends: number }>();
  const pairingOf = (slot: number, run: number) => {
    const key = groupKey(slot, run);
    let p = groupPairing.get(key);
    if (p === undefined) groupPairing.set(key, p = { starts: 0, ends: 0 });
    return p;
  };
  const open: Open[] = [];
  const seen: Set<number>[] = [];
  const spans = ctx.windows && paired ? new SpanRecorder(ctx.windows) : null;
  const leftOut = { count: 0, kernel: 0, short: 0, notNumber: 0, outOfRange: 0, firstLine: 0 };
  let lineOffset = ctx.linesBefore;
  let bytes = ctx.bytesBefore;
  let rows = 0;
  let unnamedRows = 0;

  for (const r of slices) {
    const riscOf = r.riscs.map((name) => riscs.internText(name));
    const zoneOf = new Int32Array(r.zones.length);
    for (let z = 0; z < r.zones.length; z++) {
      zoneOf[z] = zoneNumbers.numberOf(r.zones[z]);
      if ((z & 0xffff) === 0xffff) await clock.tick();
    }
    for (let i = 0; i < r.stats.length; i++) {
      const st = r.stats[i];
      const s = statOf(zoneOf[st.zone], riscOf[st.risc]);
      s.occurrences += st.occurrences;
      if (s.totalCycles !== null) s.totalCycles += st.total;
      s.endsBeforeStarts += st.backwards;
      s.droppedStarts += st.dropped;
      if ((i & 0xffff) === 0xffff) await clock.tick();
    }
    const laneMap = new Int32Array(r.lanes.length);
    for (let i = 0; i < r.lanes.length; i++) {
      const l = r.lanes[i];
      const risc = riscOf[l.risc];
      const lane = lanes.get(l.slot, l.x, l.y, risc);
      laneMap[i] = lane.id;
      const zonesSeen = seen[lane.id] ??= new Set();
      for (let k = 0; k < l.zones.length; k++) {
        zonesSeen.add(zoneOf[l.zones[k]]);
        if ((k & 0xffff) === 0xffff) await clock.tick();
      }
      const stack = open[lane.id] ??= { zone: [], run: [], hi: [], lo: [] };
      for (let k = 0; k < l.ends.zone.length; k++) {
        const zone = zoneOf[l.ends.zone[k]];
        const run = l.ends.run[k];
        let j = stack.zone.length - 1;
        while (j >= 0 && (stack.zone[j] !== zone || stack.run[j] !== run)) j--;
        const s = statOf(zone, risc);
        if (j < 0) {
          s.unmatchedEnds++;
          pairingOf(l.slot, run).ends++;
          continue;
        }
        const d = (l.ends.hi[k] - stack.hi[j]) * LOW_BASE + (l.ends.lo[k] - stack.lo[j]);
        stack.zone.splice(j, 1);
        stack.run.splice(j, 1);
        stack.hi.splice(j, 1);
        stack.lo.splice(j, 1);
        if (d < 0) s.endsBeforeStarts++;
        else {
          s.occurrences++;
          s.totalCycles! += d;
        }
      }
      for (let k = 0; k < l.open.zone.length; k++) {
        const zone = zoneOf[l.open.zone[k]];
        if (stack.zone.length >= MAX_OPEN_PER_LANE) {
          statOf(zone, risc).droppedStarts++;
          continue;
        }
        stack.zone.push(zone);
        stack.run.push(l.open.run[k]);
        stack.hi.push(l.open.hi[k]);
        stack.lo.push(l.open.lo[k]);
      }
      await clock.tick();
    }
    const bad = r.leftOut;
    const firstBad = Math.min(
      bad.count > 0 ? bad.firstLine : Infinity,
      r.overlong > 0 ? r.overlongFirstLine : Infinity,
    );
    if (leftOut.count === 0 && firstBad !== Infinity) leftOut.firstLine = lineOffset + firstBad;
    leftOut.count += bad.count + r.overlong;
    leftOut.kernel += bad.kernel;
    leftOut.short += bad.short + r.overlong;
    leftOut.notNumber += bad.notNumber;
    leftOut.outOfRange += bad.outOfRange;
    unnamedRows += r.unnamedRows;
    rows += r.rows + r.overlong;
    bytes += r.bytes;
    lineOffset += r.lines;
    if (spans && r.spans) spans.absorb(r.spans, laneMap);
    await pause();
  }

  for (const lane of lanes.all) {
    let k = 0;
    for (const zone of seen[lane.id]) {
      statOf(zone, lane.risc).cores++;
      if ((++k & 0xffff) === 0) await clock.tick();
    }
    const stack = open[lane.id];
    for (let k = 0; k < stack.zone.length; k++) {
      statOf(stack.zone[k], lane.risc).unmatchedStarts++;
      pairingOf(lane.slot, stack.run[k]).starts++;
    }
  }
  let pairing: PairingCounts | null = null;
  if (paired) {
    pairing = { unmatched_starts: 0, unmatched_ends: 0, ends_before_starts: 0, dropped_starts: 0 };
    for (const z of zones) {
      pairing.unmatched_starts += z.unmatchedStarts;
      pairing.unmatched_ends += z.unmatchedEnds;
      pairing.ends_before_starts += z.endsBeforeStarts;
      pairing.dropped_starts += z.droppedStarts;
    }
  }
  const unpaired = (slot: number, run: number) => {
    const p = groupPairing.get(groupKey(slot, run));
    return { starts: p?.starts ?? 0, ends: p?.ends ?? 0 };
  };
  const operationSpans = spans ? await spans.finish(lanes.all, riscs, unpaired) : null;
  return {
    identity: ctx.identity,
    capture: ctx.capture,
    clockMhz: ctx.clockMhz,
    boundaryColumn: ctx.boundaryColumn,
    bytes,
    dataRows: rows,
    devices: new Set(lanes.all.map((l) => l.slot)).size,
    zones,
    pairing,
    leftOut,
    unnamedRows,
    lanes: lanes.all.map((l) => ({
      slot: l.slot,
      x: l.x,
      y: l.y,
      risc: riscs.names[l.risc],
      core: l.core,
      dispatch: [...seen[l.id]].some((z) => isDispatchZone(zoneNames[z])),
    })),
    spans: operationSpans,
  };
}

/** A command-queue zone: the core dispatches or prefetches commands rather than computing. */
function isDispatchZone(zone: string): boolean {
  return zone === "CQ-DISPATCH" || zone === "CQ-PREFETCH" || zone.startsWith("CQ_DISPATCH");
}
