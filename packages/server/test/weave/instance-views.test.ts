/**
 * The instance read views over HTTP (issue 11 Deliver 3; runtime.md §6), on SQLite and MariaDB:
 * Steps (metadata and the revision of one read, `$root` hidden: A3.3), step detail (activation,
 * exact input, task and attempts, poll rounds; a broken link is a 500: A3.4), history paged by
 * `after`/`limit`, and the rights of every read (A3.6).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { refusal } from '../support/refusal.js';

const task = (id: string, input: unknown = {}) => ({
  id,
  kind: 'TASK',
  queue: 'q1',
  input,
  timeout: 'PT1M',
});

/** Every kind of step at once: the first round leaves each in a different state. */
const TOUR = {
  schema_version: 1,
  name: 'tour',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' } },
  },
  steps: [
    {
      id: 'fan',
      kind: 'PARALLEL',
      branches: {
        pay: [task('charge', { amount: '$.input.amount' })],
        pick: [
          {
            id: 'choose',
            kind: 'BRANCH',
            cases: [{ when: { eq: [1, 2] }, steps: [task('never')] }],
            default: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
          },
        ],
        watch: [
          {
            id: 'track',
            kind: 'POLL',
            queue: 'q1',
            input: { label: 'L1' },
            interval: 'PT5M',
            max_rounds: 3,
            timeout: 'PT1H',
            classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'] },
          },
        ],
      },
    },
    task('after'),
  ],
};

const SIMPLE = {
  schema_version: 1,
  name: 'simple',
  steps: [task('only')],
};

const BIG = { kind: 'number', text: '12345678901234567890' };

