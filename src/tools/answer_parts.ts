/**
 * The parts of an answer that are about the answer rather than the report — what the reader
 * must know before acting on its figures. Handlers add them as they find them; the framework
 * adds them to the answer in one place, after the tool's own fields, so every tool writes them
 * the same way:
 *
 * - `caveat`: sentences saying where a figure does not mean what it seems to (sub-devices that
 *   ran concurrently, rows left out, a rank read alone), joined into one string in the order
 *   they were added.
 * - `assumed`: what a figure rests on that the report did not say (an architecture defaulted
 *   because the CSV names none), keyed by subject, each with why and how to override it.
 * - `cut`: for every list that returns fewer entries than exist, keyed by the list's field:
 *   how many there are, how many are returned, the cap and why (the limit, the cap `include`
 *   sets, or the size budget), and how to get the rest.
 * - `notes`: the ids of the fixed explanations (bases, methods, recipes) the answer rests on,
 *   each said once in the registry of `notes.ts` and read as the resource `ttnn://notes/<id>`,
 *   in the order they were named.
 * - `next`: the tools to call next on this path, each with why (and the arguments to pass).
 *
 * @module
 */
import type { NoteId } from "./notes.ts";

/** Something a figure rests on that the report did not say. */
export interface Assumption {
  /** What was assumed, e.g. `wormhole_b0`. */
  assumed: string;
  /** Why it had to be assumed. */
  why: string;
  /** How to override it, e.g. `pass dram_bandwidth_gbps`. */
  override?: string;
}

/** Why a list returns fewer entries than exist. */
export type CutReason = "limit" | "include" | "size";

/** A list that returns fewer entries than exist. */
export interface Cut {
  total_rows: number;
  returned: number;
  capped_at: number;
  reason: CutReason;
  /** How to get the rest. */
  more: string;
}

/** A tool to call next. */
export interface NextStep {
  tool: string;
  why: string;
  arguments?: Record<string, unknown>;
}

/** What a call's answer carries besides the tool's own fields. */
export interface PartFields {
  caveat?: string;
  assumed?: Record<string, Assumption>;
  cut?: Record<string, Cut>;
  /** The fixed notes the answer rests on, by id: each is the resource `ttnn://notes/<id>`. */
  notes?: NoteId[];
  next?: NextStep[];
}

/**
 * The fields of answer `A` that hold a list: the names `cut` and a tool's `fitList` take, so a
 * renamed or misspelt list is a type error where it is named.
 */
export type ListField<A> =
  & {
    [K in keyof A]-?: NonNullable<A[K]> extends readonly unknown[] ? K : never;
  }[keyof A]
  & string;

/** The bytes of answer text the framework keeps an answer within by default. */
export const ANSWER_BUDGET_BYTES = 25_000;

/** How to get the rest of a list cut for size. */
const MORE_WHEN_TOO_BIG = "the answer was cut to fit its size budget: ask for a lower limit, " +
  "fewer include groups or a signpost range";

/**
 * The parts a helper that does not know the tool's answer may add: everything but a cut, which
 * names one of the answer's lists.
 */
export interface PartsWriter {
  caveat(...sentences: readonly (string | null | undefined)[]): void;
  readonly caveats: readonly string[];
  assume(subject: string, assumption: Assumption): void;
  note(...ids: readonly NoteId[]): void;
  next(step: NextStep): void;
  dropNext(drop: (step: NextStep) => boolean): NextStep[];
}

/**
 * The answer-level parts of one call whose answer is `A`: the lists it cuts are `A`'s own
 * (`ListField<A>`).
 */
export class AnswerParts<A extends object> implements PartsWriter {
  readonly #caveats: string[] = [];
  readonly #assumed = new Map<string, Assumption>();
  readonly #cuts = new Map<string, Cut>();
  readonly #notes = new Set<NoteId>();
  readonly #next: NextStep[] = [];

  /**
   * Adds caveat sentences; null, undefined and empty ones are skipped, so a helper's "no
   * caveat" can be passed straight through.
   *
   * @example
   * ```ts
   * import { AnswerParts } from "./answer_parts.ts";
   * const parts = new AnswerParts<{ handle: string }>();
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

  /** Says that `subject` was assumed; a second assumption of one subject replaces the first. */
  assume(subject: string, assumption: Assumption): void {
    this.#assumed.set(subject, assumption);
  }

  /**
   * Names fixed notes the answer rests on; a note named twice is named once.
   *
   * @example
   * ```ts
   * import { AnswerParts } from "./answer_parts.ts";
   * const parts = new AnswerParts<{ handle: string }>();
   * parts.note("top_ops.rows", "basis.device_kernel_duration", "top_ops.rows");
   * const { notes } = parts.fields();
   * if (notes?.join() !== "top_ops.rows,basis.device_kernel_duration") throw new Error();
   * ```
   */
  note(...ids: readonly NoteId[]): void {
    for (const id of ids) this.#notes.add(id);
  }

