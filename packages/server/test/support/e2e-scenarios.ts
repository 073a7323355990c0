/**
 * The end-to-end scenarios of issue 11 (seed 000 §1–§2, §4; runtime.md §4): each starts
 * instances of e2e-workflows.ts on a test server whose worker runs task-behaviours.ts, waits for
 * them to end and checks the outcome through the API, the database and the Orbit stream. The
 * same scenario runs with the SDK `Worker` inside the test process (run-http.test.ts,
 * clock-http.test.ts) and with the worker in a process of its own (e2e-processes.test.ts, which
 * adds what only a separate process shows). Each returns the ids of the instances it ran.
 */
import assert from 'node:assert/strict';
import type { WeaveClient } from '@weave/sdk';
import type { DialectName } from '../../src/store/dialect.js';
import { orderOutput } from './e2e-workflows.js';
import type { TestServer } from './servers.js';
import { waitFor } from './wait-for.js';

/** A test server with the workflows published and a worker on `q1`, seen by a scenario. */
export interface E2eWorld {
  readonly t: TestServer;
  readonly client: WeaveClient;
  readonly dialect: DialectName;
  /** The ops the worker has run so far, one per handler call. */
  ran(): readonly string[];
  /** Calls of the `poll` behaviour with `key` so far. */
  pollCalls(key: string): number;
}

const ENDED = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'NEEDS_REVIEW'];

export function ended(client: WeaveClient, id: string, timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const { instance } = await client.instances.get(id);
      return ENDED.includes(instance.status) ? instance : undefined;
    },
    { timeoutMs, what: `instance ${id} ended` },
  );
}

function db(w: E2eWorld) {
  return w.t.server.database.kysely;
}

async function outcomeEvent(w: E2eWorld, instanceId: string) {
  const page = await w.client.results.readStream('app');
  return page.events.find((e) => e.instance_id === instanceId);
}

async function stepStatus(w: E2eWorld, instanceId: string, stepId: string) {
  const row = await db(w)
    .selectFrom('weave_steps')
    .select('status')
    .where('instance_id', '=', instanceId)
    .where('step_id', '=', stepId)
    .executeTakeFirstOrThrow();
  return row.status;
}

const pollRounds = (w: E2eWorld, instanceId: string) =>
  db(w)
    .selectFrom('weave_poll_rounds')
    .select(['number', 'state', 'task_id', 'classification', 'due_at', 'created_at'])
    .where('instance_id', '=', instanceId)
    .orderBy('number')
    .execute();

const pollActivation = (w: E2eWorld, instanceId: string) =>
  db(w)
    .selectFrom('weave_activations')
    .select(['poll_used_rounds', 'poll_deadline_at', 'status'])
    .where('instance_id', '=', instanceId)
    .where('step_id', '=', 'track')
    .executeTakeFirstOrThrow();

async function startPoll(w: E2eWorld, workflow: string, key: string, answers: string[]) {
  return (await w.client.instances.start(workflow, { input: { key, answers } })).instance;
}

/** The task of the `slow` step of an instance of `slow-timeout` / `slow-unsure`. */
export const slowTask = (w: E2eWorld, instanceId: string) =>
  db(w)
    .selectFrom('tasks')
    .select(['id', 'status', 'error_code', 'cancel_requested', 'deadline_at', 'updated_at'])
    .where(
      'owner_id',
      'in',
      db(w)
        .selectFrom('weave_activations')
        .select('id')
        .where('instance_id', '=', instanceId)
        .where('step_id', '=', 'slow'),
    )
    .where('owner_kind', '=', 'workflow_activation')
    .executeTakeFirstOrThrow();

// ---- run-http.test.ts: sequence, BRANCH, PARALLEL and its join, TIMER, exact numbers, failure

