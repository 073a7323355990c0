import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { canonicalize, equalJson, parse, stringify } from '../src/index.js';

/** The corpus stays in the source tree; this file runs from build/test/. */
const CORPUS = new URL('../../test/corpus/', import.meta.url);

const files = readdirSync(CORPUS)
  .filter((name) => name.endsWith('.json'))
  .sort();

describe('corpus round trip', () => {
  it('holds at least 30 documents', () => {
    assert.ok(files.length >= 30, `only ${files.length} corpus files`);
  });

  for (const name of files) {
    it(`writes ${name} back byte for byte`, () => {
      const bytes = readFileSync(new URL(name, CORPUS));
      const fromBytes = parse(bytes, { maxDepth: 200 });
      const written = Buffer.from(stringify(fromBytes), 'utf8');
      assert.ok(written.equals(bytes), `${name}: got ${written.toString('utf8').slice(0, 200)}`);
      const fromString = parse(bytes.toString('utf8'), { maxDepth: 200 });
      assert.equal(stringify(fromString), bytes.toString('utf8'));
      assert.ok(equalJson(fromBytes, parse(canonicalize(fromBytes), { maxDepth: 200 })));
    });
  }
});
