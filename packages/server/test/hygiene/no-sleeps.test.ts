/**
 * STYLE.md §10: events are ordered through hooks and `waitFor` on an observable condition, never
 * by sleeping. A fixed wait is allowed only to assert that something does NOT happen within a
 * bound, and then says so on the line above: `// sleep-ok: <why>`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const TEST_SOURCES = new URL('../../../test/', import.meta.url);

/** The tests that used to order events with sleeps (issue 10, item 7). */
const FILES = [
  'pulse/http.test.ts',
  'pulse/admission.test.ts',
  'pulse/claim-with-wait.test.ts',
  'orbit/streams-http.test.ts',
  'orbit/webhook.test.ts',
];

const WAIT = /\b(setTimeout|setInterval|sleep|delay|settle)\s*\(|timers\/promises/;
const JUSTIFIED = /\/\/ sleep-ok: \S/;

/** Lines that wait a fixed time without a justification, as `file:line: text`. */
export function unjustifiedSleeps(file: string, source: string): string[] {
  const lines = source.split('\n');
  return lines.flatMap((line, i) => {
    const justified = JUSTIFIED.test(line) || JUSTIFIED.test(lines[i - 1] ?? '');
    return WAIT.test(line) && !justified ? [`${file}:${i + 1}: ${line.trim()}`] : [];
  });
}

test('no test orders events with a sleep', () => {
  const found = FILES.flatMap((file) =>
    unjustifiedSleeps(file, readFileSync(new URL(file, TEST_SOURCES), 'utf8')),
  );
  assert.deepEqual(found, [], `fixed sleeps left:\n${found.join('\n')}`);
});

test('the sleep scan finds a sleep, a delay helper and timers/promises, and honours sleep-ok', () => {
  const source = [
    'await new Promise((r) => setTimeout(r, 50));',
    'await sleep(10);',
    "import { setTimeout as delay } from 'node:timers/promises';",
    '// sleep-ok: asserts nothing arrives within 500 ms',
    'await new Promise((r) => setTimeout(r, 500));',
    'await waitFor(() => ready || undefined);',
  ].join('\n');
  assert.deepEqual(
    unjustifiedSleeps('x.ts', source).map((l) => l.split(':')[1]),
    ['1', '2', '3'],
  );
});
