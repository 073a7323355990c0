/**
 * The namespace-scope checker (test/support/namespace-scope.ts) on hand-written statements, in
 * both quotings (backticks as Kysely compiles for MariaDB, double quotes for SQLite).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkNamespaceScope } from '../support/namespace-scope.js';

const NAMESPACED = new Set(['tasks', 'queues', 'task_attempts', 'audit_log']);

function unscoped(sql: string): readonly string[] {
  return checkNamespaceScope(sql, NAMESPACED).unscoped;
}

/** The statement with double quotes, and the same with backticks. */
function both(sql: string): string[] {
  return [sql, sql.replaceAll('"', '`')];
}

const SCOPED: readonly [string, string][] = [
  ['a filter on the column', 'select * from "tasks" where "id" = ? and "namespace_id" = ?'],
  ['a qualified filter', 'select * from "tasks" where "tasks"."namespace_id" = ? and "id" = ?'],
  ['the value first', 'select * from "tasks" where ? = "namespace_id"'],
  ['an in list', 'select * from "tasks" where "namespace_id" in (?, ?) and "status" = ?'],
  ['a literal', 'select * from "tasks" where "namespace_id" = 7'],
  ['an alias', 'select "t"."id" from "tasks" as "t" where "t"."namespace_id" = ?'],
  ['inside parentheses', 'select * from "tasks" where ("id" = ? and ("namespace_id" = ?))'],
  [
    'a join whose ON carries it',
    'select * from "tasks" as "t" inner join "queues" as "q" on "q"."id" = "t"."queue_id" ' +
      'and "q"."namespace_id" = ? where "t"."namespace_id" = ?',
  ],
  [
    'a join linked to a filtered table',
    'select * from "tasks" as "t" left join "queues" as "q" on "q"."id" = "t"."queue_id" ' +
      'and "q"."namespace_id" = "t"."namespace_id" where "t"."namespace_id" = ?',
  ],
  [
    'a scoped sub-query',
    'select * from "tasks" where "namespace_id" = ? and "queue_id" in ' +
      '(select "id" from "queues" where "namespace_id" = ? and "paused" = 0)',
  ],
  [
    'an exists sub-query',
    'select * from "queues" as "q" where "q"."namespace_id" = ? and exists (select 1 from ' +
      '"tasks" as "t" where "t"."queue_id" = "q"."id" and "t"."namespace_id" = ?)',
  ],
  ['an update', 'update "tasks" set "status" = ? where "id" = ? and "namespace_id" = ?'],
  ['a delete', 'delete from "tasks" where "namespace_id" = ? and "id" in (?, ?)'],
  [
    'an insert',
    'insert into "tasks" ("namespace_id", "queue_id") values (?, ?), (?, ?) returning "id"',
  ],
  [
    'an upsert',
    'insert into "queues" ("namespace_id", "name") values (?, ?) on conflict ("namespace_id", ' +
      '"name") do update set "capacity" = "excluded"."capacity"',
  ],
  [
    'a MySQL upsert',
    'insert into "queues" ("namespace_id", "name") values (?, ?) on duplicate key update ' +
      '"capacity" = values("capacity")',
  ],
  ['a table without the column', 'select * from "namespaces" where "id" = ?'],
  ['a locking read', 'select * from "tasks" where "namespace_id" = ? for update skip locked'],
  ['the clock', 'select cast(unix_timestamp(now(6)) * 1000000 as signed) as now_us'],
  ['select 1', 'select 1'],
  ['begin', 'BEGIN IMMEDIATE'],
  ['a savepoint', 'SAVEPOINT sp_1'],
  ['a session setting', "SET time_zone = '+00:00'"],
  ['DDL', 'create table "tasks" ("id" integer)'],
  ['a CTE over a table without the column', 'with "x" as (select 1 as "a") select * from "x"'],
  ['a string that looks like SQL', 'select * from "namespaces" where "name" = \'from tasks\''],
  [
    'a derived table that is scoped',
    'select count(*) from (select "id" from "tasks" where "namespace_id" = ? limit ?) as "d"',
  ],
  [
    'a MySQL multi-table update',
    'update "tasks" as "t" inner join "queues" as "q" on "q"."id" = "t"."queue_id" and ' +
      '"q"."namespace_id" = ? set "t"."status" = ? where "t"."namespace_id" = ?',
  ],
];

