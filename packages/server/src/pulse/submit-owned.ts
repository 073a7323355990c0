/**
 * Tasks a workflow round creates (runtime.md §2.3): many at once, each owned by its activation
 * (`owner_kind`, `owner_id`, E1.3; a POLL's round names its query task), admitted per application under one lock of its
 * quota row (ascending application id, the lock order), inserted in one statement with their
 * first raw status events in another. All or nothing: a full quota or queue refuses the whole
 * set, and the caller's transaction rolls back (A1.7).
 *
 * Inputs arrive resolved and bounded by the planner (E3.6: ≤ 256 KiB); deadlines arrive computed
 * by the caller (min of task timeout, instance deadline and POLL deadline, A1.8).
 */
import { compareIds } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';
import { admitTasks } from './admission.js';
import type { NewTask } from './submit-task.js';
import { insertTaskRows, newTaskRow, writeSubmitEvents } from './submit-task.js';
import type { Task } from './task-record.js';

export interface OwnedTask extends NewTask {
  readonly queueName: string;
  /** The queue's capacity (max pending tasks), read by the caller with the queue. */
  readonly capacity: number;
  readonly owner: { readonly kind: string; readonly id: string };
}

/** The created tasks, in the order of `specs`. */
export async function submitOwnedTasks(
  tx: Tx,
  namespaceId: string,
  specs: readonly OwnedTask[],
): Promise<Task[]> {
  if (specs.length === 0) {
    return [];
  }
  for (const batch of admissionsOf(namespaceId, specs)) {
    await admitTasks(tx, batch);
  }
  const { tasks: inserted } = await insertTaskRows(
    tx,
    specs.map((spec) => newTaskRow(tx, { ...spec, namespaceId })),
  );
  // Every owned task has its own owner: matched by it (RETURNING's order is not promised).
  const byOwner = new Map(inserted.map((task) => [`${task.ownerKind}:${task.ownerId}`, task]));
  const tasks = specs.map((spec) => {
    const task = byOwner.get(`${spec.owner.kind}:${spec.owner.id}`);
    if (task === undefined) {
      throw new Error(`the insert returned no task for ${spec.owner.kind} ${spec.owner.id}`);
    }
    return task;
  });
  await writeSubmitEvents(
    tx,
    namespaceId,
    tasks.map((t) => t.id),
  );
  return tasks;
}

interface Counted {
  readonly queueName: string;
  readonly capacity: number;
  count: number;
}

/** One admission per application (ascending id), with the count per queue. */
function admissionsOf(namespaceId: string, specs: readonly OwnedTask[]) {
  const apps = new Map<string, Map<string, Counted>>();
  for (const spec of specs) {
    const queues = apps.get(spec.applicationId) ?? new Map<string, Counted>();
    apps.set(spec.applicationId, queues);
    const queue: Counted = queues.get(spec.queueId) ?? {
      queueName: spec.queueName,
      capacity: spec.capacity,
      count: 0,
    };
    queue.count += 1;
    queues.set(spec.queueId, queue);
  }
  return [...apps.keys()].sort(compareIds).map((applicationId) => ({
    namespaceId,
    applicationId,
    queues: [...(apps.get(applicationId) ?? [])].map(([queueId, q]) => ({ queueId, ...q })),
  }));
}
