/**
 * Response bodies are plain JS objects mixed with exact-JSON values; @weave/json writes them
 * (numbers kept exact, Maps in order). Handlers build their bodies from presenters, so the
 * `unknown` here is always JSON-shaped; stringify throws on anything else (a bug → 500).
 */
import { stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';

export function toJsonText(value: unknown): string {
  return stringify(value as JsonInput);
}
