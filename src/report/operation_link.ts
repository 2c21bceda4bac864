/**
 * How performance rows relate to profiler operations. Rows and operations are linked by order
 * of launch; until that match is built, every answer says the link is unavailable and why,
 * and every operation_id is null rather than guessed.
 *
 * @module
 */
import type { Inventory } from "./inventory.ts";

/** The `operation_link` block of an answer that carries performance rows. */
export function operationLinkUnavailable(inv: Inventory): Record<string, unknown> {
  if (!inv.profiler) {
    return {
      status: "unavailable",
      reason: "the handle was loaded without a profiler_path, so operation_id is null",
    };
  }
  return {
    status: "unavailable",
    reason: "this version of the server does not yet match performance rows to profiler " +
      "operations, so operation_id is null on every row rather than guessed",
  };
}
