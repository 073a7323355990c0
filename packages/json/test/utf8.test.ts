import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { utf8ByteLength } from '../src/index.js';
import { findInvalidUtf8 } from '../src/utf8.js';

const fatal = new TextDecoder('utf-8', { fatal: true });

function decodes(bytes: Uint8Array): boolean {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Byte soup biased towards near-valid UTF-8: lead bytes followed by continuation bytes. */
const utf8ishBytes = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0x00, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0xbf }),
      fc.constantFrom(0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5),
      fc.integer({ min: 0x00, max: 0xff }),
    ),
    { maxLength: 12 },
  )
  .map((bytes) => new Uint8Array(bytes));

describe('utf8ByteLength', () => {
  it('counts the bytes Buffer.byteLength counts for well-formed strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        assert.equal(utf8ByteLength(s), Buffer.byteLength(s, 'utf8'));
      }),
      { numRuns: 1000 },
    );
    assert.equal(utf8ByteLength('a\u00e9\u20ac😀'), 1 + 2 + 3 + 4);
  });

  it('counts a lone surrogate as the 3 bytes of its U+FFFD replacement', () => {
    for (const s of ['\ud800', '\udc00', 'a\ud800b', '\ud83d\ud83d\ude00']) {
      assert.equal(utf8ByteLength(s), new TextEncoder().encode(s).length, JSON.stringify(s));
    }
  });
});

describe('findInvalidUtf8', () => {
  it('agrees with a fatal TextDecoder and points after a valid prefix', () => {
    fc.assert(
      fc.property(utf8ishBytes, (bytes) => {
        const offset = findInvalidUtf8(bytes);
        assert.equal(offset === -1, decodes(bytes));
        if (offset >= 0) {
          assert.ok(decodes(bytes.subarray(0, offset)), 'the bytes before the offset are valid');
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts every code point encoded by TextEncoder', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        assert.equal(findInvalidUtf8(new TextEncoder().encode(s)), -1);
      }),
    );
  });
});
