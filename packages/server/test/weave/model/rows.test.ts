/**
 * The 0008 rows through both drivers and the `to*` mappers (weave/model/rows.ts): ids past 2^53,
 * exact payload text, exact correlation bytes, the MEDIUMTEXT history details, and corrupt states
 * refused rather than guessed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MigratedDatabase } from '../../support/databases.js';
import { createTestDatabase, forEachDialect } from '../../support/databases.js';
import { withTx } from '../../../src/store/with-tx.js';
import type { WeaveRow } from '../../../src/weave/model/rows.js';
import {
  toActivation,
  toGate,
  toHistoryEvent,
  toInboxEvent,
  toInstance,
  toPendingAdvance,
  toPollRound,
  toStepRow,
  toWait,
} from '../../../src/weave/model/rows.js';
import { toSnapshot } from '../../../src/weave/model/snapshot-rows.js';
import { json } from '../../support/weave-rounds.js';

const NS = '7';
const BIG = '9007199254740993'; // 2^53 + 1: not a double
const AT = '1764581234567891';
const EXACT = '{"n":12345678901234567890,"x":1e400}';
/** 764 bytes (A4.4: room for older data), NUL and 0xFF included. */
const CORRELATION = Uint8Array.from({ length: 764 }, (_, i) => (i * 37) % 256);
/** Over MariaDB's 64 KiB TEXT: an `instance.succeeded` event carries the output (≤ 256 KiB). */
const DETAILS = `{"output":"${'x'.repeat(200 * 1024)}"}`;

