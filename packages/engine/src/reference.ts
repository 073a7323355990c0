import type { JsonValue } from '@weave/json';
import type { Segment } from './schema-lookup.js';
import { isObject } from './json-value.js';

/**
 * References (docs/definitions.md "References"): `$.input…` reads the instance input and
 * `$.steps.<id>.output…` the saved output of a step that must already have SUCCEEDED. A path
 * continues with `.name`, `["any key"]` or `[index]`. The same segment syntax, after a bare `$`,
 * addresses a POLL result in `classify.path`.
 */
export interface ReferenceText {
  readonly source: 'input' | 'step';
  /** The step id for `$.steps.<id>.output` references. */
  readonly stepId: string | undefined;
  readonly segments: readonly Segment[];
}

export type ParseResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const STEP_PREFIX = /^\$\.steps\.([a-z][a-z0-9_]{0,62})\.output/;
const REFERENCE_RULE =
  'a reference is "$.input…" or "$.steps.<id>.output…" followed by .name, ["key"] or [index]';

export function parseReference(text: string): ParseResult<ReferenceText> {
  let rest: string;
  let stepId: string | undefined;
  if (text.startsWith('$.input')) {
    rest = text.slice('$.input'.length);
  } else {
    const match = STEP_PREFIX.exec(text);
    if (match === null) {
      return { ok: false, message: `${REFERENCE_RULE} (got "${text}")` };
    }
    stepId = match[1];
    rest = text.slice(match[0].length);
  }
  const segments = parseSegments(rest);
  if (!segments.ok) {
    return { ok: false, message: `${segments.message} in "${text}"; ${REFERENCE_RULE}` };
  }
  return {
    ok: true,
    value: { source: stepId === undefined ? 'input' : 'step', stepId, segments: segments.value },
  };
}

/** `$` followed by segments, as in a POLL classifier path (`$.status`, `$["state"][0]`). */
export function parseValuePath(text: string): ParseResult<readonly Segment[]> {
  if (!text.startsWith('$')) {
    return { ok: false, message: `a path starts with "$" (got "${text}")` };
  }
  return parseSegments(text.slice(1));
}

const NAME = /^\.([A-Za-z_][A-Za-z0-9_-]*)/;
const INDEX = /^\[(0|[1-9]\d{0,8})\]/;
const QUOTED = /^\["((?:[^"\\]|\\["\\])*)"\]/;

function parseSegments(text: string): ParseResult<readonly Segment[]> {
  const segments: Segment[] = [];
  let rest = text;
  while (rest !== '') {
    const name = NAME.exec(rest);
    const index = name === null ? INDEX.exec(rest) : null;
    const quoted = name === null && index === null ? QUOTED.exec(rest) : null;
    const match = name ?? index ?? quoted;
    if (match === null) {
      return { ok: false, message: `unexpected "${rest.slice(0, 20)}"` };
    }
    const body = match[1] ?? '';
    segments.push(index !== null ? Number(body) : quoted !== null ? unescape(body) : body);
    rest = rest.slice(match[0].length);
  }
  return { ok: true, value: segments };
}

function unescape(body: string): string {
  return body.replace(/\\(["\\])/g, '$1');
}

/** The value at `segments` below `base`, or undefined when the path does not exist. */
export function followPath(
  base: JsonValue | undefined,
  segments: readonly Segment[],
): JsonValue | undefined {
  let value = base;
  for (const segment of segments) {
    if (value === undefined) {
      return undefined;
    }
    if (typeof segment === 'number') {
      value = Array.isArray(value) ? (value as readonly JsonValue[])[segment] : undefined;
    } else {
      value = isObject(value) ? value.get(segment) : undefined;
    }
  }
  return value;
}

/** Writes segments back as text (`.a["b c"][0]`), for messages and step descriptions. */
export function formatSegments(segments: readonly Segment[]): string {
  return segments
    .map((segment) => {
      if (typeof segment === 'number') {
        return `[${segment}]`;
      }
      return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)
        ? `.${segment}`
        : `["${segment.replace(/(["\\])/g, '\\$1')}"]`;
    })
    .join('');
}
