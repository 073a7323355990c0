import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonErrorCode, JsonErrorDetails, ParseOptions } from '../src/index.js';
import { JsonError, parse } from '../src/index.js';

interface Rejection {
  readonly input: string | readonly number[];
  readonly code: JsonErrorCode;
  readonly details: JsonErrorDetails;
  readonly options?: ParseOptions;
  readonly why: string;
}

/** `position` in UTF-16 units (string input) or bytes (byte input); line and column 1-based. */
function at(position: number, line = 1, column = position + 1): JsonErrorDetails {
  return { position, line, column };
}

const bytesOf = (text: string): readonly number[] => [...Buffer.from(text, 'utf8')];

const STRING_REJECTIONS: readonly Rejection[] = [
  { input: '01', code: 'malformed_json', details: at(1), why: 'a leading zero' },
  { input: '-01', code: 'malformed_json', details: at(2), why: 'a leading zero after minus' },
  { input: '+1', code: 'malformed_json', details: at(0), why: 'a plus sign' },
  { input: '.5', code: 'malformed_json', details: at(0), why: 'no integer part' },
  { input: '1.', code: 'malformed_json', details: at(2), why: 'no fraction digits' },
  { input: '1.e5', code: 'malformed_json', details: at(2), why: 'no fraction digits' },
  { input: '1e', code: 'malformed_json', details: at(2), why: 'no exponent digits' },
  { input: '1e+', code: 'malformed_json', details: at(3), why: 'no exponent digits' },
  { input: '-', code: 'malformed_json', details: at(1), why: 'a lone minus' },
  { input: 'NaN', code: 'malformed_json', details: at(0), why: 'NaN' },
  { input: '-Infinity', code: 'malformed_json', details: at(1), why: 'Infinity' },
  { input: '0x10', code: 'malformed_json', details: at(1), why: 'a hex number' },
  { input: '[1,]', code: 'malformed_json', details: at(3), why: 'a trailing comma' },
  { input: '{"a":1,}', code: 'malformed_json', details: at(7), why: 'a trailing comma' },
  { input: '[1,,2]', code: 'malformed_json', details: at(3), why: 'an empty element' },
  { input: '{"a" 1}', code: 'malformed_json', details: at(5), why: 'a missing colon' },
  { input: '{a:1}', code: 'malformed_json', details: at(1), why: 'an unquoted key' },
  { input: "{'a':1}", code: 'malformed_json', details: at(1), why: 'a single-quoted key' },
  { input: '{"a":1 "b":2}', code: 'malformed_json', details: at(7), why: 'a missing comma' },
  { input: '[1 /* c */]', code: 'malformed_json', details: at(3), why: 'a block comment' },
  { input: '// c\n1', code: 'malformed_json', details: at(0), why: 'a line comment' },
  { input: '"a\tb"', code: 'malformed_json', details: at(2), why: 'a raw tab in a string' },
  { input: '{"a\u001f":1}', code: 'malformed_json', details: at(3), why: 'a control in a key' },
  { input: '"\\x"', code: 'malformed_json', details: at(1), why: 'an invalid escape' },
  { input: '"\\u12G4"', code: 'malformed_json', details: at(1), why: 'a bad \\u escape' },
  { input: '"abc', code: 'malformed_json', details: at(4), why: 'an unterminated string' },
  { input: '"abc\\', code: 'malformed_json', details: at(5), why: 'input ends in an escape' },
  { input: '1 2', code: 'malformed_json', details: at(2), why: 'trailing garbage' },
  { input: '{"a":1}x', code: 'malformed_json', details: at(7), why: 'trailing garbage' },
  { input: '\ufeff{}', code: 'malformed_json', details: at(0), why: 'a byte order mark' },
  { input: '', code: 'malformed_json', details: at(0), why: 'empty input' },
  { input: '   ', code: 'malformed_json', details: at(3), why: 'only whitespace' },
  { input: '\u00a01', code: 'malformed_json', details: at(0), why: 'NBSP is not whitespace' },
  { input: '\f1', code: 'malformed_json', details: at(0), why: 'form feed is not whitespace' },
  { input: 'tru', code: 'malformed_json', details: at(3), why: 'a cut literal' },
  { input: 'True', code: 'malformed_json', details: at(0), why: 'a capitalized literal' },
  { input: 'nulL', code: 'malformed_json', details: at(3), why: 'a misspelt literal' },
  { input: ']', code: 'malformed_json', details: at(0), why: 'a closing bracket' },
  { input: '["😀",x]', code: 'malformed_json', details: at(6), why: 'an astral char counts 2' },
  { input: '"a\ud800b"', code: 'malformed_json', details: at(2), why: 'a raw lone high surrogate' },
  { input: '"\udc00"', code: 'malformed_json', details: at(1), why: 'a raw lone low surrogate' },
  { input: '"\\ud800"', code: 'malformed_json', details: at(1), why: 'an escaped lone surrogate' },
  { input: '"\\ud800\\u0041"', code: 'malformed_json', details: at(1), why: 'high + non-low' },
  { input: '"\\udc00\\ud800"', code: 'malformed_json', details: at(1), why: 'pair in reverse' },
  { input: '"x\\uD800"', code: 'malformed_json', details: at(2), why: 'uppercase lone escape' },
  {
    input: '"\ud800\\udc00"',
    code: 'malformed_json',
    details: at(1),
    why: 'a raw high surrogate with an escaped low one',
  },
  {
    input: '{\n  "a": 1,\n  "b": tru\n}',
    code: 'malformed_json',
    details: at(22, 3, 11),
    why: 'an error on line 3',
  },
  { input: '[1,\r\n2,\r\nx]', code: 'malformed_json', details: at(9, 3, 1), why: 'CRLF lines' },
  {
    input: '{"a":1,"a":2}',
    code: 'duplicate_key',
    details: { ...at(7), path: '$', key: 'a' },
    why: 'a duplicate key',
  },
  {
    input: '{"x":[0,{"k":1,"k":2}]}',
    code: 'duplicate_key',
    details: { ...at(15), path: '$.x[1]', key: 'k' },
    why: 'a nested duplicate key',
  },
  {
    input: '{"a":1,"\\u0061":2}',
    code: 'duplicate_key',
    details: { ...at(7), path: '$', key: 'a' },
    why: 'a key equal once unescaped',
  },
  {
    input: '{"odd key":{"x":1,"x":2}}',
    code: 'duplicate_key',
    details: { ...at(18), path: '$["odd key"]', key: 'x' },
    why: 'a path with a quoted key',
  },
  {
    input: '{"__proto__":{}}',
    code: 'forbidden_key',
    details: { ...at(1), path: '$', key: '__proto__' },
    why: 'a __proto__ key',
  },
  {
    input: '[{"a":{"__proto__":1}}]',
    code: 'forbidden_key',
    details: { ...at(7), path: '$[0].a', key: '__proto__' },
    why: 'a nested __proto__ key',
  },
  {
    input: '{"__proto\\u005f_":1}',
    code: 'forbidden_key',
    details: { ...at(1), path: '$', key: '__proto__' },
    why: 'an escaped __proto__ key',
  },
  {
    input: '['.repeat(65) + ']'.repeat(65),
    code: 'too_deep',
    details: { ...at(64), path: '$' + '[0]'.repeat(64), limit: 64 },
    why: 'nesting over the default limit',
  },
  {
    input: '{"a":{"b c":[{}]}}',
    options: { maxDepth: 3 },
    code: 'too_deep',
    details: { ...at(13), path: '$.a["b c"][0]', limit: 3 },
    why: 'nesting over a set limit',
  },
  {
    input: '[]',
    options: { maxDepth: 0 },
    code: 'too_deep',
    details: { ...at(0), path: '$', limit: 0 },
    why: 'any container at depth 0',
  },
  {
    input: '"éé"',
    options: { maxBytes: 5 },
    code: 'payload_too_large',
    details: { limit: 5, size: 6 },
    why: 'a string over the byte limit',
  },
];

