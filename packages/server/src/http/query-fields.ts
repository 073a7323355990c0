/** Query-string parameters → values, with `invalid_argument` naming the parameter. */
import { invalidArgument } from '../errors.js';

const DIGITS = /^[0-9]{1,19}$/;

/** A non-negative integer parameter as bigint (cursors, sequence numbers). */
export function queryBigInt(
  query: Readonly<Record<string, string | undefined>>,
  key: string,
): bigint | undefined {
  const text = query[key];
  if (text === undefined) {
    return undefined;
  }
  if (!DIGITS.test(text) || BigInt(text) > 9_223_372_036_854_775_807n) {
    throw invalidArgument(key, 'must be a non-negative integer');
  }
  return BigInt(text);
}

export function queryInteger(
  query: Readonly<Record<string, string | undefined>>,
  key: string,
  range: { readonly min: number; readonly max: number; readonly path?: string },
): number | undefined {
  const text = query[key];
  if (text === undefined) {
    return undefined;
  }
  const value = Number(text);
  if (!/^[0-9]{1,9}$/.test(text) || value < range.min || value > range.max) {
    throw invalidArgument(
      range.path ?? key,
      `must be an integer from ${range.min} to ${range.max}`,
    );
  }
  return value;
}