async function insertAll(db: MigratedDatabase): Promise<void> {
  await withTx(db.database, async (tx) => {
    const base = { namespace_id: NS, instance_id: BIG };
    await tx.db
      .insertInto('weave_instances')
      .values({
        id: BIG,
        namespace_id: NS,
        definition_id: '3',
        version_id: '4',
        version: 2,
        digest: 'a'.repeat(64),
        application_id: '5',
        result_stream_id: null,
        status: 'WAITING',
        revision: '2',
        business_key: 'order-1 ',
        input: EXACT,
        deadline_at: AT,
        created_by: '9',
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    await tx.db
      .insertInto('weave_instance_bounds')
      .values({ namespace_id: NS, active_bound: 1, updated_at: AT })
      .execute();
    await tx.db
      .insertInto('weave_gates')
      .values({ ...base, state: 'OPEN', created_at: AT, updated_at: AT })
      .execute();
    await tx.db
      .insertInto('weave_steps')
      .values([
        {
          ...base,
          id: '11',
          step_id: '$root',
          kind: 'ROOT',
          position: 0,
          status: 'ACTIVE',
          updated_at: AT,
        },
        {
          ...base,
          id: '12',
          step_id: 'a',
          kind: 'TASK',
          position: 1,
          status: 'SUCCEEDED',
          updated_at: AT,
        },
        {
          ...base,
          id: '13',
          step_id: 't',
          kind: 'TIMER',
          position: 2,
          status: 'WAITING',
          updated_at: AT,
        },
      ])
      .execute();
    await tx.db
      .updateTable('weave_steps')
      .set({ output: EXACT, revision: 3 })
      .where('namespace_id', '=', NS)
      .where('id', '=', '12')
      .execute();
    await tx.db
      .insertInto('weave_activations')
      .values([
        {
          ...base,
          id: '21',
          step_row_id: '13',
          step_id: 't',
          number: 1,
          kind: 'TIMER',
          status: 'WAITING',
          created_at: AT,
        },
        {
          ...base,
          id: '22',
          step_row_id: '12',
          step_id: 'a',
          number: 1,
          kind: 'POLL',
          status: 'ACTIVE',
          created_at: AT,
          poll_interval_us: '300000000',
          poll_max_rounds: 10000,
          poll_used_rounds: 1,
          poll_deadline_at: AT,
          current_round_id: '41',
        },
      ])
      .execute();
    await tx.db
      .insertInto('weave_waits')
      .values({
        ...base,
        activation_id: '21',
        step_row_id: '13',
        purpose: 'SIGNAL',
        signal_name: 'go',
        payload_version: 2,
        correlation_key: CORRELATION,
        due_at: AT,
        state: 'WAITING',
        created_at: AT,
      })
      .execute();
    await tx.db
      .insertInto('weave_poll_rounds')
      .values({
        ...base,
        id: '41',
        activation_id: '22',
        number: 1,
        state: 'RUNNING',
        due_at: AT,
        task_id: BIG,
        created_at: AT,
      })
      .execute();
    await tx.db
      .insertInto('weave_inbox')
      .values({
        ...base,
        event_id: `task.${BIG}.5`,
        type: 'task.someday',
        source_task_id: BIG,
        source_activation_id: '22',
        source_revision: '5',
        snapshot: `{"schema_version":1,"result":${EXACT}}`,
        state: 'PENDING',
        available_at: AT,
        lease_owner: 'node-1',
        lease_until: AT,
        created_at: AT,
      })
      .execute();
    await tx.db
      .insertInto('weave_pending_advances')
      .values({
        ...base,
        root_step_row_id: '11',
        root_step_revision: '3',
        checkpoint: '{"schema_version":1}',
        state: 'PENDING',
        available_at: AT,
        created_at: AT,
      })
      .execute();
    await tx.db
      .insertInto('weave_history')
      .values({
        ...base,
        seq: 1,
        instance_revision: 2,
        type: 'instance.succeeded',
        at: AT,
        details: DETAILS,
      })
      .execute();
  });
}

forEachDialect((dialect) => {
  describe(`weave runtime rows on ${dialect}`, () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await createTestDatabase(dialect);
      await insertAll(db);
    });
    after(() => db.close());

    test('an instance maps with exact ids, instants, text and flags', async () => {
      const [row] = await db.database.kysely.selectFrom('weave_instances').selectAll().execute();
      assert.ok(row !== undefined);
      const instance = toInstance(row);
      assert.equal(instance.id, BIG);
      assert.equal(instance.namespaceId, NS);
      assert.equal(instance.status, 'WAITING');
      assert.equal(instance.revision, 2n);
      assert.equal(instance.historySeq, 0n);
      assert.equal(instance.paused, false);
      assert.equal(instance.controlVersion, 0n);
      assert.equal(instance.ending, null);
      assert.equal(instance.businessKey, 'order-1 ');
      assert.equal(instance.input, EXACT);
      assert.equal(instance.deadlineAt, BigInt(AT));
      assert.equal(instance.resultStreamId, null);
      assert.equal(instance.finishedAt, null);
      const [bound] = await db.database.kysely
        .selectFrom('weave_instance_bounds')
        .selectAll()
        .execute();
      assert.equal(String(bound?.active_bound), '1');
      const [gate] = await db.database.kysely.selectFrom('weave_gates').selectAll().execute();
      assert.ok(gate !== undefined);
      assert.deepEqual(
        { ...toGate(gate), id: '' },
        {
          id: '',
          instanceId: BIG,
          state: 'OPEN',
          controlVersion: 0n,
          reason: null,
          updatedAt: BigInt(AT),
        },
      );
    });

    test('[A3.1] step rows, $root included, map to the snapshot with defaults and exact output', async () => {
      const rows = (
        await db.database.kysely.selectFrom('weave_steps').selectAll().orderBy('position').execute()
      ).map(toStepRow);
      assert.deepEqual(
        rows.map((r) => [r.id, r.stepId, r.kind, r.revision, r.cancelRequested, r.activationCount]),
        [
          ['11', '$root', 'ROOT', 1n, false, 0],
          ['12', 'a', 'TASK', 3n, false, 0],
          ['13', 't', 'TIMER', 1n, false, 0],
        ],
      );
      const snapshot = toSnapshot({ input: json(EXACT), allowNew: true, rows });
      assert.deepEqual(snapshot.steps.get('a'), {
        kind: 'TASK',
        status: 'SUCCEEDED',
        output: json(EXACT),
      });
      assert.deepEqual(snapshot.steps.get('$root'), { kind: 'ROOT', status: 'ACTIVE' });
    });

    test('[A2.6] activations map, a POLL with its poll state', async () => {
      const rows = await db.database.kysely
        .selectFrom('weave_activations')
        .selectAll()
        .orderBy('id')
        .execute();
      const [timer, poll] = rows.map(toActivation);
      assert.equal(timer?.poll, null);
      assert.equal(timer?.lastTaskRevision, 0n);
      assert.deepEqual(poll?.poll, {
        intervalUs: 300000000n,
        maxRounds: 10000,
        usedRounds: 1,
        deadlineAt: BigInt(AT),
        taskTimeoutUs: null,
        currentRoundId: '41',
      });
    });

    test('[A4.4] a wait keeps its 764 correlation bytes exactly', async () => {
      const [row] = await db.database.kysely.selectFrom('weave_waits').selectAll().execute();
      assert.ok(row !== undefined);
      const wait = toWait(row);
      assert.deepEqual(wait.correlationKey, CORRELATION);
      assert.equal(wait.signalName, 'go');
      assert.equal(wait.payloadVersion, 2);
      assert.equal(wait.purpose, 'SIGNAL');
      assert.equal(wait.closedAt, null);
    });

    test('[E2.1] a poll round and an inbox event map; the frozen snapshot stays text', async () => {
      const [round] = await db.database.kysely
        .selectFrom('weave_poll_rounds')
        .selectAll()
        .execute();
      assert.ok(round !== undefined);
      assert.equal(toPollRound(round).taskId, BIG);
      const [row] = await db.database.kysely.selectFrom('weave_inbox').selectAll().execute();
      assert.ok(row !== undefined);
      const event = toInboxEvent(row);
      assert.equal(event.snapshot, `{"schema_version":1,"result":${EXACT}}`);
      assert.equal(event.sourceRevision, 5n);
      assert.equal(event.generation, 1n);
      assert.equal(event.failures, 0);
      assert.equal(event.type, 'task.someday');
      assert.equal(event.knownType, null, 'an unknown type is the consumer’s to quarantine');
    });

    test('a pending advance and a history event over 64 KiB map', async () => {
      const [pending] = await db.database.kysely
        .selectFrom('weave_pending_advances')
        .selectAll()
        .execute();
      assert.ok(pending !== undefined);
      assert.equal(toPendingAdvance(pending).rootStepRevision, 3n);
      const [event] = await db.database.kysely.selectFrom('weave_history').selectAll().execute();
      assert.ok(event !== undefined);
      const history = toHistoryEvent(event);
      assert.equal(history.details, DETAILS);
      assert.equal(history.seq, 1n);
    });
  });
});

const instanceRow = (status: string): WeaveRow<'weave_instances'> => ({
  id: 1n,
  namespace_id: 1n,
  definition_id: 1n,
  version_id: 1n,
  version: 1n,
  digest: '',
  application_id: 1n,
  result_stream_id: null,
  status,
  revision: 2n,
  history_seq: 0n,
  paused: 0n,
  control_version: 0n,
  ending: null,
  ending_at: null,
  business_key: null,
  input: '{}',
  output: null,
  error_code: null,
  error_message: null,
  error_step_id: null,
  deadline_at: 1n,
  created_by: null,
  created_at: 1n,
  updated_at: 1n,
  finished_at: null,
});

test('a stored state outside its set is refused, never guessed', () => {
  assert.equal(toInstance(instanceRow('NEEDS_REVIEW')).status, 'NEEDS_REVIEW');
  assert.throws(() => toInstance(instanceRow('running')), /weave_instances.status 'running'/);
});