const BYTE_REJECTIONS: readonly Rejection[] = [
  { input: [0x22, 0xc0, 0x80, 0x22], code: 'malformed_json', details: at(1), why: 'overlong 2' },
  {
    input: [0x22, 0xe0, 0x80, 0xaf, 0x22],
    code: 'malformed_json',
    details: at(1),
    why: 'overlong 3',
  },
  {
    input: [0x22, 0xf0, 0x80, 0x80, 0xaf, 0x22],
    code: 'malformed_json',
    details: at(1),
    why: 'overlong 4',
  },
  {
    input: [0x22, 0xed, 0xa0, 0x80, 0x22],
    code: 'malformed_json',
    details: at(1),
    why: 'encoded U+D800',
  },
  {
    input: [0x22, 0xed, 0xbf, 0xbf, 0x22],
    code: 'malformed_json',
    details: at(1),
    why: 'encoded U+DFFF',
  },
  { input: [0x22, 0xe2, 0x82], code: 'malformed_json', details: at(1), why: 'truncated at end' },
  { input: [0x22, 0xe2, 0x82, 0x22], code: 'malformed_json', details: at(1), why: 'truncated' },
  {
    input: [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22],
    code: 'malformed_json',
    details: at(1),
    why: 'above U+10FFFF',
  },
  {
    input: [0x22, 0xf5, 0x80, 0x80, 0x80, 0x22],
    code: 'malformed_json',
    details: at(1),
    why: 'lead byte F5',
  },
  { input: [0x22, 0xff, 0x22], code: 'malformed_json', details: at(1), why: 'byte FF' },
  { input: [0x22, 0x80, 0x22], code: 'malformed_json', details: at(1), why: 'lone continuation' },
  {
    input: [0x22, 0x61, 0xc3, 0xa9, 0xc3, 0x22],
    code: 'malformed_json',
    details: at(4),
    why: 'truncated after valid é',
  },
  {
    input: [0x5b, 0x0a, 0x22, 0xc3, 0x22, 0x5d],
    code: 'malformed_json',
    details: at(3, 2, 2),
    why: 'invalid UTF-8 on line 2',
  },
  {
    input: [0xef, 0xbb, 0xbf, 0x7b, 0x7d],
    code: 'malformed_json',
    details: at(0),
    why: 'a byte order mark',
  },
  { input: bytesOf('["é", ]'), code: 'malformed_json', details: at(7), why: 'é counts 2 bytes' },
  { input: bytesOf('["😀",x]'), code: 'malformed_json', details: at(8), why: '😀 counts 4' },
  {
    input: bytesOf('[\n"é",\n]'),
    code: 'malformed_json',
    details: at(8, 3, 1),
    why: 'byte lines',
  },
  {
    input: bytesOf('"é\u0001"'),
    code: 'malformed_json',
    details: at(3),
    why: 'a control after é',
  },
  {
    input: bytesOf('"é\\ud800"'),
    code: 'malformed_json',
    details: at(3),
    why: 'an escaped lone surrogate',
  },
  {
    input: bytesOf('{"é":1,"é":2}'),
    code: 'duplicate_key',
    details: { ...at(8), path: '$', key: 'é' },
    why: 'a duplicate key after é',
  },
  {
    input: bytesOf('"éé"'),
    options: { maxBytes: 5 },
    code: 'payload_too_large',
    details: { limit: 5, size: 6 },
    why: 'bytes over the limit',
  },
];

