/**
 * Strings longer than `LONG_STRING` are looked over with the engine's searches (plain-text.ts)
 * instead of a loop, in `parse` and in the writer. Either way the answer must be the loop's: the
 * same value, or the same error at the same place. A string here is a list of tokens, each with
 * the text it is written as, what it decodes to, and whether it is malformed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonError, parse, stringify } from '../src/index.js';
import { LONG_STRING } from '../src/plain-text.js';

interface Token {
  readonly written: string;
  readonly decoded: string;
  readonly malformed?: true;
  /** Where in `written` the error is (0 unless said). */
  readonly errorOffset?: number;
}

const PLAIN: readonly Token[] = [
  { written: 'a', decoded: 'a' },
  { written: 'é', decoded: 'é' },
  { written: '😀', decoded: '😀' },
  { written: '漢', decoded: '漢' },
];
const ESCAPED: readonly Token[] = [
  { written: '\\n', decoded: '\n' },
  { written: '\\"', decoded: '"' },
  { written: '\\\\', decoded: '\\' },
  { written: '\\/', decoded: '/' },
  { written: '\\u00e9', decoded: 'é' },
  { written: '\\ud83d\\ude00', decoded: '😀' },
];
const MALFORMED: readonly Token[] = [
  { written: '\u0001', decoded: '', malformed: true },
  { written: '\t', decoded: '', malformed: true },
  { written: '\u001f', decoded: '', malformed: true },
  // Lone surrogates kept apart from any neighbour that could pair with them.
  { written: '\ud800a', decoded: '', malformed: true },
  { written: 'a\udc00', decoded: '', malformed: true, errorOffset: 1 },
  { written: '\ud83da', decoded: '', malformed: true },
  { written: '\\x', decoded: '', malformed: true },
];

/** `{"k":"<tokens>"}`: the value, or the offset of the first malformed token. */
function documentOf(tokens: readonly Token[]): {
  text: string;
  value?: string;
  errorAt?: number;
} {
  const prefix = '{"k":"';
  let text = prefix;
  let value = '';
  let errorAt: number | undefined;
  for (const token of tokens) {
    if (token.malformed === true && errorAt === undefined) {
      errorAt = text.length + (token.errorOffset ?? 0);
    }
    text += token.written;
    value += token.decoded;
  }
  text += '"}';
  return errorAt === undefined ? { text, value } : { text, errorAt };
}

function parseError(text: string): JsonError {
  try {
    parse(text);
  } catch (e: unknown) {
    if (e instanceof JsonError) {
      return e;
    }
    throw e;
  }
  return assert.fail(`parsed: ${text.slice(0, 80)}…`);
}

function valueOf(text: string): unknown {
  const value = parse(text);
  assert.ok(value instanceof Map);
  return value.get('k');
}

/** The reference: the first unit that is not half of a pair, or -1 (UTF-8 round trip agrees). */
function firstLoneSurrogate(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      return i;
    }
  }
  assert.equal(Buffer.from(s, 'utf8').toString('utf8'), s);
  return -1;
}

const plainRun = (length: number): Token[] =>
  Array.from({ length }, (_, i) => PLAIN[i % PLAIN.length] ?? PLAIN[0]!);

/** Places around the switch to the searches: the loop reads `LONG_STRING` units first. */
const PLACES = [0, 1, LONG_STRING - 2, LONG_STRING - 1, LONG_STRING, LONG_STRING + 1, 5000];

describe('long strings', () => {
  it('parse: a long string with one special token at places around the switch decodes as the loop does', () => {
    for (const special of [...ESCAPED, ...PLAIN]) {
      for (const place of PLACES) {
        const tokens = [...plainRun(place), special, ...plainRun(6000 - place)];
        const { text, value } = documentOf(tokens);
        assert.equal(valueOf(text), value, `${JSON.stringify(special.written)} at ${place}`);
        assert.equal(valueOf(text), (JSON.parse(text) as { k: string }).k);
      }
    }
  });

  it('parse: a malformed token at places around the switch fails where the loop fails', () => {
    for (const special of MALFORMED) {
      for (const place of PLACES) {
        // Units, not tokens: the plain run is 'a' only, so a token's offset is its place.
        const tokens = [...Array<Token>(place).fill(PLAIN[0]!), special, ...plainRun(6000)];
        const { text, errorAt } = documentOf(tokens);
        const error = parseError(text);
        assert.equal(error.code, 'malformed_json');
        assert.equal(
          error.details.position,
          errorAt,
          `${JSON.stringify(special.written)} at ${place}`,
        );
        assert.equal(errorAt, 6 + place + (special.errorOffset ?? 0));
      }
    }
  });

  it('parse: an unterminated long string fails at the end of the input', () => {
    const text = '["' + 'a'.repeat(LONG_STRING * 4);
    assert.equal(parseError(text).details.position, text.length);
    const quoted = text + '\\"' + 'b'.repeat(LONG_STRING);
    assert.equal(parseError(quoted).details.position, quoted.length);
  });

  it('parse: generated long strings decode or fail exactly as their tokens say', () => {
    const token = fc.oneof(
      { weight: 40, arbitrary: fc.constantFrom(...PLAIN) },
      { weight: 2, arbitrary: fc.constantFrom(...ESCAPED) },
      { weight: 1, arbitrary: fc.constantFrom(...MALFORMED) },
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: LONG_STRING - 10, maxLength: 3000 }), (tokens) => {
        const { text, value, errorAt } = documentOf(tokens);
        if (errorAt === undefined) {
          assert.equal(valueOf(text), value);
        } else {
          assert.equal(parseError(text).details.position, errorAt);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stringify: long strings are written as JSON.stringify writes them, lone surrogates refused', () => {
    const unit = fc.oneof(
      { weight: 40, arbitrary: fc.constantFrom('a', 'é', '😀', '漢') },
      { weight: 2, arbitrary: fc.constantFrom('"', '\\', '\n', '\u0001', '\u001f', '/') },
      { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udc00') },
    );
    fc.assert(
      fc.property(fc.array(unit, { minLength: LONG_STRING - 10, maxLength: 3000 }), (units) => {
        const s = units.join('');
        const lone = firstLoneSurrogate(s);
        if (lone < 0) {
          assert.equal(stringify({ k: s }), JSON.stringify({ k: s }));
          assert.equal(valueOf(stringify({ k: s })), s);
        } else {
          assert.throws(() => stringify({ k: s }), new RegExp(`lone surrogate at index ${lone} `));
        }
      }),
      { numRuns: 300 },
    );
  });
});
