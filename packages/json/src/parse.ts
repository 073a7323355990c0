import type { JsonErrorCode } from './json-error.js';
import { JsonError } from './json-error.js';
import type { PathSegment } from './json-path.js';
import { formatJsonPath } from './json-path.js';
import type { Cursor } from './parse-cursor.js';
import { fail, skipWhitespace, unexpected, where } from './parse-cursor.js';
import { parseValue } from './parse-value.js';
import { locateDecoded, locateInBytes, locateInString } from './source-location.js';
import type { JsonValue } from './types.js';
import { findInvalidUtf8, utf8ByteLength } from './utf8.js';

export interface ParseOptions {
  /** Most containers open at once; `[[]]` has depth 2. Default 64, at most `MAX_DEPTH_LIMIT`. */
  readonly maxDepth?: number;
  /** Largest document in UTF-8 bytes, checked before parsing. Default: no limit. */
  readonly maxBytes?: number;
  /** Accept `__proto__` as an object key. Default false. */
  readonly allowProtoKey?: boolean;
}

/** Default nesting limit: far above real payloads, far below the JS stack. */
const DEFAULT_MAX_DEPTH = 64;

/**
 * Highest `maxDepth` accepted. The parser recurses once per level: measured on Node 20, 2000
 * levels took 60% of the default stack before the code was optimized, so 1000 leaves room for
 * a caller that is itself deep in a server's stack.
 */
export const MAX_DEPTH_LIMIT = 1000;

/**
 * Text length (UTF-16 units) from which object keys are interned (see `internKey`): below it the
 * result is too small for GC to matter, and the extra `Map` made small documents 10% slower.
 */
const INTERN_KEYS_MIN_LENGTH = 4096;

/**
 * Fatal: invalid UTF-8 throws instead of becoming U+FFFD. `ignoreBOM` keeps a BOM in the text so
 * that it is rejected like any other stray character. Decoding a whole buffer keeps no state
 * between calls, so one shared instance is safe.
 */
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Strict RFC 8259 parse into a `JsonValue`, keeping every number's text and every object's key
 * order. Rejects what RFC 8259 leaves to the parser: duplicate keys, lone surrogates, a BOM.
 * Throws `JsonError` (`malformed_json`, `duplicate_key`, `forbidden_key`, `too_deep`,
 * `payload_too_large`) with the position in bytes for a `Uint8Array`, in UTF-16 units for a string.
 *
 * @example parse('{"a":1.0}') // Map { 'a' => { kind: 'number', text: '1.0' } }
 */
export function parse(input: string | Uint8Array, options: ParseOptions = {}): JsonValue {
  const limits: ParseLimits = {
    maxDepth: checkMaxDepth(options.maxDepth),
    allowProtoKey: options.allowProtoKey ?? false,
  };
  const maxBytes = checkMaxBytes(options.maxBytes);
  if (typeof input === 'string') {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most documents need no exact count.
    if (input.length * 3 > maxBytes) {
      checkSize(maxBytes, utf8ByteLength(input));
    }
    return parseText(input, limits, (offset) => locateInString(input, offset));
  }
  if (!(input instanceof Uint8Array)) {
    throw new TypeError('parse expects a string or a Uint8Array');
  }
  checkSize(maxBytes, input.length);
  const text = decodeUtf8(input);
  return parseText(text, limits, (offset) => locateDecoded(input, text, offset));
}

type ParseLimits = Pick<Cursor, 'maxDepth' | 'allowProtoKey'>;

function parseText(text: string, limits: ParseLimits, locate: Cursor['locate']): JsonValue {
  // Every field spelled out, in one order: one object shape for all cursors.
  const c: Cursor = {
    text,
    pos: 0,
    depth: 0,
    maxDepth: limits.maxDepth,
    allowProtoKey: limits.allowProtoKey,
    unwoundPath: [],
    keys: text.length >= INTERN_KEYS_MIN_LENGTH ? new Map() : undefined,
    locate,
  };
  try {
    return parseDocument(c);
  } catch (error: unknown) {
    throw error instanceof JsonError ? withPath(error, c.unwoundPath) : error;
  }
}

function parseDocument(c: Cursor): JsonValue {
  const text = c.text;
  if (text.charCodeAt(0) === 0xfeff) {
    // RFC 8259 §8.1 lets a parser ignore a BOM; we refuse it so a document has one exact form.
    fail(c, 0, 'a byte order mark is not allowed');
  }
  c.pos = skipWhitespace(text, 0);
  const value = parseValue(c);
  c.pos = skipWhitespace(text, c.pos);
  if (c.pos < text.length) {
    unexpected(c, c.pos, 'the end of the document after the value');
  }
  return value;
}

/** Errors about a container or its keys name it by JSON path; `unwound` is innermost first. */
const PATH_CODES: ReadonlySet<JsonErrorCode> = new Set([
  'too_deep',
  'duplicate_key',
  'forbidden_key',
]);

function withPath(error: JsonError, unwound: readonly PathSegment[]): JsonError {
  if (!PATH_CODES.has(error.code)) {
    return error;
  }
  const path = formatJsonPath([...unwound].reverse(), unwound.length);
  const context = error.code === 'too_deep' ? 'opening' : 'in the object at';
  return new JsonError(error.code, `${error.message}, ${context} ${path}`, {
    ...error.details,
    path,
  });
}

function checkMaxDepth(maxDepth: number | undefined): number {
  if (maxDepth === undefined) {
    return DEFAULT_MAX_DEPTH;
  }
  if (!Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > MAX_DEPTH_LIMIT) {
    throw new RangeError(`maxDepth must be an integer from 0 to ${MAX_DEPTH_LIMIT}`);
  }
  return maxDepth;
}

/** `maxBytes`, or Infinity when there is no limit. */
function checkMaxBytes(maxBytes: number | undefined): number {
  if (maxBytes === undefined) {
    return Infinity;
  }
  if (!Number.isInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError('maxBytes must be a non-negative integer');
  }
  return maxBytes;
}

/** Rejects a document of `bytes` UTF-8 bytes over `maxBytes`, before any parsing. */
function checkSize(maxBytes: number, bytes: number): void {
  if (bytes > maxBytes) {
    throw new JsonError(
      'payload_too_large',
      `the document is ${bytes} bytes, over the limit of ${maxBytes}`,
      { limit: maxBytes, size: bytes },
    );
  }
}

/** Decodes strictly; on failure our own scan finds the offset that `TextDecoder` does not give. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch (error: unknown) {
    const offset = findInvalidUtf8(bytes);
    if (offset < 0) {
      throw error;
    }
    const location = locateInBytes(bytes, offset);
    throw new JsonError('malformed_json', `invalid UTF-8 ${where(location)}`, location);
  }
}
