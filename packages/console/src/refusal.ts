/** Which failed reads a polling page stops repeating. */
import { isWeaveApiError } from '@weave/sdk';

/**
 * A 4xx answer other than 408 and 429 (a missing scope, an unknown id, a bad argument): the same
 * request would be refused the same way, so polling it again only repeats the error.
 */
export function isFinalRefusal(error: unknown): boolean {
  return (
    isWeaveApiError(error) &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429
  );
}
