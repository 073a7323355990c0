import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJsonArray, isJsonNumber, isJsonObject, isRawJson, parse } from '../src/index.js';

describe('guards', () => {
  it('tell the kinds of a parsed value apart', () => {
    const value = parse('{"list":[1],"n":2.5}');
    assert.ok(isJsonObject(value));
    const list = value.get('list');
    assert.ok(isJsonArray(list));
    assert.ok(isJsonNumber(list[0]));
    assert.ok(isJsonNumber(value.get('n')));
    assert.equal(isJsonObject(list), false);
    assert.equal(isJsonArray(value), false);
  });

  it('accept only well-formed JsonNumber and RawJson shapes', () => {
    assert.equal(isJsonNumber({ kind: 'number', text: '01' }), false);
    assert.equal(isJsonNumber({ kind: 'number', text: 1 }), false);
    assert.equal(isJsonNumber('1'), false);
    assert.equal(isJsonNumber(null), false);
    assert.ok(isRawJson({ kind: 'raw', text: '[]' }));
    assert.equal(isRawJson({ kind: 'number', text: '1' }), false);
  });
});