function parseInput(rejection: Rejection): unknown {
  const input =
    typeof rejection.input === 'string' ? rejection.input : new Uint8Array(rejection.input);
  return parse(input, rejection.options);
}

function describeInput(input: string | readonly number[]): string {
  return typeof input === 'string'
    ? JSON.stringify(input).slice(0, 40)
    : `bytes ${input.map((b) => b.toString(16).padStart(2, '0')).join(' ')}`;
}

describe('parse rejections', () => {
  for (const [name, table] of [
    ['string', STRING_REJECTIONS],
    ['byte', BYTE_REJECTIONS],
  ] as const) {
    for (const rejection of table) {
      const where = describeInput(rejection.input);
      it(`rejects ${rejection.why} in ${name} input (${where}) with ${rejection.code}`, () => {
        assert.throws(
          () => parseInput(rejection),
          (error: unknown) => {
            assert.ok(error instanceof JsonError);
            assert.equal(error.code, rejection.code);
            assert.deepEqual(error.details, rejection.details);
            return true;
          },
        );
      });
    }
  }

  it('reports the same problem for a string and its UTF-8 bytes when all is ASCII', () => {
    for (const rejection of STRING_REJECTIONS) {
      if (typeof rejection.input !== 'string' || /[^\x20-\x7e\n\r]/.test(rejection.input)) {
        continue;
      }
      const fromBytes = captureError(() =>
        parse(Buffer.from(rejection.input as string), rejection.options),
      );
      const fromString = captureError(() => parse(rejection.input as string, rejection.options));
      assert.deepEqual(fromBytes, fromString, describeInput(rejection.input));
    }
  });

  it('names the position, line and column in the message', () => {
    assert.throws(() => parse('[1,\n x]'), {
      message: "expected a value but found 'x' at position 5 (line 2, column 2)",
    });
  });

  it('throws JsonError, an Error named JsonError', () => {
    const error = captureError(() => parse('['));
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'JsonError');
  });
});

function captureError(run: () => unknown): JsonError {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof JsonError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected a JsonError');
}