const UNSCOPED: readonly [string, string, readonly string[]][] = [
  ['no filter at all', 'select * from "tasks" where "id" = ?', ['tasks']],
  ['a filter on another column', 'select * from "tasks" where "queue_id" = ?', ['tasks']],
  ['no where', 'select count(*) from "tasks"', ['tasks']],
  [
    'a namespace_id only in the select list',
    'select "namespace_id" from "tasks" where "id" = ?',
    ['tasks'],
  ],
  [
    'a SET of namespace_id in an update',
    'update "tasks" set "namespace_id" = ? where "id" = ?',
    ['tasks'],
  ],
  ['a delete by id', 'delete from "task_attempts" where "id" in (?, ?)', ['task_attempts']],
  ['an insert without the column', 'insert into "tasks" ("queue_id") values (?)', ['tasks']],
  [
    'a join whose joined table is not filtered',
    'select * from "tasks" as "t" inner join "queues" as "q" on "q"."id" = "t"."queue_id" ' +
      'where "t"."namespace_id" = ?',
    ['queues'],
  ],
  [
    'the filter on the other alias only',
    'select * from "tasks" as "a" inner join "tasks" as "b" on "b"."id" = "a"."id" ' +
      'where "a"."namespace_id" = ?',
    ['tasks'],
  ],
  [
    'a link between two unfiltered tables',
    'select * from "tasks" as "t" inner join "queues" as "q" on ' +
      '"q"."namespace_id" = "t"."namespace_id"',
    ['queues', 'tasks'],
  ],
  [
    'an unscoped sub-query under a scoped query',
    'select * from "tasks" where "namespace_id" = ? and "queue_id" in ' +
      '(select "id" from "queues" where "paused" = 0)',
    ['queues'],
  ],
  [
    'a scoped sub-query under an unscoped query',
    'select * from "tasks" where "queue_id" in ' +
      '(select "id" from "queues" where "namespace_id" = ?)',
    ['tasks'],
  ],
  [
    'the outer filter does not scope a correlated sub-query',
    'select * from "queues" as "q" where "q"."namespace_id" = ? and exists ' +
      '(select 1 from "tasks" as "t" where "t"."queue_id" = "q"."id")',
    ['tasks'],
  ],
  [
    'an unscoped derived table',
    'select count(*) from (select "id" from "tasks" limit ?) as "d"',
    ['tasks'],
  ],
  ['a comma join', 'select * from "tasks", "queues" where "tasks"."namespace_id" = ?', ['queues']],
  [
    'an insert from an unscoped select',
    'insert into "audit_log" ("namespace_id", "at") select "namespace_id", ? from "tasks"',
    ['tasks'],
  ],
  ['a locking read', 'select * from "tasks" where "status" = ? for update skip locked', ['tasks']],
  [
    'a MySQL multi-table delete',
    'delete "a" from "task_attempts" as "a" inner join "tasks" as "t" on "t"."id" = "a"."task_id" ' +
      'where "t"."namespace_id" = ?',
    ['task_attempts'],
  ],
];

describe('checkNamespaceScope', () => {
  for (const [name, sql] of SCOPED) {
    it(`passes ${name}`, () => {
      for (const text of both(sql)) {
        assert.deepEqual(unscoped(text), [], text);
      }
    });
  }
  for (const [name, sql, tables] of UNSCOPED) {
    it(`flags ${name}`, () => {
      for (const text of both(sql)) {
        assert.deepEqual(unscoped(text), tables, text);
      }
    });
  }
  it('ignores comments and reads upper-case keywords', () => {
    assert.deepEqual(unscoped('SELECT * FROM `tasks` -- where namespace_id = ?\nWHERE id = ?'), [
      'tasks',
    ]);
    assert.deepEqual(unscoped('SELECT * FROM `tasks` /* x */ WHERE `namespace_id` = ?'), []);
  });
});