/** [E3.4] [E3.13] [A2.5] [A5.1]: 2^53 + 1 takes the BRANCH case; the join comes before close. */
export async function orderTakesTheCase(w: E2eWorld): Promise<string[]> {
  const amount = { kind: 'number', text: '9007199254740993' };
  const { instance } = await w.client.instances.start('order', { input: { amount } });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'SUCCEEDED');
  assert.deepEqual(done.output, orderOutput(amount));
  assert.ok(w.ran().includes('approve'), 'the BRANCH chose the case: 2^53 + 1 > 2^53 exactly');
  assert.ok(BigInt(done.revision) > 2n);
  // The named join: close is activated only after both branches and the PARALLEL completed.
  const history = (await w.client.instances.history(instance.id, { limit: 200 })).events;
  const seqOf = (type: string, stepId: string) => {
    const event = history.find((e) => e.type === type && e.step_id === stepId);
    assert.ok(event, `${type} ${stepId} in the history`);
    return BigInt(event.seq);
  };
  const closeActivated = seqOf('step.activated', 'close');
  for (const stepId of ['print', 'mail', 'ship']) {
    assert.ok(seqOf('step.completed', stepId) < closeActivated, `${stepId} completed before close`);
  }
  const event = await outcomeEvent(w, instance.id);
  assert.equal(event?.type, 'instance.succeeded');
  assert.equal(event?.workflow, 'order');
  assert.deepEqual(event?.result, orderOutput(amount));
  return [instance.id];
}

/** [E3.4]: exactly 2^53 does not take the case. */
export async function orderSkipsTheCase(w: E2eWorld): Promise<string[]> {
  const before = w.ran().filter((op) => op === 'approve').length;
  const amount = { kind: 'number', text: '9007199254740992' };
  const { instance } = await w.client.instances.start('order', { input: { amount } });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'SUCCEEDED');
  assert.deepEqual(done.output, orderOutput(amount));
  assert.equal(w.ran().filter((op) => op === 'approve').length, before);
  assert.equal(await stepStatus(w, instance.id, 'approve'), 'SKIPPED');
  return [instance.id];
}

/** [A2.5] [A5.1]: a 1 s TIMER fires on DB time within a second of falling due. */
export async function timerFires(w: E2eWorld): Promise<string[]> {
  const { instance } = await w.client.instances.start('napping', { input: {} });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'SUCCEEDED');
  const wait = await db(w)
    .selectFrom('weave_waits')
    .select(['state', 'due_at', 'closed_at'])
    .where('instance_id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(wait.state, 'FIRED');
  const lateness = BigInt(wait.closed_at ?? 0) - BigInt(wait.due_at);
  assert.ok(lateness >= 0n && lateness < 1_000_000n, `fired ${lateness} µs after it fell due`);
  const history = await w.client.instances.history(instance.id);
  assert.ok(history.events.some((e) => e.type === 'timer.fired' && e.step_id === 'nap'));
  const after = await db(w)
    .selectFrom('tasks')
    .innerJoin('weave_activations', 'weave_activations.task_id', 'tasks.id')
    .select('tasks.created_at')
    .where('weave_activations.instance_id', '=', instance.id)
    .where('weave_activations.step_id', '=', 'after')
    .executeTakeFirstOrThrow();
  assert.ok(BigInt(after.created_at) >= BigInt(wait.closed_at ?? 0), 'after runs once it fired');
  return [instance.id];
}

/** The raw text both exact numbers keep in every stored document of `exact`. */
export const EXACT_RAW = '"huge":1e400,"long":0.12345678901234567890123';
export const EXACT_HUGE = { kind: 'number', text: '1e400' };
export const EXACT_LONG = { kind: 'number', text: '0.12345678901234567890123' };

/** [E3.13]: 1e400 and a 23-digit decimal, from the Start input to the Orbit event. */
export async function exactNumbers(w: E2eWorld): Promise<string[]> {
  const [huge, long] = [EXACT_HUGE, EXACT_LONG];
  const { instance } = await w.client.instances.start('exact', { input: { huge, long } });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'SUCCEEDED');
  const first = { op: 'echo', huge, long };
  assert.deepEqual(done.output, { first, second: { op: 'echo', prev: first } });
  const tasks = await db(w)
    .selectFrom('tasks')
    .innerJoin('weave_activations', 'weave_activations.task_id', 'tasks.id')
    .select(['tasks.input', 'tasks.result', 'weave_activations.step_id'])
    .where('weave_activations.instance_id', '=', instance.id)
    .orderBy('tasks.id')
    .execute();
  assert.equal(tasks.length, 2);
  for (const task of tasks) {
    assert.ok(task.input.includes(EXACT_RAW), `${task.step_id} input ${task.input}`);
    assert.ok(String(task.result).includes(EXACT_RAW), `${task.step_id} result ${task.result}`);
  }
  const step = await db(w)
    .selectFrom('weave_steps')
    .select('output')
    .where('instance_id', '=', instance.id)
    .where('step_id', '=', 'echo')
    .executeTakeFirstOrThrow();
  assert.ok(String(step.output).includes(EXACT_RAW), 'the step output row');
  const row = await db(w)
    .selectFrom('weave_instances')
    .select(['input', 'output'])
    .where('id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.input, '{"huge":1e400,"long":0.12345678901234567890123}', 'the instance input');
  assert.ok(String(row.output).includes(EXACT_RAW), 'the instance output row');
  const event = await outcomeEvent(w, instance.id);
  assert.deepEqual(event?.result, { first, second: { op: 'echo', prev: first } });
  return [instance.id];
}

