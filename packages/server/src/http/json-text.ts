/**
 * Response bodies are plain JS objects mixed with exact-JSON values; @weave/json writes them
 * (numbers kept exact, Maps in order). Handlers build their bodies from presenters, so the
 * `unknown` here is always JSON-shaped; stringify throws on anything else (a bug → 500).
 */
import { stringify, stringifyChunks } from '@weave/json';
import type { JsonInput } from '@weave/json';

export function toJsonText(value: unknown): string {
  return stringify(value as JsonInput);
}

/**
 * A body to send: one text, or pieces written to the socket one after the other. Pieces are
 * for answers that carry tasks' inputs (a worker call's, a claim's): six 64 KiB inputs make a
 * 385 KiB text, and one string that large is memory of its own from the system for V8, faulted
 * in page by page (`stringifyChunks`); the pieces are the inputs' own strings and small ones.
 */
export type JsonBody = string | readonly string[];

/** Above this many UTF-16 units a body is sent in pieces. */
const PIECES_FROM_UNITS = 64 * 1024;

export function toJsonBody(value: unknown): JsonBody {
  const pieces = stringifyChunks(value as JsonInput);
  const [only] = pieces;
  if (pieces.length === 1 && only !== undefined) {
    return only;
  }
  let units = 0;
  for (const piece of pieces) {
    units += piece.length;
  }
  return units > PIECES_FROM_UNITS ? pieces : pieces.join('');
}
