/**
 * The progress line a person sees on stderr while a one-shot call reads something long (a
 * device log, the L1 replay, a large CSV): how much of the total is read, the percent and the
 * rate. It is the same `Progress` the MCP server turns into notifications, given to the call
 * the same way (`ToolEnvironment.progress`), throttled by the same `ThrottledProgress`. It
 * shows only after the work has run a second (a quick answer never flickers a line), is
 * redrawn in place, and is erased before the answer is written. One line serves every call of
 * a command (load_report, then the tool): work that names another message is a new stage,
 * drawn from its own start, its rate counted from its first report. On a pipe there is none.
 *
 * @module
 */
import { NO_PROGRESS, type Progress, ThrottledProgress } from "../kit/progress.ts";

/** How long work runs before its progress is shown, in ms. */
export const SHOW_AFTER_MS = 1_000;

/** A progress line that is erased when the work is done. */
export interface ClosableProgress extends Progress {
  /** Erases the line, if it is shown; nothing is drawn after this. */
  close(): void;
}

/** Progress nobody sees, closable. */
const SILENT: ClosableProgress = { report: NO_PROGRESS.report, close() {} };

/** Bytes as a person reads them: B, kB, MB or GB, to three significant figures. */
function bytes(n: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${i === 0 ? n : n.toPrecision(3)} ${units[i]}`;
}

/** A count grouped by thousands. */
function rows(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/**
 * One progress line's text: `message: done of total (percent), rate`, the rate being what was
 * done past `from` in `elapsedMs`.
 *
 * @example
 * ```ts
 * import { progressText } from "./progress_line.ts";
 * const t = progressText(123_400_000, 409_000_000, "bytes of the log read", 2_000);
 * if (t !== "bytes of the log read: 123 MB of 409 MB (30 %), 61.7 MB/s") {
 *   throw new Error(t);
 * }
 * ```
 */
export function progressText(
  done: number,
  total: number | null,
  message: string,
  elapsedMs: number,
  from = 0,
): string {
  const format = /\bbytes?\b/i.test(message) ? bytes : rows;
  const rate = elapsedMs > 0 && done > from
    ? `, ${format((done - from) / (elapsedMs / 1000))}/s`
    : "";
  const of = total !== null && total > 0
    ? ` of ${format(total)} (${Math.min(100, Math.floor((done / total) * 100))} %)`
    : "";
  return `${message}: ${format(done)}${of}${rate}`;
}

/** The progress line on a terminal's stderr. */
export class ProgressLine implements ClosableProgress {
  readonly #write: (raw: string) => void;
  readonly #now: () => number;
  readonly #width: number;
  readonly #started: number;
  #throttle: ThrottledProgress;
  /** The message of the stage the throttle follows. */
  #message: string | null = null;
  /** When the stage began and what was done then: the first stage's are the line's own. */
  #stageAt: number;
  #stageFrom = 0;
  /** The columns the line on screen takes; 0 when none is shown. */
  #shown = 0;
  #closed = false;

  /**
   * `write` writes raw text to stderr (no newline added); `now` is the clock, in ms; `width`
   * the terminal's columns (the line stays one column short of it, so it never wraps).
   */
  constructor(
    write: (raw: string) => void,
    options: { now?: () => number; width?: number } = {},
  ) {
    this.#write = write;
    this.#now = options.now ?? (() => performance.now());
    this.#width = options.width ?? 80;
    this.#started = this.#now();
    this.#stageAt = this.#started;
    this.#throttle = this.#newThrottle();
  }

  #newThrottle(): ThrottledProgress {
    return new ThrottledProgress((u) => this.#draw(u.progress, u.total, u.message), this.#now);
  }

  report(done: number, total: number | null, message: string): void {
    if (this.#closed) return;
    // Another stage rises from its own start, below where the last one ended, and its rate
    // counts from its first report.
    if (message !== this.#message) {
      if (this.#message !== null) {
        this.#throttle = this.#newThrottle();
        this.#stageAt = this.#now();
        this.#stageFrom = done;
      }
      this.#message = message;
    }
    if (this.#now() - this.#started < SHOW_AFTER_MS) return;
    this.#throttle.report(done, total, message);
  }

  #draw(done: number, total: number | null, message: string): void {
    let text = progressText(done, total, message, this.#now() - this.#stageAt, this.#stageFrom);
    const room = this.#width - 1;
    if ([...text].length > room) text = [...text].slice(0, room - 1).join("") + "…";
    const length = [...text].length;
    this.#write(`\r${text}${" ".repeat(Math.max(0, this.#shown - length))}`);
    this.#shown = length;
  }

  close(): void {
    this.#closed = true;
    this.#throttle.close();
    if (this.#shown > 0) this.#write(`\r${" ".repeat(this.#shown)}\r`);
    this.#shown = 0;
  }
}

/**
 * The progress a one-shot call reports into: a line when stderr is a terminal, nothing on a
 * pipe (or a file).
 */
export function progressFor(
  stderrIsTerminal: boolean,
  write: (raw: string) => void,
  width: number,
): ClosableProgress {
  return stderrIsTerminal ? new ProgressLine(write, { width }) : SILENT;
}