/** [E1.1]: a failed task fails the instance with the task error as its cause. */
export async function taskFailureFails(w: E2eWorld): Promise<string[]> {
  const { instance } = await w.client.instances.start('failing', { input: {} });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'FAILED');
  assert.equal(done.error?.code, 'card_declined');
  assert.equal(done.error?.step_id, 'boom');
  const inbox = await db(w)
    .selectFrom('weave_inbox')
    .select(['state', 'outcome'])
    .where('instance_id', '=', instance.id)
    .execute();
  assert.deepEqual(
    inbox.map((r) => [r.state, r.outcome]),
    [['PROCESSED', 'APPLIED']],
  );
  const event = await outcomeEvent(w, instance.id);
  assert.equal(event?.type, 'instance.failed');
  return [instance.id];
}

// ---- clock-http.test.ts: POLL rounds and deadlines, instance deadlines, failing scopes

/** [A2.6] [E3.14] [A5.1]: POLL pending → succeeded, one query task per round. */
export async function pollSucceeds(w: E2eWorld): Promise<string[]> {
  const instance = await startPoll(w, 'poll', `ok-${w.dialect}`, ['WAIT', 'WAIT', 'DONE']);
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'SUCCEEDED');
  const rows = await pollRounds(w, instance.id);
  assert.deepEqual(
    rows.map((r) => [Number(r.number), r.state, r.classification]),
    [
      [1, 'DONE', 'PENDING'],
      [2, 'DONE', 'PENDING'],
      [3, 'DONE', 'SUCCEEDED'],
    ],
  );
  assert.equal(new Set(rows.map((r) => String(r.task_id))).size, 3, 'one task per round');
  for (const later of rows.slice(1)) {
    assert.ok(BigInt(later.due_at) - BigInt(later.created_at) >= 200_000n, 'the interval');
  }
  assert.equal(Number((await pollActivation(w, instance.id)).poll_used_rounds), 3);
  const detail = await w.client.instances.step(instance.id, 'track');
  assert.equal(detail.status, 'SUCCEEDED');
  assert.deepEqual(detail.output, { status: 'DONE', round: 3 });
  const history = await w.client.instances.history(instance.id);
  assert.equal(history.events.filter((e) => e.type === 'poll.round_started').length, 2);
  const waits = await db(w)
    .selectFrom('weave_waits')
    .select(['purpose', 'state'])
    .where('instance_id', '=', instance.id)
    .execute();
  assert.deepEqual(
    waits.map((x) => [x.purpose, x.state]),
    [['POLL_DEADLINE', 'CANCELLED']],
    'the deadline wait closes with the POLL',
  );
  assert.equal(await stepStatus(w, instance.id, 'after'), 'SUCCEEDED', 'then the successor runs');
  return [instance.id];
}

/** [E3.14]: POLL classified failed → FAILED poll_failed; review → NEEDS_REVIEW. */
export async function pollFailsOrHolds(w: E2eWorld): Promise<string[]> {
  const lostStart = await startPoll(w, 'poll', `lost-${w.dialect}`, ['WAIT', 'LOST']);
  const lost = await ended(w.client, lostStart.id);
  assert.equal(lost.status, 'FAILED');
  assert.equal(lost.error?.code, 'poll_failed');
  assert.equal(lost.error?.step_id, 'track');
  const oddStart = await startPoll(w, 'poll', `odd-${w.dialect}`, ['ODD']);
  const odd = await ended(w.client, oddStart.id);
  assert.equal(odd.status, 'NEEDS_REVIEW');
  assert.equal(await stepStatus(w, odd.id, 'after'), 'PENDING', 'review stops the instance');
  return [lost.id, odd.id];
}

