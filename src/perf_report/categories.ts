/**
 * tt-perf-report 6278e268's op categories (`OPERATION_CATEGORIES`, `classify_operation`).
 * @module
 */

import { pyFirstToken } from "./_python.ts";

/** A category tt-perf-report assigns; later releases may add more. */
export type OpCategory = "Compute" | "CCL" | "TM" | "DM" | "Host" | "Other";

/** The category order the tool's chart and stacked report use. */
export const CATEGORY_ORDER: readonly OpCategory[] = [
  "Compute",
  "CCL",
  "TM",
  "DM",
  "Host",
  "Other",
];

/** Host fallback ops carry this marker anywhere in their op code. */
export const HOST_OP_MARKER = "(torch)";

/** Unclassified-op warnings cut the echoed name to this many characters. */
export const MAX_WARNED_OP_NAME_CHARS = 80;

/** Base op names per category; each also matches with `DeviceOperation` appended. */
export const OPERATION_CATEGORIES: Readonly<
  Record<Exclude<OpCategory, "Other">, readonly string[]>
> = {
  Compute: [
    "AllGatherMatmul",
    "RMSAllGather",
    "ScaledDotProductAttentionDecode",
    "SdpaDecode",
    "RotaryEmbeddingLlama",
    "RotaryEmbedding",
    "SDPAOperation",
    "OptimizedConvNew",
    "Conv2d",
    "Matmul",
    "BinaryNg",
    "Binary",
    "Unary",
    "Pool2D",
    "UpSample",
    "UpsampleOperation",
    "GroupNorm",
    "GridSample",
    "Accumulation",
    "LayerNorm",
    "ScaledDotProductAttention",
    "Reduce",
    "FastReduceNC",
    "ArgMax",
    "Softmax",
    "Embeddings",
    "MinimalMatmulOp",
    "SparseMatmul",
    "IntImg",
    "GridSampleOperation",
    "MoeGroupedTopk",
    "MaskedBincount",
    "OffsetCumsum",
    "UnifiedRoutedExpertFfn",
    "PostCombineReduce",
  ],
  DM: [
    "PagedUpdateCacheDeviceOperation",
    "Move",
    "Copy",
    "InterleavedToSharded",
    "ShardedToInterleaved",
    "InterleavedToShardedPartial",
    "ShardedToInterleavedPartial",
    "Halo",
    "Where",
    "CloneOperation",
    "Reshard",
  ],
  CCL: [
    "AllGather",
    "AllGatherAsync",
    "AllGatherConcat",
    "ReduceScatter",
    "ReduceScatterMinimalAsync",
    "ReduceScatterMinimalDirect",
    "StridedReduceScatterAsync",
    "LlamaReduceScatter",
    "DeepseekMoEReduceScatter",
    "StridedAllGatherAsync",
    "SliceReshardAsync",
    "SelectiveReduceCombine",
    "ReduceToRootOp",
    "AllReduceAsync",
    "AllToAllAsync",
    "AllToAllAsyncGeneric",
    "AllToAllDispatch",
    "AllToAllDispatchMetadata",
    "AllToAllCombine",
    "AllBroadcast",
    "Broadcast",
    "SendAsync",
    "RecvAsync",
    "SendDirectAsync",
    "RecvDirectAsync",
    "Dispatch",
    "Combine",
  ],
  TM: [
    "NLPCreateHeadsDecodeDeviceOperation",
    "NLPCreateQKVHeadsDecodeDeviceOperation",
    "NLPConcatHeadsDecodeDeviceOperation",
    "Fold",
    "CreateQKVHeadsDeviceOperation",
    "ConcatenateHeads",
    "Reshape",
    "ReshapeView",
    "Transpose",
    "Permute",
    "Slice",
    "PaddedSlice",
    "SliceWrite",
    "Concat",
    "Split",
    "Repeat",
    "TilizeWithValPadding",
    "Tilize",
    "UntilizeWithUnpadding",
    "Untilize",
    "Typecast",
    "NLPConcatHeads",
    "NlpCreateHeads",
    "Ternary",
    "FillPad",
    "PadDeviceOperation",
  ],
  Host: [HOST_OP_MARKER],
};

let extended: Map<string, OpCategory> | null = null;

function lookupTable(): Map<string, OpCategory> {
  if (extended === null) {
    extended = new Map();
    for (const [category, names] of Object.entries(OPERATION_CATEGORIES)) {
      for (const name of names) {
        extended.set(name, category as OpCategory);
        extended.set(`${name}DeviceOperation`, category as OpCategory);
      }
    }
  }
  return extended;
}

/** The warning tt-perf-report prints (once per name) for an op it cannot classify. */
export function unclassifiedWarning(baseOp: string): { key: string; message: string } {
  const chars = [...baseOp];
  const key = chars.slice(0, MAX_WARNED_OP_NAME_CHARS).join("");
  const shown = chars.length <= MAX_WARNED_OP_NAME_CHARS ? key : `${key}…`;
  return {
    key,
    message: `Warning: Unclassified operation '${shown}' found. ` +
      "Please add to OPERATION_CATEGORIES for proper classification.",
  };
}

/**
 * `classify_operation`: `Host` when the text contains `(torch)` anywhere; otherwise the
 * category of its first whitespace token (exact, case-sensitive, also with `DeviceOperation`
 * appended); otherwise `Other`. `onUnclassified` receives the token of an `Other` op.
 */
export function classifyOperation(
  opCode: string,
  onUnclassified?: (baseOp: string) => void,
): OpCategory {
  if (opCode.includes(HOST_OP_MARKER)) return "Host";
  const token = pyFirstToken(opCode);
  if (token === undefined) return "Other";
  const category = lookupTable().get(token);
  if (category !== undefined) return category;
  onUnclassified?.(token);
  return "Other";
}

const COLLECTIVE_MARKERS = ["AllGather", "ReduceScatter", "AllReduce"];

/**
 * True for the ops tt-perf-report's per-device merge averages (AllGather, ReduceScatter,
 * AllReduce in the name).
 */
export function isCollective(opCode: string): boolean {
  return COLLECTIVE_MARKERS.some((m) => opCode.includes(m));
}