  /**
   * Says that the list under `field` returns `returned` of `total` entries, because of `reason`;
   * nothing is said when none were left out.
   *
   * @example
   * ```ts
   * import { AnswerParts } from "./answer_parts.ts";
   * const parts = new AnswerParts<{ ops: number[]; groups: string[] }>();
   * parts.cut("ops", { total: 40, returned: 10, reason: "limit", more: "pass a higher limit" });
   * parts.cut("groups", { total: 3, returned: 3, reason: "limit", more: "" });
   * const { cut } = parts.addTo({}) as { cut: Record<string, { capped_at: number }> };
   * if (cut.ops.capped_at !== 10 || "groups" in cut) throw new Error();
   * ```
   */
  cut(
    field: ListField<A>,
    c: { total: number; returned: number; reason: CutReason; more: string },
  ): void {
    if (c.returned >= c.total) return;
    this.#cuts.set(field, {
      total_rows: c.total,
      returned: c.returned,
      capped_at: c.returned,
      reason: c.reason,
      more: c.more,
    });
  }

  /** Names a tool to call next. */
  next(step: NextStep): void {
    this.#next.push(step);
  }

  /** Removes the next steps `drop` picks, returning them. */
  dropNext(drop: (step: NextStep) => boolean): NextStep[] {
    const dropped = this.#next.filter(drop);
    const kept = this.#next.filter((s) => !drop(s));
    this.#next.length = 0;
    this.#next.push(...kept);
    return dropped;
  }

  /** The parts as answer fields (a key only when it has something to say). */
  fields(): PartFields {
    return {
      ...(this.#caveats.length > 0 ? { caveat: this.#caveats.join(" ") } : {}),
      ...(this.#assumed.size > 0 ? { assumed: Object.fromEntries(this.#assumed) } : {}),
      ...(this.#cuts.size > 0 ? { cut: Object.fromEntries(this.#cuts) } : {}),
      ...(this.#notes.size > 0 ? { notes: [...this.#notes] } : {}),
      ...(this.#next.length > 0 ? { next: [...this.#next] } : {}),
    };
  }

  /** `answer` with the parts added. */
  addTo<T extends object>(answer: T): T {
    const fields = this.fields();
    return Object.keys(fields).length === 0 ? answer : { ...answer, ...fields };
  }

  /**
   * `answer` with its parts added, kept within `budget` bytes of JSON text by cutting the list
   * under `field` from its end (its sibling `returned`, when it has one, follows), the cut said
   * under `cut`. An answer already within the budget, or without that list, is returned as is.
   *
   * @example
   * ```ts
   * import { AnswerParts } from "./answer_parts.ts";
   * const rows = Array.from({ length: 100 }, (_, i) => ({ id: i, text: "x".repeat(100) }));
   * const fitted = new AnswerParts<{ returned: number; rows: typeof rows }>().fit({ returned: 100, rows }, "rows", 2_000) as {
   *   returned: number;
   *   rows: unknown[];
   *   cut: { rows: { total_rows: number; reason: string } };
   * };
   * if (JSON.stringify(fitted).length > 2_000 || fitted.returned !== fitted.rows.length) {
   *   throw new Error();
   * }
   * if (fitted.cut.rows.total_rows !== 100 || fitted.cut.rows.reason !== "size") throw new Error();
   * ```
   */
  fit(answer: A, field: ListField<A>, budget = ANSWER_BUDGET_BYTES): A {
    const whole = this.addTo(answer);
    const list: unknown = answer[field];
    if (!Array.isArray(list) || sizeOf(whole) <= budget) return whole;
    const total = this.#cuts.get(field)?.total_rows ?? list.length;
    const withRows = (n: number): A => {
      const cut = new AnswerParts<A>();
      cut.#caveats.push(...this.#caveats);
      for (const [k, v] of this.#assumed) cut.#assumed.set(k, v);
      for (const [k, v] of this.#cuts) cut.#cuts.set(k, v);
      for (const id of this.#notes) cut.#notes.add(id);
      cut.#next.push(...this.#next);
      cut.cut(field, { total, returned: n, reason: "size", more: MORE_WHEN_TOO_BIG });
      const trimmed: A & { returned?: unknown } = { ...answer, [field]: list.slice(0, n) };
      if (typeof trimmed.returned === "number") trimmed.returned = n;
      return cut.addTo(trimmed);
    };
    // The most rows that fit: a binary search over the count.
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (sizeOf(withRows(mid)) <= budget) lo = mid;
      else hi = mid - 1;
    }
    return withRows(lo);
  }
}

function sizeOf(answer: object): number {
  return new TextEncoder().encode(JSON.stringify(answer)).length;
}
