/** Test support: load_report's grouped unanswerable_reasons read back per tool. */

/**
 * Each unanswerable tool's reason, from `answer.unanswerable_reasons` (one entry per distinct
 * reason with the tools it covers); throws when a tool is covered twice or a reason repeats.
 */
export function reasonsByTool(answer: Record<string, unknown>): Record<string, string> {
  const groups = answer.unanswerable_reasons as { reason: string; tools: string[] }[];
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { reason, tools } of groups) {
    if (seen.has(reason)) throw new Error(`reason stated twice: ${reason}`);
    seen.add(reason);
    for (const tool of tools) {
      if (tool in out) throw new Error(`${tool} is covered by two reasons`);
      out[tool] = reason;
    }
  }
  return out;
}
