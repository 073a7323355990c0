import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { JsonValue } from '@weave/json';
import { parse, stringify } from '@weave/json';
import { compile, decisionToJson, snapshotFromJson, snapshotToJson } from '../src/index.js';

// Golden fixtures (STYLE.md §2): each case holds a definition, a snapshot and the decisions the
// planner must return for it. `UPDATE_FIXTURES=1` rewrites decisions.json; review the diff.

const root = new URL('../../test/fixtures/', import.meta.url);
const update = process.env['UPDATE_FIXTURES'] === '1';

function read(dir: URL, name: string): string {
  return readFileSync(new URL(name, dir), 'utf8');
}

function limitOf(text: string | undefined): number {
  if (text === undefined) {
    return 32;
  }
  const limit = (parse(text) as ReadonlyMap<string, JsonValue>).get('limit');
  return limit !== null && typeof limit === 'object' && 'text' in limit ? Number(limit.text) : 32;
}

function tryRead(dir: URL, name: string): string | undefined {
  try {
    return read(dir, name);
  } catch {
    return undefined;
  }
}

for (const name of readdirSync(root).sort()) {
  test(`[E3.2] golden fixture ${name} re-plans to the recorded decisions`, () => {
    const dir = new URL(`${name}/`, root);
    const compiled = compile(parse(read(dir, 'definition.json')));
    assert.ok(compiled.ok, `${name}: the definition must compile`);
    const snapshot = snapshotFromJson(parse(read(dir, 'snapshot.json')));
    const recorded = tryRead(dir, 'decisions.json');
    const limit = limitOf(recorded);
    const result = compiled.program.plan(snapshot, limit);
    const actual = new Map<string, JsonValue>([
      ['limit', { kind: 'number', text: String(limit) }],
      ['more', result.more],
      ['decisions', result.decisions.map(decisionToJson)],
    ]);
    const text = `${stringify(actual, { indent: 2 })}\n`;
    if (update) {
      writeFileSync(new URL('decisions.json', dir), text);
      return;
    }
    assert.equal(text, recorded, `${name}: decisions differ (UPDATE_FIXTURES=1 rewrites them)`);
    const roundTripped = snapshotFromJson(parse(stringify(snapshotToJson(snapshot))));
    assert.deepEqual(
      compiled.program.plan(roundTripped, limit),
      result,
      `${name}: JSON round trip`,
    );
  });
}
