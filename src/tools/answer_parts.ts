/**
 * The parts of an answer that are about the answer rather than the report — what the reader
 * must know before acting on its figures. Handlers add them as they find them; the framework
 * adds them to the answer in one place, after the tool's own fields, so every tool writes them
 * the same way.
 *
 * - `caveat`: sentences saying where a figure does not mean what it seems to (sub-devices that
 *   ran concurrently, rows left out, a rank read alone), joined into one string in the order
 *   they were added.
 *
 * @module
 */

/** The answer-level parts of one call. */
export class AnswerParts {
  readonly #caveats: string[] = [];

  /**
   * Adds caveat sentences; null, undefined and empty ones are skipped, so a helper's "no
   * caveat" can be passed straight through.
   *
   * @example
   * ```ts
   * import { AnswerParts } from "./answer_parts.ts";
   * const parts = new AnswerParts();
   * parts.caveat("Rows were left out.", null, "");
   * const answer = parts.addTo({ handle: "report-1" });
   * if ((answer as { caveat?: string }).caveat !== "Rows were left out.") throw new Error();
   * ```
   */
  caveat(...sentences: readonly (string | null | undefined)[]): void {
    for (const s of sentences) if (typeof s === "string" && s.length > 0) this.#caveats.push(s);
  }

  /** The caveats added so far. */
  get caveats(): readonly string[] {
    return this.#caveats;
  }

  /** `answer` with the parts added (a key is added only when it has something to say). */
  addTo<A extends object>(answer: A): A {
    if (this.#caveats.length === 0) return answer;
    return { ...answer, caveat: this.#caveats.join(" ") };
  }
}