forEachDialect((dialect) => {
  describe(`instance views on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let id: string;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      await client.workflows.publish(TOUR);
      await client.workflows.publish(SIMPLE);
      ({
        instance: { id },
      } = await client.instances.start('tour', { input: { amount: BIG } }));
    });
    after(() => t.close());

    test('[A3.3] [A3.1] an instance of 128 steps, the most a definition has: Steps lists all 128 in document order, without $root, at the revision Get shows', async () => {
      // A sequence: the first TIMER waits, nothing moves, so Get and Steps read one revision.
      const naps = Array.from({ length: 128 }, (_, i) => ({
        id: `nap_${String(i).padStart(3, '0')}`,
        kind: 'TIMER',
        duration: 'PT1H',
      }));
      await client.workflows.publish({ schema_version: 1, name: 'longest', steps: naps });
      const { instance } = await client.instances.start('longest', { input: {} });
      const seen = await client.instances.steps(instance.id);
      const { instance: now } = await client.instances.get(instance.id);
      assert.equal(seen.revision, now.revision);
      assert.equal(seen.steps.length, 128);
      assert.deepEqual(
        seen.steps.map((s) => s.id),
        naps.map((n) => n.id),
      );
      assert.deepEqual([seen.steps[0]?.status, seen.steps[127]?.status], ['WAITING', 'PENDING']);
      assert.ok(!seen.steps.some((s) => s.id === '$root'));
    });

    test('[A3.3] Steps hides $root and lists every static step in document order with its status, activation and task, at revision "2"', async () => {
      const { revision, steps } = await client.instances.steps(id);
      assert.equal(revision, '2');
      assert.deepEqual(
        steps.map((s) => [s.id, s.kind, s.status]),
        [
          ['fan', 'PARALLEL', 'ACTIVE'],
          ['charge', 'TASK', 'ACTIVE'],
          ['choose', 'BRANCH', 'ACTIVE'],
          ['never', 'TASK', 'SKIPPED'],
          ['nap', 'TIMER', 'WAITING'],
          ['track', 'POLL', 'ACTIVE'],
          ['after', 'TASK', 'PENDING'],
        ],
      );
      assert.ok(!steps.some((s) => s.id === '$root'));
      const byId = new Map(steps.map((s) => [s.id, s]));
      const db = t.server.database.kysely;
      const charge = await db
        .selectFrom('weave_activations')
        .select(['id', 'task_id'])
        .where('instance_id', '=', id)
        .where('step_id', '=', 'charge')
        .executeTakeFirstOrThrow();
      assert.equal(byId.get('charge')?.activation_id, String(charge.id));
      assert.equal(byId.get('charge')?.task_id, String(charge.task_id));
      const round = await db
        .selectFrom('weave_poll_rounds')
        .select(['task_id'])
        .where('instance_id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(byId.get('track')?.task_id, String(round.task_id), "the POLL's round task");
      assert.ok(byId.get('nap')?.activation_id);
      assert.equal(byId.get('nap')?.task_id, undefined);
      assert.equal(byId.get('never')?.activation_id, undefined);
      assert.equal(byId.get('after')?.activation_id, undefined);
      for (const s of steps) {
        assert.deepEqual(
          Object.keys(s).filter(
            (k) => !['id', 'kind', 'status', 'activation_id', 'task_id'].includes(k),
          ),
          [],
          'no inputs or outputs',
        );
      }
    });

    test('step detail of a TASK: its activation, the exact input, its task and, after a claim, its attempt', async () => {
      const { steps } = await client.instances.steps(id);
      const taskId = steps.find((s) => s.id === 'charge')?.task_id;
      assert.ok(taskId);
      const before = await client.instances.step(id, 'charge');
      assert.equal(before.kind, 'TASK');
      assert.equal(before.status, 'ACTIVE');
      assert.equal(before.activations.length, 1);
      assert.deepEqual(before.activations[0]?.input, { amount: BIG });
      assert.equal(before.activations[0]?.task?.id, taskId);
      assert.equal(before.activations[0]?.task?.status, 'PENDING');
      assert.deepEqual(before.activations[0]?.task?.attempts, []);

      const { tasks } = await client.claimTasks('q1', { worker_id: 'w-views', max_tasks: 10 });
      const claimed = tasks.find((c) => c.task_id === taskId);
      assert.ok(claimed, 'the TASK was claimed');
      const detail = await client.instances.step(id, 'charge');
      const [activation] = detail.activations;
      assert.equal(activation?.number, 1);
      assert.equal(activation?.status, 'ACTIVE');
      assert.equal(activation?.task?.status, 'CLAIMED');
      assert.deepEqual(
        activation?.task?.attempts.map((a) => [a.id, a.number, a.status, a.worker_id]),
        [[claimed.attempt_id, 1, 'CLAIMED', 'w-views']],
      );
      // The attempt's lease, as the claim answered it (the console's step detail shows it).
      const attempt = activation?.task?.attempts[0];
      assert.ok(attempt !== undefined && attempt.lease_until > attempt.claimed_at);
      assert.equal(attempt.lease_until, claimed.lease_expires_at);
      assert.deepEqual(activation?.waits, []);
      assert.equal(activation?.poll, undefined);
    });

    test('step detail of a POLL: round 1 with its task, used_rounds 1, and its deadline wait', async () => {
      const detail = await client.instances.step(id, 'track');
      assert.equal(detail.kind, 'POLL');
      const [activation] = detail.activations;
      assert.ok(activation?.poll);
      assert.equal(activation.poll.max_rounds, 3);
      assert.equal(activation.poll.used_rounds, 1);
      assert.deepEqual(activation.input, { label: 'L1' });
      assert.equal(activation.task, undefined, 'a POLL has no activation task (A2.7)');
      const { steps } = await client.instances.steps(id);
      assert.deepEqual(
        activation.poll.rounds.map((r) => [r.number, r.state, r.task_id]),
        [[1, 'RUNNING', steps.find((s) => s.id === 'track')?.task_id]],
      );
      assert.deepEqual(
        activation.waits.map((w) => [w.purpose, w.state, w.due_at]),
        [['POLL_DEADLINE', 'WAITING', activation.poll.deadline_at]],
      );
    });

    test('step detail of a BRANCH shows its case; a skipped step has no activation; a TIMER its wait', async () => {
      const choose = await client.instances.step(id, 'choose');
      assert.equal(choose.case_index, 1);
      const never = await client.instances.step(id, 'never');
      assert.equal(never.status, 'SKIPPED');
      assert.deepEqual(never.activations, []);
      const nap = await client.instances.step(id, 'nap');
      assert.deepEqual(
        nap.activations[0]?.waits.map((w) => [w.purpose, w.state, w.signal_name]),
        [['TIMER', 'WAITING', undefined]],
      );
    });

    test('[A3.3] $root and unknown steps are not addressable: 404', async () => {
      assert.equal((await refusal(client.instances.step(id, '$root'))).status, 404);
      assert.equal((await refusal(client.instances.step(id, 'nope'))).status, 404);
    });

    test('[A2.9] history: instance.admitted at revision 1, then the round at revision 2, paged by after/limit', async () => {
      const all = await client.instances.history(id);
      assert.equal(all.events[0]?.type, 'instance.admitted');
      assert.equal(all.events[0]?.revision, '1');
      assert.deepEqual(
        all.events.map((e) => e.seq),
        all.events.map((_, i) => String(i + 1)),
      );
      const rest = all.events.slice(1);
      assert.ok(rest.length >= 5);
      assert.ok(rest.every((e) => e.revision === '2'));
      const charge = rest.find((e) => e.type === 'step.activated' && e.step_id === 'charge');
      const { steps } = await client.instances.steps(id);
      assert.equal(charge?.task_id, steps.find((s) => s.id === 'charge')?.task_id);
      assert.ok(rest.some((e) => e.type === 'step.skipped' && e.step_id === 'never'));
      const chose = rest.find((e) => e.type === 'step.activated' && e.step_id === 'choose');
      assert.deepEqual(chose?.details, { case_index: 1 });
      assert.ok(rest.some((e) => e.type === 'step.activated' && e.round_id !== undefined));
      assert.equal(all.next_after, String(all.events.length));

      const first = await client.instances.history(id, { limit: 2 });
      assert.deepEqual(
        first.events.map((e) => e.seq),
        ['1', '2'],
      );
      assert.equal(first.next_after, '2');
      const second = await client.instances.history(id, { after: first.next_after, limit: 1000 });
      assert.deepEqual(second.events, all.events.slice(2));
      const end = await client.instances.history(id, { after: all.next_after });
      assert.deepEqual(end, { events: [], next_after: all.next_after });
      const bad = await refusal(client.instances.history(id, { limit: 1001 }));
      assert.equal(bad.status, 400);
    });

    test('[A3.6] every read needs workflows:read and every queue of the pinned version; another namespace sees 404', async () => {
      // A key limited to another queue (a bootstrap key may use every queue).
      await client.createQueue({ name: 'q2', application: 'app' });
      const { key } = await client.createCredential({
        name: 'q2-reader',
        scopes: ['workflows:read'],
        queues: ['q2'],
      });
      assert.ok(key);
      const noQueue = t.clientFor('ns', key);
      const reads = (c: WeaveClient) => [
        () => c.instances.steps(id),
        () => c.instances.step(id, 'charge'),
        () => c.instances.history(id),
      ];
      for (const read of reads(noQueue)) {
        assert.equal((await refusal(read())).status, 403);
      }
      const publisher = t.clientFor('ns', await t.keyWith('ns', ['workflows:publish']));
      for (const read of reads(publisher)) {
        assert.equal((await refusal(read())).status, 403, 'publishing rights are not read rights');
      }
      const reader = t.clientFor(
        'ns',
        (
          await client.createCredential({
            name: 'q1-reader',
            scopes: ['workflows:read'],
            queues: ['q1'],
          })
        ).key ?? '',
      );
      assert.equal((await reader.instances.steps(id)).revision, '2');
      const other = t.clientFor(
        'other',
        await t.keyWith('other', ['admin'], { application: 'app', queues: ['q1'] }),
      );
      for (const read of reads(other)) {
        assert.equal((await refusal(read())).status, 404);
      }
    });

    test('[A3.4] a broken link (a missing task row, a foreign current activation) is a 500 internal, never a partial answer', async () => {
      const { instance } = await client.instances.start('simple', { input: {} });
      const { steps } = await client.instances.steps(instance.id);
      const taskId = steps.find((s) => s.id === 'only')?.task_id;
      assert.ok(taskId);
      const db = t.server.database.kysely;
      await db.deleteFrom('tasks').where('id', '=', taskId).execute();
      const broken = await refusal(client.instances.step(instance.id, 'only'));
      assert.equal(broken.status, 500);
      assert.equal(broken.code, 'internal');
      // A current activation that is another step's: Steps refuses too.
      const foreign = await db
        .selectFrom('weave_activations')
        .select('id')
        .where('instance_id', '=', id)
        .where('step_id', '=', 'charge')
        .executeTakeFirstOrThrow();
      await db
        .updateTable('weave_steps')
        .set({ current_activation_id: foreign.id })
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'only')
        .execute();
      const wrong = await refusal(client.instances.steps(instance.id));
      assert.equal(wrong.status, 500);
      assert.equal(wrong.code, 'internal');
      assert.equal((await refusal(client.instances.step(instance.id, 'only'))).status, 500);
    });

    test('[A3.4] a lost pinned version (its digest changed, or its row in another namespace) makes every read a 500, never a view', async () => {
      const { instance } = await client.instances.start('simple', { input: {} });
      const db = t.server.database.kysely;
      const pinned = await db
        .selectFrom('weave_instances as i')
        .innerJoin('weave_definition_versions as v', 'v.id', 'i.version_id')
        .select(['v.id', 'v.digest', 'v.namespace_id'])
        .where('i.id', '=', instance.id)
        .executeTakeFirstOrThrow();
      const reads = [
        () => client.instances.get(instance.id),
        () => client.instances.steps(instance.id),
        () => client.instances.step(instance.id, 'only'),
        () => client.instances.history(instance.id),
      ];
      const breaks = [
        { digest: 'f'.repeat(64) },
        { namespace_id: String(BigInt(pinned.namespace_id) + 1000n) },
      ];
      for (const change of breaks) {
        await db
          .updateTable('weave_definition_versions')
          .set(change)
          .where('id', '=', pinned.id)
          .execute();
        for (const read of reads) {
          const broken = await refusal(read());
          assert.equal(broken.status, 500, JSON.stringify(change));
          assert.equal(broken.code, 'internal');
        }
        await db
          .updateTable('weave_definition_versions')
          .set({ digest: pinned.digest, namespace_id: pinned.namespace_id })
          .where('id', '=', pinned.id)
          .execute();
        for (const read of reads) {
          await read();
        }
      }
    });
  });
});
