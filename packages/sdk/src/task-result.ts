/**
 * A handler's return value as its completion carries it. Checked here, one task at a time, so
 * that a result the server would refuse fails its own task and never the `completeMany` call it
 * would travel in: a value that is not JSON makes the whole body unwritable, and one the server
 * cannot read (too deep, a `__proto__` key, bad `RawJson` text) makes it refuse the whole body.
 *
 * The result goes out as the text written here (`RawJson`), so it is serialised once.
 */
import { parse, stringify, utf8ByteLength } from '@weave/json';
import type { JsonInput, RawJson } from '@weave/json';
import { workers } from './protocol/index.js';
import type { Completion } from './types.js';
import { toErrorMessage } from './worker-errors.js';

/**
 * Levels a result may nest. The server parses a body to depth 64 (@weave/json's default), and a
 * result sits three levels down in a `completeMany` body: `{"completions": [{"result": …}]}`.
 */
const MAX_RESULT_DEPTH = 61;

/** Stable codes of a result the worker could not send. */
const RESULT_NOT_JSON = 'result_not_json';
const RESULT_TOO_LARGE = 'result_too_large';

/**
 * The completion for a handler's result: `succeeded` with its JSON text, or a final `failed`
 * naming the problem (the same value would fail the same way on a retry).
 *
 * @example
 * toResultCompletion(new Date()); // { outcome: 'failed', error: { code: 'result_not_json', … } }
 */
export function toResultCompletion(result: unknown): Completion {
  let text: string;
  try {
    // Checked at run time by `stringify`, which names what is not JSON and where.
    text = stringify(result as JsonInput);
  } catch (e: unknown) {
    // Usually stringify's JsonError; a getter or a Proxy in the value may throw anything.
    const problem = e instanceof Error ? e.message : 'reading it threw a non-Error';
    return notSent(RESULT_NOT_JSON, `the result is not JSON: ${problem}`);
  }
  const bytes = utf8ByteLength(text);
  if (bytes > workers.MAX_RESULT_BYTES) {
    return notSent(
      RESULT_TOO_LARGE,
      `the result is ${bytes} bytes of JSON, over the limit of ${workers.MAX_RESULT_BYTES}`,
    );
  }
  const unreadable = serverProblem(text);
  if (unreadable !== undefined) {
    return notSent(RESULT_NOT_JSON, `the server cannot read the result: ${unreadable}`);
  }
  const raw: RawJson = { kind: 'raw', text };
  return { outcome: 'succeeded', result: raw };
}

function notSent(code: string, message: string): Completion {
  return { outcome: 'failed', error: { code, message: toErrorMessage(message), retryable: false } };
}

/**
 * What the server's parser refuses in `text`: nesting past MAX_RESULT_DEPTH, a `__proto__` key,
 * or text that is not JSON at all, which `stringify` copies unchecked from a `RawJson` (any
 * object with `kind: 'raw'` and a string `text`, perhaps one of the handler's own). Parsing every
 * result again costs about what writing it did, small beside the call that carries it.
 */
function serverProblem(text: string): string | undefined {
  try {
    parse(text, { maxDepth: MAX_RESULT_DEPTH });
    return undefined;
  } catch (e: unknown) {
    return e instanceof Error ? e.message : 'refused by the parser';
  }
}
