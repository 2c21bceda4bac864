/**
 * `tensor_flow`: which operation produced a tensor and which ones consumed it, with the
 * tensor's shape, dtype, layout, memory config and size.
 *
 * @module
 */
import { z } from "zod";
import { reportTool } from "./tool.ts";
import { Refusal } from "../kit/refusal.ts";
import { handleArg, helped, rankArg } from "./args.ts";
import {
  describeTensor,
  MAX_TENSORS,
  operationNames,
  operationsUsing,
  perBankLookup,
  type ProfilerDb,
  rankCaveat,
  rankFields,
  type RankScope,
  tensorsByIds,
  tensorSizeUnit,
  type TensorView,
} from "../profiler_db/mod.ts";
import { cannotAnswerFrom, openAtRank } from "../session/profiler_db.ts";

const NEEDS = {
  operations: ["operation_id", "name"],
  tensors: ["tensor_id"],
  input_tensors: ["operation_id", "tensor_id"],
  output_tensors: ["operation_id", "tensor_id"],
} as const;

/** The tables whose rows must carry the rank on a report holding more than one. */
const RANKED = ["tensors", "input_tensors", "output_tensors"];

const input = z.strictObject({
  handle: handleArg,
  tensor_id: helped(z.number().int(), "A tensor id, as operation_detail lists them."),
  rank: rankArg,
});

/** The unit of a tensor's size: whole bytes, or the per-bank figure of its buffer. */
type SizeUnit = ReturnType<typeof tensorSizeUnit>;

/** The tensor as its `tensors` row describes it. */
interface FlowTensor extends TensorView {
  size_unit: SizeUnit;
}

/** An operation producing or consuming the tensor. */
interface FlowOperation {
  operation_id: number;
  name: string | null;
}

/** The answer of `tensor_flow`. */
export interface TensorFlowAnswer {
  handle: string;
  tensor_id: number;
  /** Null when operations reference the tensor but `tensors` has no row for it. */
  tensor: FlowTensor | null;
  tensor_size_unit: SizeUnit;
  producers: FlowOperation[];
  producer_count: number;
  consumers: FlowOperation[];
  consumer_count: number;
  multi_host: boolean;
  rank: number | null;
}

/** The `tensor_flow` tool. */
export const tensorFlowTool = reportTool({
  name: "tensor_flow",
  title: "Tensor producers and consumers",
  summary: "Which profiler operations produced a tensor and which consumed it, with the " +
    "tensor's shape, dtype, layout, memory config, buffer type and size.",
  description:
    "Which profiler operations produced a tensor and which consumed it, with its shape, " +
    "dtype, layout and memory.",
  input,
  reads: ["profiler_db"],
  cannotAnswer: cannotAnswerFrom(NEEDS, RANKED),
  handler(args, ctx): TensorFlowAnswer {
    const { pdb, scope } = openAtRank(ctx, NEEDS, RANKED, args.rank);
    const id = args.tensor_id;
    const row = tensorsByIds(pdb, scope, [id]).get(id);
    const producers = operationsUsing(pdb, scope, id, "output");
    const consumers = operationsUsing(pdb, scope, id, "input");
    if (!row && producers.length === 0 && consumers.length === 0) {
      throw new Refusal(
        `no tensor ${id} in this report${scope.rank === null ? "" : ` at rank ${scope.rank}`}`,
      );
    }
    const shown = [...producers.slice(0, MAX_TENSORS), ...consumers.slice(0, MAX_TENSORS)];
    const names = operationNames(pdb, scope, shown);
    const entry = (operation_id: number): FlowOperation => ({
      operation_id,
      name: names.get(operation_id) ?? null,
    });
    const unit = tensorSizeUnit(pdb);
    const tensor = row
      ? tensorOf(pdb, scope, row, unit, producers[0] ?? consumers[0] ?? null)
      : null;
    ctx.parts.caveat(
      rankCaveat(scope),
      row ? null : `Tensor ${id} is referenced by operations but has no row in \`tensors\`, so ` +
        "its shape, dtype and size are not recorded.",
      tensor?.caveat,
    );
    return {
      handle: args.handle,
      tensor_id: id,
      tensor: tensor?.tensor ?? null,
      tensor_size_unit: unit,
      producers: producers.slice(0, MAX_TENSORS).map(entry),
      producer_count: producers.length,
      consumers: consumers.slice(0, MAX_TENSORS).map(entry),
      consumer_count: consumers.length,
      ...rankFields(scope),
    };
  },
});

/**
 * The tensor described from its row, with why its size is null when it is. Without a size
 * column, the tensor's buffer is looked up where it is surely live: after `liveAfter`, the
 * operation that produced it, else its first consumer.
 */
function tensorOf(
  pdb: ProfilerDb,
  scope: RankScope,
  row: Parameters<typeof describeTensor>[1],
  unit: SizeUnit,
  liveAfter: number | null,
): { tensor: FlowTensor; caveat: string | null } {
  const sizes = unit === "bytes"
    ? { lookup: () => null, why: null }
    : perBankLookup(pdb, scope, liveAfter);
  return {
    tensor: { ...describeTensor(pdb, row, sizes.lookup), size_unit: unit },
    caveat: sizes.why,
  };
}
