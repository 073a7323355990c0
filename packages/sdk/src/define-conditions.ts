/**
 * Conditions of BRANCH cases (docs/definitions.md "Conditions"): an object with exactly one
 * operator. The builders only assemble that object; the server's compiler checks it.
 */
import type { Reference, Value } from './define-values.js';

/**
 * A condition as the definition language writes it.
 *
 * @example
 * // the same as gt(ref.input('amount'), 1000)
 * const big: Condition = { gt: ['$.input.amount', 1000] };
 */
export type Condition =
  | { readonly eq: readonly [Value, Value] }
  | { readonly ne: readonly [Value, Value] }
  | { readonly lt: readonly [Value, Value] }
  | { readonly le: readonly [Value, Value] }
  | { readonly gt: readonly [Value, Value] }
  | { readonly ge: readonly [Value, Value] }
  | { readonly and: readonly [Condition, ...Condition[]] }
  | { readonly or: readonly [Condition, ...Condition[]] }
  | { readonly not: Condition }
  | { readonly exists: Reference }
  | { readonly is_null: Reference }
  | { readonly in: readonly [Value, Value] };

/**
 * `a` equals `b` (numbers by exact value, objects ignoring key order).
 *
 * @example
 * eq(ref.input('vip'), true)
 */
export function eq(a: Value, b: Value): Condition {
  return { eq: [a, b] };
}

/** `a` differs from `b`. @example ne(ref.input('country'), 'DE') */
export function ne(a: Value, b: Value): Condition {
  return { ne: [a, b] };
}

/**
 * Both numbers (exactly) or both strings (by code point): `a < b`.
 *
 * @example
 * lt(ref.input('amount'), 10)
 */
export function lt(a: Value, b: Value): Condition {
  return { lt: [a, b] };
}

/** `a ≤ b`. @example le(ref.input('amount'), 10) */
export function le(a: Value, b: Value): Condition {
  return { le: [a, b] };
}

/** `a > b`. @example gt(ref.input('amount'), 1000) */
export function gt(a: Value, b: Value): Condition {
  return { gt: [a, b] };
}

/** `a ≥ b`. @example ge(ref.input('amount'), num('12345678901234567890')) */
export function ge(a: Value, b: Value): Condition {
  return { ge: [a, b] };
}

/**
 * Every condition holds (left to right, stopping early).
 *
 * @example
 * and(exists(ref.input('vip')), eq(ref.input('vip'), true))
 */
export function and(first: Condition, ...rest: readonly Condition[]): Condition {
  return { and: [first, ...rest] };
}

/**
 * Some condition holds (left to right, stopping early).
 *
 * @example
 * or(eq(ref.input('tier'), 'gold'), gt(ref.input('amount'), 1000))
 */
export function or(first: Condition, ...rest: readonly Condition[]): Condition {
  return { or: [first, ...rest] };
}

/** `condition` does not hold. @example not(exists(ref.input('note'))) */
export function not(condition: Condition): Condition {
  return { not: condition };
}

/** The referenced value is present (even if `null`). @example exists(ref.input('note')) */
export function exists(reference: Reference): Condition {
  return { exists: reference };
}

/** The referenced value is present and `null` (`is_null`). @example isNull(ref.input('note')) */
export function isNull(reference: Reference): Condition {
  return { is_null: reference };
}

/**
 * `value` equals an element of `list`, a literal list or a reference to one (the `in` operator).
 *
 * @example
 * isIn(ref.input('country'), ['DE', 'AT']); // { in: ['$.input.country', ['DE', 'AT']] }
 */
export function isIn(value: Value, list: Value): Condition {
  return { in: [value, list] };
}
