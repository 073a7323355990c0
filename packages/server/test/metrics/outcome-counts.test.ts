/**
 * `weave_task_outcomes_total` when one report carries many outcomes (a grouped transaction's
 * ~24): counted per queue and outcome, each fact once, facts of an unknown queue left waiting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { forEachDialect } from '../support/databases.js';
import { parseExposition, valueOf } from '../support/exposition.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

forEachDialect((dialect) => {
  describe(`outcome counts in one report (${dialect})`, () => {
    let f: PulseFixture;
    let queueId: string;
    before(async () => {
      f = await createPulseFixture(dialect);
      queueId = (await f.submit()).queueId;
    });
    after(() => f.close());

    test('one report of many outcomes counts each fact once, by outcome', async () => {
      const metrics = new ServerMetrics({ cacheMs: 0 });
      metrics.readFrom(f.db.database);
      const fact = (type: string, queue = queueId) => ({
        namespaceId: f.namespaceId,
        queueId: queue,
        type,
      });
      metrics.taskEvents([
        ...Array.from({ length: 5 }, () => fact('task.succeeded')),
        fact('task.failed'),
        fact('task.claimed'), // not an outcome
        fact('task.succeeded', '999999'), // a queue this database does not have
        fact('task.failed'),
      ]);
      metrics.taskEvents([fact('task.succeeded')]);
      const families = parseExposition(await metrics.render());
      const count = (outcome: string) =>
        valueOf(families, 'weave_task_outcomes_total', {
          namespace: 'ns',
          queue: f.queue,
          outcome,
        });
      assert.equal(count('succeeded'), 6);
      assert.equal(count('failed'), 2);
      assert.equal(count('claimed'), undefined);
    });
  });
});
