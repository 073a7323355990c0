/**
 * Rules no linter checks, read off the sources: names (issue 10 item 8) and the service
 * refactors of item 6 that must not creep back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverSources } from '../support/sources.js';

/** DESIGN.md §7 terms that have a table or column today, as the glossary names them. */
const TERMS_WITH_A_TABLE = [
  'namespace',
  'application',
  'application quota',
  'queue',
  'credential',
  'task',
  'attempt',
  'permit',
  'usage',
  'task event',
  'receipt',
  'audit',
  'Orbit stream',
  'subscription',
  'lease',
  'generation',
  'review',
  'effect uncertain',
  'settle',
  'admission',
  'deadline',
  'instance',
  'step',
  'activation',
  'gate',
  'poll round',
  'wait',
  'business key',
  'correlation key',
  'inbox event',
  'frozen snapshot',
  'pending advance',
  'checkpoint',
  'control version',
];

const source = (path: string) => {
  const file = serverSources().find((s) => s.path === path);
  assert.ok(file !== undefined, path);
  return file.text;
};

test('item 8: store/schema.ts opens with the glossary, one line per DESIGN §7 term with a table', () => {
  const text = source('store/schema.ts');
  const block = text.slice(0, text.indexOf('*/'));
  assert.ok(text.startsWith('/**\n * Glossary (DESIGN.md §7'), 'the file opens with the glossary');
  for (const term of TERMS_WITH_A_TABLE) {
    assert.match(block, new RegExp(`^ \\*   \\S+ ${term} → \\S`, 'm'), `a line for ${term}`);
  }
  assert.match(block, /no table yet/, 'the weave terms without a table are marked as such');
});

test('item 8: no Signals class remains in src/ (the in-process wake-ups are WakeUps)', () => {
  const signals = serverSources().filter((s) => /\bclass Signals\b|\bSignals as\b/.test(s.text));
  assert.deepEqual(
    signals.map((s) => s.path),
    [],
  );
  assert.match(source('store/wake-ups.ts'), /^export class WakeUps\b/m);
});

test('fire-schedule uses tx.savepoint (no SAVEPOINT SQL of its own)', () => {
  assert.match(source('pulse/fire-schedule.ts'), /\btx\.savepoint\(/);
  const own = serverSources().filter(
    (s) => !s.path.startsWith('store/') && /\bSAVEPOINT\b/.test(s.text),
  );
  assert.deepEqual(
    own.map((s) => s.path),
    [],
    'SAVEPOINT SQL lives in store/with-tx.ts only',
  );
});
