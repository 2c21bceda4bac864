/**
 * A tensor's `memory_config` as tt-metal prints it — `MemoryConfig(memory_layout=…,
 * buffer_type=BufferType::…,shard_spec=…)` — read into what says whether the tensor is
 * interleaved or sharded and, when sharded, over which cores and in what shard shape. Both
 * shard-spec spellings are read: the older `ShardSpec(grid={[(x=0,y=0) - (x=7,y=6)]},
 * shape={224, 64},…)` and the newer `ShardSpec{grid=[{"start":{"x":0,"y":0},…}], shape=[…],…}`.
 *
 * @module
 */

/** One rectangle of cores, inclusive. */
export interface CoreRange {
  start: [number, number];
  end: [number, number];
}

/** A parsed shard spec. */
export interface ShardSpec {
  /** The grid's core ranges, at most MAX_GRID_RANGES of them. */
  grid: CoreRange[];
  /** Present when the grid holds more ranges than are listed: how many it holds. */
  grid_range_count?: number;
  /** Cores the grid covers (every range counted). */
  core_count: number;
  shape: number[] | null;
  orientation: string | null;
}

/** A parsed memory config. */
export interface MemoryConfig {
  memory_layout: string | null;
  buffer_type: string | null;
  /** null when the config says `std::nullopt`; `{ unparsed }` for a spelling not read here. */
  shard_spec: ShardSpec | { unparsed: string } | null;
}

/** An unparsed shard spec is quoted up to this many characters. */
const UNPARSED_CAP = 200;

/** A shard grid lists at most this many core ranges. */
export const MAX_GRID_RANGES = 16;

/**
 * The memory config in `text`, or null when it is not a whole `MemoryConfig(...)` string.
 *
 * @example
 * ```ts
 * import { parseMemoryConfig } from "./memory_config.ts";
 * const c = parseMemoryConfig("MemoryConfig(memory_layout=TensorMemoryLayout::BLOCK_SHARDED," +
 *   "buffer_type=BufferType::L1,shard_spec=ShardSpec(grid={[(x=0,y=0) - (x=2,y=1)]}," +
 *   "shape={224, 64},orientation=ShardOrientation::ROW_MAJOR,halo=0))");
 * if (c?.memory_layout !== "BLOCK_SHARDED" || c.buffer_type !== "L1") throw new Error();
 * if (!c.shard_spec || !("core_count" in c.shard_spec) || c.shard_spec.core_count !== 6) throw new Error();
 * if (parseMemoryConfig("{}") !== null) throw new Error();
 * ```
 */
export function parseMemoryConfig(text: unknown): MemoryConfig | null {
  if (typeof text !== "string") return null;
  const s = text.trim();
  if (!s.startsWith("MemoryConfig(") || !s.endsWith(")")) return null;
  const layout = /memory_layout=(?:TensorMemoryLayout::)?([A-Za-z_]+)/.exec(s)?.[1] ?? null;
  const bufferType = /buffer_type=(?:BufferType::)?([A-Z0-9_]+)/.exec(s)?.[1] ?? null;
  return { memory_layout: layout, buffer_type: bufferType, shard_spec: shardSpecOf(s) };
}

function shardSpecOf(s: string): MemoryConfig["shard_spec"] {
  const at = s.indexOf("shard_spec=");
  if (at < 0) return null;
  const rest = s.slice(at + "shard_spec=".length);
  if (rest.startsWith("std::nullopt")) return null;
  const older =
    /^ShardSpec\(grid=\{(.*?)\},shape=\{([\d,\s]*)\},orientation=(?:ShardOrientation::)?(\w+)/
      .exec(rest);
  if (older) {
    const grid = [...older[1].matchAll(/\(x=(\d+),y=(\d+)\)\s*-\s*\(x=(\d+),y=(\d+)\)/g)].map(
      (m) => ({ start: [+m[1], +m[2]], end: [+m[3], +m[4]] }) as CoreRange,
    );
    return spec(grid, older[2], older[3]);
  }
  const newer =
    /^ShardSpec\{grid=(\[.*?\]),\s*shape=\[([\d,\s]*)\],\s*orientation=(?:ShardOrientation::)?(\w+)/
      .exec(rest);
  if (newer) {
    const grid = [
      ...newer[1].matchAll(
        /"start":\{"x":(\d+),"y":(\d+)\},"end":\{"x":(\d+),"y":(\d+)\}/g,
      ),
    ].map((m) => ({ start: [+m[1], +m[2]], end: [+m[3], +m[4]] }) as CoreRange);
    return spec(grid, newer[2], newer[3]);
  }
  return { unparsed: rest.slice(0, UNPARSED_CAP) };
}

function spec(grid: CoreRange[], shape: string, orientation: string): ShardSpec {
  const dims = shape.split(",").map((d) => d.trim()).filter((d) => d !== "").map(Number);
  const out: ShardSpec = {
    grid: grid.slice(0, MAX_GRID_RANGES),
    core_count: grid.reduce(
      (n, r) => n + (Math.abs(r.end[0] - r.start[0]) + 1) * (Math.abs(r.end[1] - r.start[1]) + 1),
      0,
    ),
    shape: dims.length > 0 ? dims : null,
    orientation: orientation || null,
  };
  if (grid.length > MAX_GRID_RANGES) out.grid_range_count = grid.length;
  return out;
}