/** [E3.14]: out of rounds → poll_max_rounds after exactly max_rounds queries. */
export async function pollRunsOutOfRounds(w: E2eWorld): Promise<string[]> {
  const key = `few-${w.dialect}`;
  const done = await ended(w.client, (await startPoll(w, 'poll-few', key, ['WAIT'])).id);
  assert.equal(done.status, 'FAILED');
  assert.equal(done.error?.code, 'poll_max_rounds');
  assert.equal((await pollRounds(w, done.id)).length, 2);
  assert.equal(w.pollCalls(key), 2);
  return [done.id];
}

/** [E4.5]: a query attempt retried by Pulse is not a round. */
export async function pollRetryIsNoRound(w: E2eWorld): Promise<string[]> {
  const key = `flaky-${w.dialect}`;
  const instance = await startPoll(w, 'poll-few', key, ['THROW', 'WAIT', 'DONE']);
  const done = await ended(w.client, instance.id, 30_000);
  assert.equal(done.status, 'SUCCEEDED');
  const rows = await pollRounds(w, done.id);
  assert.equal(rows.length, 2, 'the retried attempt used no round');
  assert.equal(Number((await pollActivation(w, done.id)).poll_used_rounds), 2);
  const first = await db(w)
    .selectFrom('task_attempts')
    .select('id')
    .where('task_id', '=', rows[0]?.task_id ?? '0')
    .execute();
  assert.equal(first.length, 2, 'round 1 took two attempts of its one task');
  assert.equal(w.pollCalls(key), 3, 'three calls: two attempts of round 1, one of round 2');
  return [done.id];
}

