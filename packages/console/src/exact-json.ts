/**
 * Exact JSON in the console: the SDK returns numbers that a JS number cannot hold as
 * `{kind: 'number', text}` (@weave/json); they are shown as their text, and JSON an operator
 * edits (retry input, resolve output, signal payload) is parsed with @weave/json, so
 * `12345678901234567890.000000000000000001` is sent and shown exactly as written.
 */
import { isJsonNumber, parse, stringify } from '@weave/json';
import type { JsonInput, JsonValue } from '@weave/json';

/** Pretty JSON text of an API value, every number as its original text. */
export function toJsonText(value: unknown): string {
  if (value === undefined) {
    return '';
  }
  return stringify(value as JsonInput, { indent: 2 });
}

/** A scalar for a table cell: strings as they are, exact numbers as their text. */
export function toCellText(value: unknown): string {
  if (value === undefined || value === null) {
    return '';
  }
  if (typeof value === 'string') {
    return value;
  }
  if (isJsonNumber(value)) {
    return value.text;
  }
  return stringify(value as JsonInput);
}

export type ParsedJson =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly message: string };

/** Edited JSON text → exact value, or the parse error in words (never `JSON.parse`). */
export function parseJsonText(text: string): ParsedJson {
  try {
    return { ok: true, value: parse(text) };
  } catch (e: unknown) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}
