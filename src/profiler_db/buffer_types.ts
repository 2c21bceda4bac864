/**
 * tt-metal's `BufferType`, as the profiler database stores it: an integer in most captures
 * (0 DRAM, 1 L1, 2 SYSTEM_MEMORY, 3 L1_SMALL, 4 TRACE — the first three never changed
 * meaning), text (`'DRAM'`, `'L1'`) in some.
 *
 * @module
 */

/** The names, in enum order. */
export const BUFFER_TYPE_NAMES = ["DRAM", "L1", "SYSTEM_MEMORY", "L1_SMALL", "TRACE"] as const;

/** The names, sorted, as refusals list them. */
export const BUFFER_TYPES_SORTED: readonly string[] = [...BUFFER_TYPE_NAMES].sort();

/**
 * The name of a stored buffer type: an integer by the enum (an unknown one as its decimal
 * text), text passed through, null for NULL or blank.
 *
 * @example
 * ```ts
 * import { bufferTypeName } from "./buffer_types.ts";
 * if (bufferTypeName(0) !== "DRAM" || bufferTypeName(3) !== "L1_SMALL") throw new Error();
 * if (bufferTypeName("L1") !== "L1" || bufferTypeName(99) !== "99") throw new Error();
 * if (bufferTypeName(null) !== null) throw new Error();
 * ```
 */
export function bufferTypeName(stored: unknown): string | null {
  if (stored === null || stored === undefined) return null;
  if (typeof stored === "number" || typeof stored === "bigint") {
    const n = Number(stored);
    return BUFFER_TYPE_NAMES[n] ?? String(stored);
  }
  const text = String(stored).trim();
  if (text === "") return null;
  if (/^\d+$/.test(text)) return BUFFER_TYPE_NAMES[Number(text)] ?? text;
  return text.replace(/^BufferType::/, "");
}
