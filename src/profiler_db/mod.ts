/**
 * The door to the profiler database reader (`db.sqlite`): its probe and read-only opening, the
 * schema, the connection, its tables' rows at a host rank, captured graphs, the buffers scan and
 * the L1 replay (`l1/`). A module outside `profiler_db/` imports from here alone
 * (`tests/unit/layers_test.ts`).
 * @module
 */

export { type OperationBuffers, scanOperations } from "./buffer_scan.ts";
export { BUFFER_TYPES_SORTED, bufferTypeName } from "./buffer_types.ts";
export {
  allocationsByType,
  BUFFER_COLUMNS,
  type BufferRow,
  perBankLookup,
  perBankSizes,
  snapshotAt,
  snapshotAtInSteps,
  type TypeAllocation,
} from "./buffers.ts";
export {
  type ClusterDescriptor,
  pickDescriptor,
  readOpenedDescriptor,
} from "./cluster_descriptor.ts";
export { eachRow, ident, memo, type ProfilerDb, row, rows } from "./connection.ts";
export type { Database, Statement } from "./database.ts";
export { type Pause, pauseOn, rowsInSteps, STEP_ROWS, stepsOf } from "./steps.ts";
export { coresIn } from "./core_ranges.ts";
export {
  type GraphScope,
  graphScopes,
  isDeviceOperation,
  launchesIn,
  scopesProblem,
} from "./device_launches.ts";
export {
  type DeviceBlock,
  deviceBlock,
  devicesAt,
  geometryDiffers,
  type L1Window,
  l1Window,
} from "./devices.ts";
export {
  andRank,
  rankCaveat,
  rankFields,
  type RankScope,
  rankScope,
  ranksOf,
  requireAttributable,
  unattributable,
} from "./host_rank.ts";
export {
  type GraphReading,
  NotGrouped,
  openGraphs,
  ReadByRows,
  type RowSource,
  startRanges,
} from "./l1/graph_rows.ts";
export {
  LAST_USE_COLUMNS,
  lastUsesInSteps,
  lastUsesOf,
  lastUsesQuery,
  operationIds,
  operationIdsInSteps,
  snapshotsOf,
} from "./l1/inputs.ts";
export {
  type Contributor,
  type L1Figures,
  type L1PeakAt,
  L1Replay,
  type ResidentKind,
} from "./l1/replay.ts";
export {
  findOperations,
  type ListedOperation,
  noOperation,
  type Operation,
  operationById,
  operationNames,
  recordsTraces,
} from "./operations.ts";
export {
  CLUSTER_DESCRIPTOR_FILE,
  dropKept,
  openReadOnly,
  openReadOnlyChecked,
  probeOpenedDb,
  PROFILER_DB_FILE,
  PROFILER_DB_NAME,
  type ProfilerDbProbe,
  unusableDb,
} from "./probe.ts";
export { type Needs, Schema } from "./schema.ts";
export { type Frame, looksNative, parseFrames } from "./stack_frames.ts";
export {
  describeTensor,
  MAX_TENSORS,
  operationsUsing,
  operationTensors,
  tensorsByIds,
  tensorSizeUnit,
  type TensorView,
} from "./tensors.ts";
