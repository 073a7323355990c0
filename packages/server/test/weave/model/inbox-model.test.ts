/**
 * E2.6 (seed 000 §2: "新字段对应 weave/model/InboxEvent，Go与SQL均有中文注释"): the inbox row
 * has its model type, every `weave_inbox` column of both migrations maps to a field of it, and
 * every field and every column carries a Chinese comment. Reads the sources (no database).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot, serverSources } from '../../support/sources.js';

const CHINESE = /[\u4e00-\u9fff]/;

/** The column lines of `CREATE TABLE … weave_inbox (` in a migration: name → comment. */
function inboxColumns(dialect: 'mysql' | 'sqlite'): Map<string, string> {
  const text = readFileSync(
    join(repoRoot, `packages/server/migrations/${dialect}/0008_weave_runtime.sql`),
    'utf8',
  );
  const start = text.search(/CREATE TABLE (IF NOT EXISTS )?weave_inbox \(/);
  assert.ok(start >= 0, `${dialect}: weave_inbox is created in 0008`);
  const lines = text.slice(start).split('\n').slice(1);
  const body = lines.slice(
    0,
    lines.findIndex((line) => line.startsWith(')')),
  );
  const columns = new Map<string, string>();
  for (const line of body) {
    const name = /^\s+([a-z_]+) [A-Z]/.exec(line)?.[1];
    if (name === undefined) {
      continue;
    }
    const comment =
      dialect === 'mysql' ? /COMMENT '([^']*)'/.exec(line)?.[1] : /-- (.*)$/.exec(line)?.[1];
    columns.set(name, comment ?? '');
  }
  return columns;
}

/** The fields of `export interface InboxEvent` and the doc comment right above each. */
function modelFields(): Map<string, string> {
  const rows = serverSources().find((s) => s.path === 'weave/model/rows.ts');
  assert.ok(rows, 'weave/model/rows.ts');
  const start = rows.text.indexOf('export interface InboxEvent {');
  assert.ok(start >= 0, 'InboxEvent is the model type of the inbox row');
  const lines = rows.text.slice(start, rows.text.indexOf('\n}', start)).split('\n').slice(1);
  const fields = new Map<string, string>();
  let comment: string[] = [];
  for (const line of lines) {
    const field = /^\s+readonly (\w+)\??:/.exec(line)?.[1];
    if (field === undefined) {
      comment.push(line);
      continue;
    }
    fields.set(field, comment.join(' '));
    comment = [];
  }
  return fields;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

test('[E2.6] weave_inbox has the model type InboxEvent: every column maps to a field, and fields and columns carry Chinese comments', () => {
  const fields = modelFields();
  for (const dialect of ['mysql', 'sqlite'] as const) {
    const columns = inboxColumns(dialect);
    for (const name of ['source_task_id', 'source_activation_id', 'source_revision', 'snapshot']) {
      assert.ok(columns.has(name), `${dialect}: the seed's column ${name}`);
    }
    for (const [column, comment] of columns) {
      assert.match(comment, CHINESE, `${dialect}: weave_inbox.${column} has a Chinese comment`);
      assert.ok(fields.has(camel(column)), `InboxEvent maps weave_inbox.${column}`);
    }
  }
  const uncommented = [...fields].filter(([, comment]) => !CHINESE.test(comment)).map(([f]) => f);
  assert.deepEqual(uncommented, [], 'every InboxEvent field has a Chinese comment');
});
