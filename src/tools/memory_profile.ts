/**
 * `memory_profile`: memory footprint per operation, keyed by buffer type and ranked within
 * each type, with each type's largest footprint, the device's L1 geometry, and l1_pressure
 * ranking operations by the smallest largest free block — a floor, never the peak.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { capped, handleArg, limitArg } from "./args.ts";
import { rankArg } from "./args.ts";
import { joinCaveats, rankCaveat, rankFields, unattributable } from "../profiler_db/rank.ts";
import { operationNames } from "../profiler_db/operations.ts";
import { BUFFER_COLUMNS } from "../profiler_db/buffers.ts";
import { BUFFER_TYPES_SORTED } from "../profiler_db/buffer_types.ts";
import { memorySummary } from "../profiler_db/memory_summary.ts";
import { deviceBlock, devicesAt, geometryDiffers } from "../profiler_db/devices.ts";
import { L1_PRESSURE_CAVEAT, present as withPercentages } from "../profiler_db/l1_pressure.ts";
import { FLOOR_NOTE, STATED_ABSENCES } from "../profiler_db/absences.ts";
import { openAtRank } from "../session/profiler_db.ts";
import { cannotAnswerFrom } from "../session/profiler_db.ts";

const NEEDS = { operations: ["operation_id", "name"], buffers: BUFFER_COLUMNS } as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
const RANKED = ["buffers"];

const input = z.strictObject({
  handle: handleArg,
  buffer_type: z.string().optional().describe(
    `One buffer type to report (${BUFFER_TYPES_SORTED.join(", ")}; any case); omit for all.`,
  ),
  limit: limitArg("Operations per buffer type, and in the l1_pressure ranking,"),
  rank: rankArg,
});

/** The `memory_profile` tool. */
export const memoryProfileTool = reportTool({
  name: "memory_profile",
  title: "Memory footprint per operation",
  description:
    "Memory footprint per operation from the buffers live after each one, keyed by buffer type " +
    "and ranked within each type (never added across types): each type's largest footprint " +
    "(peak) and how many operations share it (operations_at_peak), the device's L1 geometry, " +
    "and l1_pressure ranking operations by smallest largest_free_block on their most " +
    "constrained device. Bytes per bank. This is a floor, not the peak: circular buffers and " +
    "tensors freed inside an operation are never in the buffers table, so do not answer an " +
    "out-of-memory question from it.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  async handler(args, ctx) {
    const asked = args.buffer_type?.trim() ?? "";
    const type = asked === "" ? null : asked.toUpperCase();
    if (type !== null && !BUFFER_TYPES_SORTED.includes(type)) {
      throw new Refusal(
        `unknown buffer_type '${asked}'; expected one of ${BUFFER_TYPES_SORTED.join(", ")}`,
      );
    }
    const { report } = ctx;
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const limit = capped(args.limit);
    const summary = await memorySummary(pdb, scope);
    const present = [...summary.byType.keys()];
    if (type !== null && present.length > 0 && !present.includes(type)) {
      throw new Refusal(`no ${type} buffers in this report; it holds ${present.join(", ")}`);
    }
    const types = type === null ? present : [type];
    const listed = new Map(
      types.map((t) => [t, (summary.byType.get(t)?.top ?? []).slice(0, limit)]),
    );

    const parts: (string | null)[] = [rankCaveat(scope)];
    if (summary.operations === 0) {
      parts.push("The buffers table holds no rows here, so no footprint is recorded.");
    }
    const deviceWhy = unattributable(pdb, scope, ["devices"]);
    const devices = deviceWhy === null ? devicesAt(pdb, scope) : [];
    if (deviceWhy !== null) parts.push(`device is withheld: ${deviceWhy}.`);
    else if (devices.length > 1 && geometryDiffers(devices)) {
      parts.push(
        `The devices differ in L1 geometry; device gives device ${devices[0].device_id}'s.`,
      );
    }

    let l1Pressure: Record<string, unknown> | null = null;
    let ranked: { operation_id: number }[] = [];
    if ("why" in summary.pressure) parts.push(summary.pressure.why);
    else {
      const every = summary.pressure;
      const shown = every.top.slice(0, limit).map((p) => ({
        operation_id: p.operation_id,
        ...withPercentages(p),
      }));
      ranked = shown;
      l1Pressure = {
        ranking: shown,
        operation_count: every.operations,
        returned: shown.length,
        size_unit: "bytes_per_bank",
        free_space_precision: "upper_bound",
      };
      parts.push(L1_PRESSURE_CAVEAT);
      if (every.strayDevices.length > 0) {
        parts.push(
          `L1 buffers on device${every.strayDevices.length > 1 ? "s" : ""} ${
            every.strayDevices.join(", ")
          } are left out of l1_pressure: the devices table gives no L1 geometry for them.`,
        );
      }
    }

    const names = operationNames(pdb, scope, [
      ...[...listed.values()].flat().map((f) => f.operation_id),
      ...ranked.map((r) => r.operation_id),
    ]);
    const named = <T extends { operation_id: number }>(r: T) => ({
      operation_id: r.operation_id,
      name: names.get(r.operation_id) ?? null,
      ...Object.fromEntries(Object.entries(r).filter(([k]) => k !== "operation_id")),
    });
    if (l1Pressure) l1Pressure.ranking = (l1Pressure.ranking as typeof ranked).map(named);

    const byType: Record<string, unknown> = {};
    for (const t of types) {
      const all = summary.byType.get(t);
      byType[t] = {
        peak: all?.peak ?? 0,
        operations_at_peak: all?.atPeak ?? 0,
        operation_count: all?.operations ?? 0,
        returned: listed.get(t)!.length,
        operations: listed.get(t)!.map(named),
      };
    }
    const caveat = joinCaveats(parts);
    return {
      handle: args.handle,
      buffer_type: type,
      memory_by_buffer_type: byType,
      buffer_types_present: present,
      size_unit: "bytes_per_bank",
      device: deviceWhy === null ? deviceBlock(devices) : null,
      l1_pressure: l1Pressure,
      note: FLOOR_NOTE,
      stated_absences: STATED_ABSENCES,
      ...rankFields(scope),
      ...(caveat ? { caveat } : {}),
    };
  },
});
