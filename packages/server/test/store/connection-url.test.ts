/**
 * `--db` URLs (store/connection-url.ts): MariaDB/MySQL by host and port or by the server's Unix
 * socket (`?socket=`), SQLite by path.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  describeConnection,
  mysqlConnectionOptions,
  parseConnectionUrl,
} from '../../src/store/connection-url.js';
import { openDatabase } from '../../src/store/database.js';
import { withTx } from '../../src/store/with-tx.js';
import { DIALECTS, createTestDatabase } from '../support/databases.js';

describe('database URLs', () => {
  test('a mysql:// URL gives host, port, user, password and database; mariadb:// is the same', () => {
    for (const scheme of ['mysql', 'mariadb']) {
      const config = parseConnectionUrl(`${scheme}://weave:p%40ss@db.internal:3307/prod`);
      assert.deepEqual(config, {
        kind: 'mysql',
        host: 'db.internal',
        port: 3307,
        user: 'weave',
        password: 'p@ss',
        database: 'prod',
        socketPath: undefined,
      });
      assert.equal(describeConnection(config), 'mysql://weave@db.internal:3307/prod');
    }
  });

  test('?socket= names the Unix socket, used instead of host and port', () => {
    const config = parseConnectionUrl(
      'mysql://weave@localhost/prod?socket=/run/mysqld/mysqld.sock',
    );
    assert.ok(config.kind === 'mysql');
    assert.equal(config.socketPath, '/run/mysqld/mysqld.sock');
    assert.deepEqual(mysqlConnectionOptions(config), {
      socketPath: '/run/mysqld/mysqld.sock',
      user: 'weave',
      password: '',
      database: 'prod',
    });
    assert.equal(
      describeConnection(config),
      'mysql://weave@localhost/prod?socket=/run/mysqld/mysqld.sock',
    );
  });

  test('a socket that is not an absolute path, or a URL without a database, is refused naming db', () => {
    for (const url of [
      'mysql://root@localhost/prod?socket=mysqld.sock',
      'mysql://root@localhost',
    ]) {
      assert.throws(() => parseConnectionUrl(url), {
        code: 'invalid_argument',
        details: { path: '$.db' },
      });
    }
  });

  // MariaDB only (SQLite has no socket): not registered elsewhere rather than skipped.
  const onMariaDb = DIALECTS.includes('mysql') ? test : () => undefined;
  void onMariaDb('a server opened over the MariaDB socket runs transactions', async () => {
    const db = await createTestDatabase('mysql');
    try {
      const socket = await withTx(db.database, async (tx) => {
        const row = await sql<{ s: string }>`SELECT @@socket AS s`.execute(tx.db);
        return String(row.rows[0]?.s);
      });
      const tcp = parseConnectionUrl(db.url);
      assert.ok(tcp.kind === 'mysql');
      const url = `mysql://${tcp.user}@localhost/${tcp.database}?socket=${socket}`;
      const overSocket = openDatabase(url);
      try {
        const seen = await withTx(overSocket, async (tx) => {
          const row = await sql<{ n: string; t: string }>`
            SELECT COUNT(*) AS n, @@SESSION.sql_mode AS t FROM application_quotas`.execute(tx.db);
          return { now: tx.now, mode: String(row.rows[0]?.t) };
        });
        assert.ok(seen.now > 0n);
        assert.match(seen.mode, /STRICT_TRANS_TABLES/);
        assert.equal(
          overSocket.description,
          `mysql://${tcp.user}@localhost/${tcp.database}?socket=${socket}`,
        );
      } finally {
        await overSocket.close();
      }
    } finally {
      await db.close();
    }
  });
});
