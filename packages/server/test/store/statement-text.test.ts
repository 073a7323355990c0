/**
 * `formatQuery` (store/statement-text.ts, mysql2's `queryFormat` on Weave's pool) writes the text
 * mysql2 would write: compared with mysql2's own `format` for statements of every kind the hot
 * path sends and for hostile ones, with values of every type, on the first call of a text (split
 * and checked) and on later calls (the kept split). Texts the module leaves to mysql2 still come
 * out the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { format } from 'mysql2';
import { formatQuery, keptTexts, packetParameters } from '../../src/store/statement-text.js';

/** One statement as the pool formats it (mysql2's `queryFormat`). */
const statementText = (sql: string, values: readonly unknown[]) => formatQuery(sql, values);

const mysql2 = (sql: string, values: readonly unknown[]) =>
  format(sql, values as Parameters<typeof format>[1], undefined, 'Z');

const STRINGS = [
  '',
  'plain',
  '01JAB7V3H9Q6K2Y8M4N5P0R1ST',
  "it's",
  'back\\slash',
  'quote " double',
  'nul \0 byte',
  'lines\nand\r\ttabs\b\x1a',
  "'; DROP TABLE tasks; --",
  '*/ SELECT 1; /*',
  '?',
  '??',
  'é 中文 😀',
  '{"a":[1,2.50,"x"]}',
];

const VALUES: readonly unknown[] = [
  ...STRINGS,
  0,
  -0,
  42,
  -7.25,
  1e21,
  Number.NaN,
  12345678901234567890n,
  0n,
  -5n,
  9007199254740991n,
  9007199254740992n,
  true,
  false,
  null,
  undefined,
  Buffer.from([0, 1, 0xab, 0xff]),
  new Uint8Array([9, 8, 7]),
  new Uint8Array(new Uint8Array([1, 2, 3, 4, 5]).buffer, 1, 3),
];

test('statementText writes every value as mysql2 does, first call and kept split alike', () => {
  const sql = 'UPDATE tasks SET a = ?, b = ? WHERE id IN (?, ?) AND c = ?';
  for (let round = 0; round < 2; round++) {
    for (const a of VALUES) {
      for (const b of STRINGS) {
        const values = [a, b, '7', 8n, a];
        assert.equal(statementText(sql, values), mysql2(sql, values), String(a));
      }
    }
  }
});

test('every character below 128, alone and in runs, is escaped as mysql2 escapes it', () => {
  const sql = 'SELECT ? AS v';
  const all = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
  for (const c of all) {
    assert.equal(statementText(sql, [c]), mysql2(sql, [c]), `char ${c.charCodeAt(0)}`);
    assert.equal(statementText(sql, [`a${c}${c}b`]), mysql2(sql, [`a${c}${c}b`]));
  }
  assert.equal(statementText(sql, [all.join('')]), mysql2(sql, [all.join('')]));
  // Pseudo-random ASCII strings, a fixed seed.
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 128;
  for (let i = 0; i < 500; i++) {
    const text = Array.from({ length: next() }, () => String.fromCharCode(next())).join('');
    assert.equal(statementText(sql, [text]), mysql2(sql, [text]));
  }
});

test('a value outside ASCII, or a packet past 4 MiB, is formatted by mysql2, as it would be', () => {
  const sql = 'INSERT INTO t (a, b) VALUES (?, ?)';
  for (const value of ['é', 'x\u0080', '中文', '😀', '\ud800']) {
    assert.equal(statementText(sql, [value, 1]), mysql2(sql, [value, 1]));
    const statements = [
      { sql: 'UPDATE t SET a = ?', parameters: ['plain'] },
      { sql, parameters: [value, 2] },
    ];
    const joined = statements.map((s) => s.sql).join(';\n');
    const parameters = packetParameters(statements);
    assert.equal(formatQuery(joined, parameters), mysql2(joined, parameters));
  }
  const large = "it's ".repeat(1024 * 1024);
  assert.equal(statementText(sql, [large, 3]), mysql2(sql, [large, 3]));
  // And the next small packet is written by this module again, correctly.
  assert.equal(statementText(sql, ['a', 4]), mysql2(sql, ['a', 4]));
});

test('statementText leaves the text alone where mysql2 reads a ? as no placeholder', () => {
  const texts = [
    "SELECT '?' AS q, ? AS v",
    'SELECT "a?b", ? FROM t WHERE x = ?',
    "SELECT 'it\\'s ?', ?",
    'SELECT `odd?name`, ? FROM t',
    'SELECT ? -- a comment?\n, ?',
    'SELECT ? # a comment?\n, ?',
    'SELECT /* why? */ ?, ?',
    'SELECT /*!50000 ? */ ?',
    'SELECT ??, ? FROM t',
    'SELECT ???, ?, ?',
    'SELECT ?--x\n, ?',
  ];
  for (const sql of texts) {
    for (let round = 0; round < 2; round++) {
      const values = ["x'y", 3, 'z'];
      assert.equal(statementText(sql, values), mysql2(sql, values), sql);
    }
  }
});

test('a statement with a value mysql2 writes by its place (object, date, array) is mysql2 whole', () => {
  const sql = 'UPDATE t SET ? WHERE id = ? AND at < ? AND k IN (?)';
  const values = [
    { a: 1, b: "it's" },
    'id1',
    new Date(Date.UTC(2026, 11, 5, 8, 9, 10, 11)),
    [1, 'a'],
  ];
  for (let round = 0; round < 2; round++) {
    assert.equal(statementText(sql, values), mysql2(sql, values));
    // The same text with plain values afterwards still takes the kept split.
    assert.equal(statementText(sql, ['a', 'b', 'c', 'd']), mysql2(sql, ['a', 'b', 'c', 'd']));
  }
});

test('fewer or more values than placeholders: as mysql2 (the rest left as ?, extras dropped)', () => {
  const sql = 'SELECT ?, ?, ? FROM t';
  assert.equal(statementText(sql, ['a']), mysql2(sql, ['a']));
  assert.equal(statementText(sql, ['a', 'b', 'c', 'd']), mysql2(sql, ['a', 'b', 'c', 'd']));
  assert.equal(statementText(sql, ['a', 'b', 'c']), mysql2(sql, ['a', 'b', 'c']));
  assert.equal(statementText(sql, []), sql);
});

test('a packet of statements (packetParameters) is written as mysql2 writes the joined text', () => {
  const statements: { sql: string; parameters: unknown[] }[] = [
    { sql: 'BEGIN', parameters: [] },
    { sql: 'INSERT INTO e (a, b) VALUES (?, ?), (?, ?)', parameters: ["'; --", 1, null, 2n] },
    { sql: "SELECT '?' AS q, ?", parameters: ['\\'] },
    { sql: 'UPDATE t SET s = CASE id WHEN ? THEN ? END', parameters: ['i', Buffer.from('ab')] },
  ];
  const joined = statements.map((s) => s.sql).join(';\n');
  for (let round = 0; round < 2; round++) {
    const parameters = packetParameters(statements);
    assert.deepEqual(
      parameters,
      statements.flatMap((s) => s.parameters),
    );
    assert.equal(formatQuery(joined, parameters), mysql2(joined, parameters));
    // The same values in an array of their own: the joined text, split as one statement.
    assert.equal(formatQuery(joined, [...parameters]), mysql2(joined, parameters));
  }
  const kept = keptTexts();
  assert.ok(kept.split > 0 && kept.mysql2 > 0, JSON.stringify(kept));
});