/** [A4.5] [E4.4] [E4.5]: a query running at the POLL deadline is cancelled; poll_deadline. */
export async function pollDeadline(w: E2eWorld): Promise<string[]> {
  // The first query runs until cancelled: only the POLL deadline can end it.
  const instance = await startPoll(w, 'poll-short', `hang-${w.dialect}`, ['HANG']);
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'FAILED');
  assert.equal(done.error?.code, 'poll_deadline');
  const activation = await pollActivation(w, instance.id);
  const rows = await pollRounds(w, instance.id);
  const tasks = await db(w)
    .selectFrom('tasks')
    .select(['id', 'deadline_at', 'cancel_requested'])
    .where(
      'id',
      'in',
      rows.map((r) => r.task_id ?? '0'),
    )
    .execute();
  const own = await db(w)
    .selectFrom('weave_instances')
    .select('deadline_at')
    .where('id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(tasks.length, rows.length, 'every round has its query task');
  for (const task of tasks) {
    // A4.5 / E4.4: a query task never outlives the POLL deadline, nor the instance's.
    assert.ok(BigInt(task.deadline_at) <= BigInt(activation.poll_deadline_at ?? 0));
    assert.ok(BigInt(task.deadline_at) <= BigInt(own.deadline_at));
  }
  assert.ok(BigInt(activation.poll_deadline_at ?? 0) <= BigInt(own.deadline_at));
  assert.equal(rows.at(-1)?.state, 'CANCELLED', 'the running round is cancelled');
  const wait = await db(w)
    .selectFrom('weave_waits')
    .select(['state', 'due_at', 'closed_at'])
    .where('instance_id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(wait.state, 'EXPIRED');
  const late = BigInt(wait.closed_at ?? 0) - BigInt(wait.due_at);
  assert.ok(late >= 0n && late < 1_000_000n, `acted on ${late} µs after the deadline`);
  const history = await w.client.instances.history(instance.id);
  assert.ok(history.events.some((e) => e.type === 'poll.deadline' && e.step_id === 'track'));
  return [instance.id];
}

/** [A4.5] [A4.6]: the instance deadline with only a wait in flight: TIMED_OUT at once. */
export async function deadlineOverAWait(w: E2eWorld): Promise<string[]> {
  const { instance } = await w.client.instances.start('wait-timeout', { input: {} });
  assert.equal(instance.status, 'WAITING');
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'TIMED_OUT');
  const wait = await db(w)
    .selectFrom('weave_waits')
    .select(['state', 'purpose', 'signal_name', 'payload_version', 'due_at'])
    .where('instance_id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(wait.state, 'CANCELLED');
  // A4.6: a TIMER wait has no signal name or payload version.
  assert.deepEqual([wait.purpose, wait.signal_name, wait.payload_version], ['TIMER', null, null]);
  const row = await db(w)
    .selectFrom('weave_instances')
    .select('deadline_at')
    .where('id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.ok(BigInt(wait.due_at) > BigInt(row.deadline_at), 'the 1 h timer outlived the 1 s life');
  const steps = await db(w)
    .selectFrom('weave_steps')
    .select(['step_id', 'status'])
    .where('instance_id', '=', instance.id)
    .orderBy('position')
    .execute();
  assert.deepEqual(
    steps.map((s) => [s.step_id, s.status]),
    [
      ['$root', 'CANCELLED'],
      ['nap', 'CANCELLED'],
    ],
  );
  return [instance.id];
}

/** [E4.6]: a failing scope cancels its SIGNAL and TIMER waits, then fails with the task error. */
export async function failureBesideWaits(w: E2eWorld): Promise<string[]> {
  const { instance } = await w.client.instances.start('fail-beside-wait', { input: {} });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'FAILED');
  assert.equal(done.error?.code, 'card_declined');
  assert.equal(done.error?.step_id, 'boom');
  const waits = await db(w)
    .selectFrom('weave_waits')
    .select(['purpose', 'state'])
    .where('instance_id', '=', instance.id)
    .orderBy('id')
    .execute();
  assert.deepEqual(
    waits.map((x) => [x.purpose, x.state]),
    [
      ['SIGNAL', 'CANCELLED'],
      ['TIMER', 'CANCELLED'],
    ],
  );
  const steps = await w.client.instances.steps(instance.id);
  const status = new Map(steps.steps.map((s) => [s.id, s.status]));
  assert.equal(status.get('approval'), 'CANCELLED');
  assert.equal(status.get('snooze'), 'CANCELLED');
  assert.equal(status.get('nap'), 'PENDING');
  assert.equal(status.get('both'), 'FAILED');
  return [instance.id];
}

/**
 * [A1.8] [E4.6] (a server whose sweeper ends tasks at their deadline): the running task is told
 * to stop and ended by its deadline, then TIMED_OUT, and nothing new starts.
 */
export async function deadlineOverARunningTask(w: E2eWorld): Promise<string[]> {
  const key = `slow-${w.dialect}`;
  const { instance } = await w.client.instances.start('slow-timeout', { input: { key } });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'TIMED_OUT');
  assert.equal(done.error?.code, 'deadline_exceeded');
  assert.equal(done.error?.step_id, undefined, 'no step caused it');
  const row = await db(w)
    .selectFrom('weave_instances')
    .select(['ending', 'ending_at', 'finished_at', 'deadline_at'])
    .where('id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.ending, 'TIMED_OUT');
  assert.ok(BigInt(row.ending_at ?? 0) >= BigInt(row.deadline_at), 'DB time, not before');
  const task = await slowTask(w, instance.id);
  assert.ok(BigInt(task.deadline_at) <= BigInt(row.deadline_at), 'A1.8');
  assert.ok(['FAILED', 'CANCELLED'].includes(task.status), `the task ended ${task.status}`);
  assert.ok(BigInt(task.updated_at) <= BigInt(row.finished_at ?? 0), 'settled first');
  const steps = await w.client.instances.steps(instance.id);
  const never = steps.steps.find((s) => s.id === 'never');
  assert.equal(never?.status, 'PENDING', 'nothing new starts after the deadline');
  assert.ok(!w.ran().includes('never'), 'the worker never ran the next task');
  const types = (await w.client.instances.history(instance.id)).events.map((e) => e.type);
  assert.ok(types.includes('instance.deadline'));
  assert.equal(types.at(-1), 'instance.timed_out');
  const event = await outcomeEvent(w, instance.id);
  assert.equal(event?.type, 'instance.timed_out');
  return [instance.id];
}

/** [E4.6]: the deadline over a started non-idempotent task: NEEDS_REVIEW. */
export async function deadlineOverAnUnsureTask(w: E2eWorld): Promise<string[]> {
  const { instance } = await w.client.instances.start('slow-unsure', {
    input: { key: `unsure-${w.dialect}` },
  });
  const done = await ended(w.client, instance.id);
  assert.equal(done.status, 'NEEDS_REVIEW');
  assert.equal((await slowTask(w, instance.id)).status, 'NEEDS_REVIEW');
  const row = await db(w)
    .selectFrom('weave_instances')
    .select(['ending'])
    .where('id', '=', instance.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.ending, 'TIMED_OUT', 'it ends TIMED_OUT once an operator settles it');
  return [instance.id];
}
