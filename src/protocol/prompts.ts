/**
 * The users' two workflows as MCP prompts, so a client can hand an agent the method rather
 * than leave it to find it one tool at a time: `investigate_step_time`, the top-down method of
 * the performance talk (token time → device busy time → op intervals → gap to the limit →
 * cores → inside the core), and `diagnose_out_of_memory`, the profiler side's path from the
 * failed allocation to the buffers behind it.
 *
 * @module
 */

/** One argument a prompt takes. */
export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

/** One prompt: its listing and the text it gives for its arguments. */
export interface Prompt {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  text(args: Readonly<Record<string, string>>): string;
}

/** `args.name` quoted for the text, or a placeholder when it was not given. */
function quoted(args: Readonly<Record<string, string>>, name: string, otherwise: string): string {
  const v = args[name];
  return v === undefined || v === "" ? otherwise : JSON.stringify(v);
}

const investigateStepTime: Prompt = {
  name: "investigate_step_time",
  title: "Investigate step time",
  description: "Walk a performance capture top-down, as the users' method does: token time → " +
    "device busy time → operations → gap to the theoretical limit → cores → inside the core.",
  arguments: [
    { name: "performance_path", description: "The performance report directory.", required: true },
    {
      name: "profiler_path",
      description: "The profiler report directory, if any.",
      required: false,
    },
    {
      name: "start_signpost",
      description: "The steady-state window's start signpost.",
      required: false,
    },
    { name: "end_signpost", description: "The window's end signpost.", required: false },
    {
      name: "wall_time_us",
      description: "The measured time of the same tokens, µs (e.g. TPOT × tokens).",
      required: false,
    },
  ],
  text(args) {
    const window = args.start_signpost
      ? `start_signpost ${quoted(args, "start_signpost", "")}` +
        (args.end_signpost ? ` and end_signpost ${quoted(args, "end_signpost", "")}` : "")
      : "the signposts load_report lists around the steady-state iterations (none: the whole report)";
    const wall = args.wall_time_us
      ? `wall_time_us ${args.wall_time_us}`
      : "wall_time_us = the measured time of the same tokens, when you have it";
    return [
      "Find where this capture's step time goes and what could be won, top-down. Read each " +
      "answer's caveat, assumed and cut before acting on a number; stop as soon as the time is " +
      "explained.",
      "",
      `1. load_report with performance_path ${quoted(args, "performance_path", "<dir>")}` +
      (args.profiler_path ? ` and profiler_path ${quoted(args, "profiler_path", "")}` : "") +
      ". Note answerable, the signposts (a repeated one marks iterations) and arch; if assumed " +
      "says the architecture was defaulted, every roofline figure rests on that.",
      `2. device_timeline over ${window}, with ${wall}: busy_us against the wall time is how much ` +
      "of the step the device worked; host_wait_us is time the device sat idle waiting for the " +
      "host. If host wait dominates, the fix is on the host (dispatch, tracing) — stop here and " +
      "say so. Skip a cold first iteration with start_occurrence 2.",
      "3. op_breakdown, then top_ops by device_time, over the same window: which op codes and " +
      "which operations the busy time went to. If the caveat says op-to-op gaps are host time, " +
      "rank by device_time only.",
      "4. lower_bounds over the same window: operations ranked by the absolute gap between " +
      "measured time and the theoretical limit (never by ratio). The first entries are where " +
      "time can be won. For a matmul, gap_split says how much is cores not kept busy and how much " +
      "too few cores (cores_needed_for_limit); an entry without a compute model is a DRAM floor.",
      "5. core_utilisation with the leading op_code: which cores did nothing, barely ran or were " +
      "saturated; core_spread for one row's per-core spans and imbalance.",
      "6. core_states for that op code: how much of its cores' interval was the math kernel and " +
      "how much waiting; perf_counters (when counters were captured) for what the FPU and the " +
      "instruction threads did. Unknown figures are null with a reason: never read them as 0.",
      "",
      "Finish with the two or three operations that cost the most against their limit, the " +
      "reason each answer gives, and the next measurement to take.",
    ].join("\n");
  },
};

const diagnoseOutOfMemory: Prompt = {
  name: "diagnose_out_of_memory",
  title: "Diagnose an out-of-memory failure",
  description: "Follow a profiler report from the failed allocation to what held L1: errors → " +
    "l1_peak → operation_detail → dram_fallbacks.",
  arguments: [
    { name: "profiler_path", description: "The profiler report directory.", required: true },
  ],
  text(args) {
    return [
      "Find why this run ran out of memory and what to change. Figures are bytes per bank " +
      "unless a field says otherwise; never add an L1 figure to a DRAM one.",
      "",
      `1. load_report with profiler_path ${quoted(args, "profiler_path", "<dir>")}: is there an ` +
      "errors table, and how many errors are attached to an operation?",
      "2. errors: where the run stopped. An allocation failure gives the requested bytes, the " +
      "largest free block and why it did not fit (diagnosis). An unattached error names no " +
      "operation to open.",
      "3. l1_peak: the run's L1 peak per bank split into circular buffers, intermediate, " +
      "persistent and stale tensors, and the operations holding it. Stale tensors are the part " +
      "freeing earlier would help. If the run failed, its figures stop at the failure.",
      "4. operation_detail for the failed operation (and the peak's): its circular buffers per " +
      "core, its tensors' memory configs, l1_pressure after it, and its error's figures at the " +
      "failed allocation — read the two apart.",
      "5. dram_fallbacks: operations that likely fell back from L1 to DRAM, which trade the " +
      "failure for bandwidth.",
      "",
      "Finish with the operation, the allocation that failed, what held L1 at that moment, and " +
      "the smallest change that would make it fit (deallocate a stale tensor, shard differently, " +
      "smaller circular buffers, or a DRAM memory config).",
    ].join("\n");
  },
};

/** Every prompt, in the order `prompts/list` gives them. */
export const PROMPTS: readonly Prompt[] = [investigateStepTime, diagnoseOutOfMemory];

/** A prompt's `prompts/list` entry. */
export function describePrompt(p: Prompt): Record<string, unknown> {
  return { name: p.name, title: p.title, description: p.description, arguments: p.arguments };
}

/**
 * The `prompts/get` result for `name` with `args`, or the message of the error to answer
 * with: an unknown prompt or a missing required argument, named.
 *
 * @example
 * ```ts
 * import { getPrompt } from "./prompts.ts";
 * const r = getPrompt("diagnose_out_of_memory", { profiler_path: "/r" });
 * if (typeof r === "string" || !JSON.stringify(r).includes("l1_peak")) throw new Error();
 * if (typeof getPrompt("diagnose_out_of_memory", {}) !== "string") throw new Error();
 * ```
 */
export function getPrompt(
  name: string,
  args: Readonly<Record<string, string>>,
): Record<string, unknown> | string {
  const p = PROMPTS.find((x) => x.name === name);
  if (!p) return `unknown prompt '${name}'; prompts: ${PROMPTS.map((x) => x.name).join(", ")}`;
  const missing = p.arguments.filter((a) => a.required && !(args[a.name]?.trim()));
  if (missing.length > 0) {
    return `prompt '${name}' needs argument${missing.length > 1 ? "s" : ""} ${
      missing.map((a) => a.name).join(", ")
    }`;
  }
  return {
    description: p.description,
    messages: [{ role: "user", content: { type: "text", text: p.text(args) } }],
  };
}
