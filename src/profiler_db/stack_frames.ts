/**
 * The frames of a stack trace as tt-metal records it: CPython traceback text, innermost frame
 * first, so frame 0 is the `ttnn.<op>` call in the model code — the call site — and the rest
 * run outward through the model to the harness that invoked it. A native C++ backtrace
 * (`#0 0x… in ttnn::…`), which some captures write instead, holds no frame this reads.
 *
 * @module
 */

/** One frame. */
export interface Frame {
  file: string;
  line: number;
  function: string;
  /** The source line under the frame, or null when the trace gives none. */
  code: string | null;
}

/** `File "<path>", line <n>, in <function>` after optional spaces or tabs. */
const FRAME = /^[ \t]*File "([^"]*)", line (\d+), in[ \t]+(\S.*)$/;

/**
 * The frames of a trace, innermost first. A frame's source line is the first non-blank line
 * after it, unless that line is itself a frame (a line is never borrowed from a neighbour).
 * A `File "…"` line without `, line N, in f`, or whose path holds a double quote, is no frame.
 *
 * @example
 * ```ts
 * import { parseFrames } from "./stack_frames.ts";
 * const f = parseFrames('  File "/m/a.py", line 3, in run\n    y = ttnn.add(x)\n\n  File "/m/b.py", line 9, in main\n');
 * if (f.length !== 2 || f[0].code !== "y = ttnn.add(x)" || f[1].code !== null) throw new Error();
 * if (parseFrames("#0 0x00007f in ttnn::add()").length !== 0) throw new Error();
 * ```
 */
export function parseFrames(trace: string | null): Frame[] {
  if (!trace) return [];
  const lines = trace.split(/\r?\n/);
  const frames: Frame[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = FRAME.exec(lines[i]);
    if (!m) continue;
    let code: string | null = null;
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j].trim() === "") continue;
      if (!FRAME.test(lines[j])) code = lines[j].trim();
      break;
    }
    frames.push({ file: m[1], line: Number(m[2]), function: m[3].trim(), code });
  }
  return frames;
}

/** Whether a trace that yields no frame looks like a native (C++) backtrace. */
export function looksNative(trace: string): boolean {
  return /^\s*#\d+\s+0x[0-9a-fA-F]+/m.test(trace) || /\bin\s+\w+::/.test(trace);
}
