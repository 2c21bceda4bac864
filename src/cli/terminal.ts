/**
 * Where the command line writes, and so how: an answer is rendered for a person only when
 * stdout is a terminal (a pipe gets JSON, which scripts rely on, and `--json` forces it); the
 * progress line is drawn only when stderr is a terminal; colour only on a terminal and never
 * when NO_COLOR is set (`Deno.noColor`, read without an env permission). The width is the
 * terminal's, kept within 80–160 columns, 80 when it cannot be read.
 *
 * @module
 */
import type { View } from "./render/text.ts";

/** The narrowest and widest an answer is laid out. */
export const MIN_WIDTH = 80;
export const MAX_WIDTH = 160;

/** What the command line knows of where it writes. */
export interface Terminal {
  stdout: boolean;
  stderr: boolean;
  /** Columns, already within 80–160. */
  width: number;
  /** NO_COLOR is set. */
  noColor: boolean;
}

/**
 * A terminal width kept within 80–160 columns; 80 when it is unknown (or 0, as a
 * pseudo-terminal without a size reports).
 *
 * @example
 * ```ts
 * import { clampWidth } from "./terminal.ts";
 * if (clampWidth(null) !== 80 || clampWidth(0) !== 80 || clampWidth(120) !== 120) throw new Error();
 * if (clampWidth(300) !== 160 || clampWidth(40) !== 80) throw new Error();
 * ```
 */
export function clampWidth(columns: number | null): number {
  if (columns === null || !(columns > 0)) return MIN_WIDTH;
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, Math.floor(columns)));
}

/** This process's terminal, as Deno reports it. */
export function detectTerminal(): Terminal {
  let columns: number | null = null;
  try {
    columns = Deno.consoleSize().columns;
  } catch {
    columns = null;
  }
  return {
    stdout: Deno.stdout.isTerminal(),
    stderr: Deno.stderr.isTerminal(),
    width: clampWidth(columns),
    noColor: Deno.noColor,
  };
}

/** How a call's answer is written. */
export type OutputMode = "text" | "pretty_json" | "json";

/**
 * Text for a person on a terminal; JSON when asked (`--json`, pretty on a terminal) and
 * always on a pipe, compact, as scripts read it.
 *
 * @example
 * ```ts
 * import { outputMode } from "./terminal.ts";
 * const t = { stdout: true, stderr: true, width: 80, noColor: false };
 * if (outputMode(t, false) !== "text" || outputMode(t, true) !== "pretty_json") throw new Error();
 * if (outputMode({ ...t, stdout: false }, false) !== "json") throw new Error();
 * ```
 */
export function outputMode(terminal: Terminal, json: boolean): OutputMode {
  if (!terminal.stdout) return "json";
  return json ? "pretty_json" : "text";
}

/** How a rendered answer is laid out on `terminal`. */
export function viewOf(terminal: Terminal): View {
  return { width: terminal.width, colour: terminal.stdout && !terminal.noColor };
}
