/**
 * Values and references of the definition language (docs/definitions.md "Values and
 * references"), as the builder writes them: plain JSON in which a string starting with `$` is a
 * reference. Numbers that a JS `number` cannot hold exactly are `JsonNumber`s (`num('…')`).
 */
import { jsonNumber } from '@weave/json';
import type { JsonNumber } from '@weave/json';

/**
 * A reference: `$.input…` or `$.steps.<id>.output…` (or, in a POLL's `classify.path`, `$…`).
 *
 * @example
 * const amount: Reference = ref.input('amount'); // '$.input.amount'
 */
export type Reference = `$${string}`;

/**
 * A value: any JSON, where strings beginning with `$` are references. A JS `number` is written
 * as `String(n)`; give numbers a float64 cannot hold (`12345678901234567890`, `0.10`, `1e400`)
 * as a `JsonNumber`, e.g. `num('12345678901234567890')`.
 *
 * @example
 * const input: Value = { order: ref.input('orderId'), currency: 'EUR', limit: num('1e400') };
 */
export type Value =
  | null
  | boolean
  | string
  | number
  | JsonNumber
  | readonly Value[]
  | { readonly [key: string]: Value };

/** One step of a path: a member name or an array index. */
export type PathSegment = string | number;

const PLAIN_WORD = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function pathText(segments: readonly PathSegment[]): string {
  return segments
    .map((segment) => {
      if (typeof segment === 'number') {
        return `[${segment}]`;
      }
      return PLAIN_WORD.test(segment)
        ? `.${segment}`
        : `["${segment.replace(/(["\\])/g, '\\$1')}"]`;
    })
    .join('');
}

/** What `ref.step(id)` returns: the step's saved output, or a part of it. */
export interface StepReference {
  /**
   * `$.steps.<id>.output` followed by `segments`.
   *
   * @example
   * ref.step('cart').output('lines', 2, 'sku'); // '$.steps.cart.output.lines[2].sku'
   */
  output(...segments: readonly PathSegment[]): Reference;
}

/**
 * Reference builders. Segments that are not plain words (`[A-Za-z_][A-Za-z0-9_-]*`) are quoted
 * (`["odd key"]`, with `"` and `\` escaped); numbers are array indexes.
 *
 * @example
 * ref.input('customer', 'name'); // '$.input.customer.name'
 * ref.input('odd key'); // '$.input["odd key"]'
 * ref.step('reserve').output('id'); // '$.steps.reserve.output.id'
 * ref.result('status'); // '$.status' (a POLL classify.path)
 */
export const ref = {
  /** `$.input` followed by `segments`. @example ref.input('items', 0); // '$.input.items[0]' */
  input(...segments: readonly PathSegment[]): Reference {
    return `$.input${pathText(segments)}`;
  },
  /** The step `id`. @example ref.step('reserve').output(); // '$.steps.reserve.output' */
  step(id: string): StepReference {
    return {
      output: (...segments: readonly PathSegment[]): Reference =>
        `$.steps.${id}.output${pathText(segments)}`,
    };
  },
  /** A path into a POLL query result, for `classify.path`. @example ref.result(); // '$' */
  result(...segments: readonly PathSegment[]): Reference {
    return `$${pathText(segments)}`;
  },
} as const;

/**
 * A literal string, never read as a reference: a leading `$` is doubled.
 *
 * @example
 * literal('$5'); // '$$5', which the instance sees as the string "$5"
 * literal('EUR'); // 'EUR'
 */
export function literal(text: string): string {
  return text.startsWith('$') ? `$${text}` : text;
}

/**
 * An exact JSON number from its text (or a bigint), for numbers a JS `number` would round.
 * Throws `JsonError` `invalid_number` when the text is not a JSON number.
 *
 * @example
 * gt(ref.input('amount'), num('12345678901234567890')); // the digits are kept exactly
 */
export function num(text: string | bigint): JsonNumber {
  return jsonNumber(text);
}
