/**
 * The newcomer's commands, as the pages write them (issue 13 Deliver 5): the README quickstart
 * (`weave dev --with-examples`, the start-orders script, the CLI and curl), the README's
 * "Running on MariaDB" section (bootstrap, `weave server`, the example worker and script) on
 * MariaDB and, with a SQLite path for the URL, on SQLite, and every step of docs/quickstart.md.
 * The commands are read from the Markdown files (support/doc-commands.ts says what the test
 * changes: the port, the database URL, the background server). The printed results are checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createEmptyDatabase, forEachDialect } from '../support/databases.js';
import { freePort, runInCheckout, shellBlocks, toTestScript } from '../support/doc-commands.js';
import { checkOrderResults } from '../support/order-results.js';

const README_DB_URL = 'mysql://root@127.0.0.1:3306/weave';

test('the README quickstart runs as written: weave dev --with-examples, start-orders, the CLI and curl', async () => {
  const blocks = shellBlocks('README.md', 'Quickstart');
  assert.ok(blocks.length >= 3, 'the quickstart has its command blocks');
  const port = await freePort();
  const run = await runInCheckout(toTestScript(blocks, port), { port });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  checkOrderResults(run.stdout);
  // `weave instances list --workflow order-fulfilment`: the four instances, all SUCCEEDED.
  const listed = run.stdout.match(/"workflow":"order-fulfilment"/g) ?? [];
  assert.ok(listed.length >= 4, run.stdout);
  // curl …/queues/payments: the queue with its counts.
  assert.match(run.stdout, /"name":"payments"/);
});

forEachDialect((dialect) => {
  describe(`README "Running on MariaDB" on ${dialect}`, () => {
    test('bootstrap, weave server, the example worker and start-orders, as written', async () => {
      const database = await createEmptyDatabase(dialect);
      try {
        const blocks = shellBlocks('README.md', 'Running on MariaDB');
        assert.equal(blocks.length, 1);
        const port = await freePort();
        const script = toTestScript(blocks, port, [[README_DB_URL, database.url]]);
        assert.ok(script.includes(database.url), 'the page names the database URL the test swaps');
        const run = await runInCheckout(script, { port });
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        checkOrderResults(run.stdout);
      } finally {
        await database.drop();
      }
    });
  });
});

test('docs/quickstart.md runs as written, step by step', async () => {
  const blocks = shellBlocks('docs/quickstart.md');
  assert.equal(blocks.length, 5, 'five steps with commands');
  const port = await freePort();
  const run = await runInCheckout(toTestScript(blocks, port), { port });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /"name":"emails"/, 'the emails queue was created');
  assert.match(run.stdout, /"key":"wv_[0-9a-f]{16}_/, 'the worker key is shown once');
  assert.match(run.stdout, /task\.succeeded \{"sent":true,"to":"ada@example\.com"\}$/m);
  checkOrderResults(run.stdout);
});
