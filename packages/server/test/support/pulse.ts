/**
 * Pulse test fixture: a migrated database with a namespace, an application (quota) and a queue,
 * plus helpers that run services in their own transaction and move instants into the past on
 * the database (no sleeps: STYLE.md §10).
 */
import { sql } from 'kysely';
import { createApplication } from '../../src/orbit/create-application.js';
import { ensureNamespace } from '../../src/auth/namespaces.js';
import { claimTasks } from '../../src/pulse/claim-tasks.js';
import type { ClaimedTask, ClaimRequest } from '../../src/pulse/claim-tasks.js';
import type { CompleteRequest, Completion } from '../../src/pulse/complete-attempt.js';
import { createQueue, getQueue } from '../../src/pulse/queues.js';
import type { OwnedTask } from '../../src/pulse/submit-owned.js';
import { DEFAULT_RETRY_POLICY } from '../../src/pulse/retry-policy.js';
import type { SubmitInput } from '../../src/pulse/submit-task.js';
import { submitTask } from '../../src/pulse/submit-task.js';
import type { Task } from '../../src/pulse/task-record.js';
import { lockTask } from '../../src/pulse/task-record.js';
import type { DialectName } from '../../src/store/dialect.js';
import type { Tx } from '../../src/store/with-tx.js';
import { withTx } from '../../src/store/with-tx.js';
import { createTestDatabase } from './databases.js';
import type { MigratedDatabase } from './databases.js';

export interface PulseFixture {
  readonly db: MigratedDatabase;
  readonly namespaceId: string;
  readonly queue: string;
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  submit(extra?: Partial<SubmitInput>): Promise<Task>;
  claim(maxTasks?: number, queue?: string): Promise<ClaimedTask[]>;
  task(id: string): Promise<Task>;
  /** A claim of the fixture's queue by worker `w`. */
  claimRequest(maxTasks: number): ClaimRequest;
  /** The completion of a claimed task with its own permit, as the sweeper-free tests send it. */
  completion(claimed: ClaimedTask, completion: Completion): CompleteRequest;
  /** Moves a task's lease (task and current attempt) `seconds` into the past. */
  expireLease(taskId: string, seconds?: number): Promise<void>;
  /** Sets a task's deadline (and its live attempt's hard end) to DB now + `seconds`. */
  setDeadline(taskId: string, seconds: number): Promise<void>;
  count(
    table: 'tasks' | 'task_attempts' | 'task_events' | 'audit_log' | 'receipts',
  ): Promise<number>;
  close(): Promise<void>;
}

let queueSeq = 0;

export async function createPulseFixture(
  dialect: DialectName,
  limits: { maxActiveTasks?: number; capacity?: number } = {},
): Promise<PulseFixture> {
  const db = await createTestDatabase(dialect);
  const run = <T>(fn: (tx: Tx) => Promise<T>) => withTx(db.database, fn);
  const queue = `q${++queueSeq}`;
  const namespaceId = await run((tx) => createQueueOfApp(tx, queue, limits));
  const seconds = (n: number) => BigInt(n) * 1_000_000n;
  return {
    db,
    namespaceId,
    queue,
    tx: run,
    submit: (extra = {}) =>
      run((tx) => submitDefault(tx, { namespaceId, queueName: queue, ...extra })),
    claim: (maxTasks = 1, name = queue) =>
      run(async (tx) => [
        ...(await claimTasks(tx, { namespaceId, queueName: name, workerId: 'w1', maxTasks }))
          .claimed,
      ]),
    task: (id) => run((tx) => lockTask(tx, namespaceId, id)),
    claimRequest: (maxTasks) => ({ namespaceId, queueName: queue, workerId: 'w', maxTasks }),
    completion: (c, completion) => ({
      namespaceId,
      taskId: c.task.id,
      attemptId: c.attemptId,
      permit: c.permit,
      completion,
      credentialId: null,
    }),
    expireLease: (taskId, n = 1) =>
      run((tx) => moveInstant(tx, taskId, 'lease_until', tx.now - seconds(n))),
    setDeadline: (taskId, n) =>
      run((tx) => moveInstant(tx, taskId, 'deadline_at', tx.now + seconds(n))),
    count: (table) => countRows(db, table),
    close: () => db.close(),
  };
}

async function createQueueOfApp(
  tx: Tx,
  queue: string,
  limits: { maxActiveTasks?: number; capacity?: number },
): Promise<string> {
  const ns = await ensureNamespace(tx, 'ns');
  await createApplication(tx, ns.id, {
    name: 'app',
    maxActiveTasks: limits.maxActiveTasks ?? 1000,
  });
  await createQueue(tx, ns.id, {
    name: queue,
    application: 'app',
    capacity: limits.capacity ?? 1000,
  });
  return ns.id;
}

export async function submitDefault(
  tx: Tx,
  input: Partial<SubmitInput> & { namespaceId: string; queueName: string },
): Promise<Task> {
  const defaults = {
    input: '{"n":1}',
    idempotent: false,
    priority: 0,
    retry: DEFAULT_RETRY_POLICY,
  };
  return (await submitTask(tx, { ...defaults, ...input })).task;
}

let ownerSeq = 0;

/**
 * `n` tasks of a workflow round for the fixture's queue (`submitOwnedTasks`), each owned by an
 * activation of its own; `input(i)` gives the i-th input.
 */
export function ownedTaskSpecs(
  f: PulseFixture,
  n: number,
  input: (i: number) => string = (i) => `{"i":${i}}`,
): Promise<OwnedTask[]> {
  return f.tx(async (tx) => {
    const queue = await getQueue(tx, f.namespaceId, f.queue);
    const { application_id } = await tx.db
      .selectFrom('queues')
      .select('application_id')
      .where('namespace_id', '=', f.namespaceId)
      .where('id', '=', queue.id)
      .executeTakeFirstOrThrow();
    return Array.from({ length: n }, (_, i): OwnedTask => ({
      namespaceId: f.namespaceId,
      applicationId: String(application_id),
      queueId: queue.id,
      queueName: queue.name,
      capacity: queue.capacity,
      input: input(i),
      idempotent: true,
      priority: 0,
      deadlineAt: tx.now + 60_000_000n,
      retry: DEFAULT_RETRY_POLICY,
      resultStreamId: null,
      owner: { kind: 'workflow_activation', id: String(1000 + ++ownerSeq) },
    }));
  });
}

/** Sets an instant on the task and, for its live attempt, the matching column. */
async function moveInstant(
  tx: Tx,
  taskId: string,
  column: 'lease_until' | 'deadline_at',
  at: bigint,
): Promise<void> {
  await tx.db
    .updateTable('tasks')
    .set({ [column]: at })
    .where('id', '=', taskId)
    .execute();
  await tx.db
    .updateTable('task_attempts')
    .set({ [column === 'lease_until' ? 'lease_until' : 'expires_at']: at })
    .where('task_id', '=', taskId)
    .where('status', 'in', ['CLAIMED', 'RUNNING'])
    .execute();
}

async function countRows(db: MigratedDatabase, table: string): Promise<number> {
  const row = await sql<{ n: number | string | bigint }>`SELECT COUNT(*) AS n FROM ${sql.table(
    table,
  )}`.execute(db.database.kysely);
  return Number(row.rows[0]?.n ?? 0);
}
