import { previewText } from './preview-text.js';
import type { JsonInput } from './json-input.js';
import { JsonError } from './json-error.js';
import type { PathSegment } from './json-path.js';
import { formatJsonPath } from './json-path.js';
import { isNumberText } from './number-text.js';
import type { OutputBuffer } from './output-buffer.js';
import {
  appendJsonString,
  appendText,
  createOutputBuffer,
  outputToChunks,
  outputToString,
} from './output-buffer.js';
import { MAX_DEPTH_LIMIT, parse } from './parse.js';

/** How to write: `indent` '' is compact; `canonical` sorts keys and re-canonicalizes `RawJson`. */
export interface WriteMode {
  readonly indent: string;
  readonly canonical: boolean;
}

/**
 * Writer state for one call. `ancestors` are the containers being written: a cycle check and
 * the nesting level. `path[k]` is the member being written at level `k`, read only for errors.
 */
interface Writer extends WriteMode {
  readonly out: OutputBuffer;
  readonly colon: string;
  readonly ancestors: object[];
  readonly path: PathSegment[];
}

/** Serializes `value`; throws `unserializable_value` with the JSON path of the culprit. */
export function writeJson(value: JsonInput, mode: WriteMode): string {
  return outputToString(written(value, mode));
}

/** `writeJson`'s text in pieces (output-buffer.ts `outputToChunks`). */
export function writeJsonChunks(value: JsonInput, mode: WriteMode): string[] {
  return outputToChunks(written(value, mode));
}

function written(value: JsonInput, mode: WriteMode): OutputBuffer {
  const colon = mode.indent === '' ? ':' : ': ';
  const w: Writer = {
    out: createOutputBuffer(),
    indent: mode.indent,
    canonical: mode.canonical,
    colon,
    ancestors: [],
    path: [],
  };
  writeValue(w, value);
  return w.out;
}

function writeValue(w: Writer, value: unknown): void {
  if (typeof value === 'string') {
    writeString(w, value);
  } else if (typeof value === 'object') {
    if (value === null) {
      appendText(w.out, 'null');
    } else {
      writeObject(w, value);
    }
  } else if (typeof value === 'boolean') {
    appendText(w.out, value ? 'true' : 'false');
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      reject(w, `the number ${value} has no JSON form`);
    }
    appendText(w.out, String(value));
  } else if (typeof value === 'bigint') {
    appendText(w.out, value.toString());
  } else {
    reject(w, `a value of type ${typeof value} has no JSON form`);
  }
}

function writeString(w: Writer, s: string): void {
  const lone = appendJsonString(w.out, s);
  if (lone >= 0) {
    reject(w, `a string with a lone surrogate at index ${lone} has no UTF-8 form`);
  }
}

/** Dispatches the object kinds, most frequent first; of other objects only plain ones pass. */
function writeObject(w: Writer, value: object): void {
  if (value instanceof Map) {
    return writeMap(w, value);
  }
  if (Array.isArray(value)) {
    return writeArray(w, value);
  }
  const tagged = value as { readonly kind?: unknown; readonly text?: unknown };
  if (typeof tagged.text === 'string' && tagged.kind === 'number') {
    if (!isNumberText(tagged.text)) {
      reject(w, `a JsonNumber's text ${previewText(tagged.text)} is not a JSON number`);
    }
    appendText(w.out, tagged.text);
    return;
  }
  if (typeof tagged.text === 'string' && tagged.kind === 'raw') {
    return writeRaw(w, tagged.text);
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (value.constructor as { readonly name?: string } | undefined)?.name ?? 'object';
    reject(w, `a ${name} is not a plain object; convert it to a JSON value first`);
  }
  writePlainObject(w, value as Readonly<Record<string, unknown>>);
}

/**
 * Raw text is trusted and copied as is, except in canonical form: the digest must not depend on
 * how the stored text happened to be spaced or ordered, so it is parsed and written again.
 */
function writeRaw(w: Writer, text: string): void {
  if (w.canonical) {
    writeValue(w, parse(text, { maxDepth: MAX_DEPTH_LIMIT }));
  } else {
    appendText(w.out, text);
  }
}

function writeArray(w: Writer, items: readonly unknown[]): void {
  const level = enter(w, items);
  appendText(w.out, '[');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) {
      appendText(w.out, ',');
    }
    newLine(w, level + 1);
    w.path[level] = i;
    const item = items[i];
    if (item === undefined) {
      reject(w, 'undefined is not allowed in an array (use null)');
    }
    writeValue(w, item);
  }
  leave(w, level, items.length, ']');
}

function writeMap(w: Writer, map: ReadonlyMap<unknown, unknown>): void {
  const level = enter(w, map);
  appendText(w.out, '{');
  let count = 0;
  const writeEntry = (value: unknown, key: unknown): void => {
    if (typeof key !== 'string') {
      reject(w, `a Map key of type ${typeof key} cannot be a JSON object key`, level);
    }
    if (value !== undefined) {
      writeKey(w, { level, count: count++ }, key);
      writeValue(w, value);
    }
  };
  // `forEach`, not `for (const [key, value] of map)`: with the destructuring loop, about half of
  // the processes ran stringify twice as slow, most of it in GC (measured on bench/json.ts).
  if (w.canonical) {
    sortEntries(map).forEach(([key, value]) => writeEntry(value, key));
  } else {
    map.forEach(writeEntry);
  }
  leave(w, level, count, '}');
}

function writePlainObject(w: Writer, object: Readonly<Record<string, unknown>>): void {
  const level = enter(w, object);
  appendText(w.out, '{');
  let count = 0;
  const keys = Object.keys(object);
  if (w.canonical) {
    keys.sort(compareCodeUnits);
  }
  for (const key of keys) {
    const value = object[key];
    if (value !== undefined) {
      writeKey(w, { level, count: count++ }, key);
      writeValue(w, value);
    }
  }
  leave(w, level, count, '}');
}

/** Writes the separator and `"key":` of the member number `count` of the object at `level`. */
function writeKey(
  w: Writer,
  at: { readonly level: number; readonly count: number },
  key: string,
): void {
  if (at.count > 0) {
    appendText(w.out, ',');
  }
  newLine(w, at.level + 1);
  w.path[at.level] = key;
  writeString(w, key);
  appendText(w.out, w.colon);
}

/** RFC 8785 §3.2.3 order: by UTF-16 code units, which is what `<` on strings compares. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortEntries(map: ReadonlyMap<unknown, unknown>): [unknown, unknown][] {
  return [...map].sort(([a], [b]) => compareCodeUnits(String(a), String(b)));
}

/** Opens a container: a container already being written is a cycle. Returns its level. */
function enter(w: Writer, container: object): number {
  if (w.ancestors.includes(container)) {
    reject(w, 'a cycle (the value contains itself)');
  }
  return w.ancestors.push(container) - 1;
}

/** Closes a container; empty ones stay `[]`/`{}` even when indenting, as `JSON.stringify` does. */
function leave(w: Writer, level: number, count: number, bracket: string): void {
  if (count > 0) {
    newLine(w, level);
  }
  appendText(w.out, bracket);
  w.ancestors.pop();
}

function newLine(w: Writer, level: number): void {
  if (w.indent !== '') {
    appendText(w.out, '\n' + w.indent.repeat(level));
  }
}

/** Throws for the value at the first `depth` path segments (by default, the current value). */
function reject(w: Writer, problem: string, depth = w.ancestors.length): never {
  const path = formatJsonPath(w.path, depth);
  throw new JsonError('unserializable_value', `${path}: ${problem}`, { path });
}
