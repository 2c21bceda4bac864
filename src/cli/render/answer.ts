/**
 * The types a renderer reads an answer through: the tool's own answer type with the parts the
 * framework adds to every answer, and the names of its fields, so that a renamed answer field
 * is a type error in every renderer that reads or lists it.
 *
 * @module
 */
import type { PartFields } from "../../tools/answer_parts.ts";

/** An answer as a renderer is given it: the tool's own fields `A` and the answer-level parts. */
export type Rendered<A extends object> = A & PartFields;

/**
 * The fields said beneath every rendering: the answer-level parts (with the fixed notes they
 * name by id) and a tool's own `note`.
 */
export interface SaidBeneath extends PartFields {
  /** How to read the answer, the same on every call (a tool's own, where the seed keeps one). */
  note?: string;
}

/**
 * `A` without its index signature, if it has one (a top_ops row's `include`d fields): only the
 * fields it names.
 */
export type Named<A> = { [K in keyof A as string extends K ? never : K]: A[K] };

/** A field `A` names (not one its index signature allows). */
export type FieldOf<A extends object> = keyof Named<A> & string;

/** The names of the fields of `A`: a renderer's list of the answer fields it shows. */
export type FieldsOf<A extends object> = readonly FieldOf<A>[];
