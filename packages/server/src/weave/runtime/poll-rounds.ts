/**
 * Later POLL rounds (runtime.md §4.2): a PENDING classification scheduled round n + 1 at
 * `now + interval` (a SCHEDULED row, no task). When it falls due (DB time) and new work is allowed,
 * its one query task is created here: deadline = min(now + task timeout, POLL deadline, instance
 * deadline) (A1.8, E4.4), the round RUNNING with `task_id`, the activation's `current_round_id`
 * and `poll_used_rounds` = n + 1. `poll_used_rounds` counts rounds only, never task attempts
 * (E4.5); the unique `(activation, number)` and the SCHEDULED state forbid a second task for one
 * round.
 */
import type { Program } from '@weave/engine';
import { DEFAULT_RETRY_POLICY } from '../../pulse/retry-policy.js';
import { submitOwnedTasks } from '../../pulse/submit-owned.js';
import type { Micros } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import { OWNER_ACTIVATION } from '../delivery/deliver-result.js';
import type { Activation, PollRound, StepRow } from '../model/rows.js';
import { earlier } from './activate-work.js';
import type { RoundQueue } from './activate-work.js';
import type { HistoryEntry } from './history.js';

export interface RoundStart {
  readonly round: PollRound;
  readonly activation: Activation;
  readonly step: StepRow;
}

export interface DueRounds {
  readonly start: readonly RoundStart[];
  /** Rounds whose POLL is no longer current (settled, superseded): CANCELLED. */
  readonly cancel: readonly string[];
}

/** What to do with the due SCHEDULED rounds. Pure. */
export function dueRoundActions(at: {
  readonly dueRounds: readonly PollRound[];
  readonly steps: readonly StepRow[];
  readonly activations: readonly Activation[];
  /** Activations the round already settled or cancelled. */
  readonly settled: ReadonlySet<string>;
  readonly allowNew: boolean;
}): DueRounds {
  const steps = new Map(at.steps.map((s) => [s.id, s]));
  const activations = new Map(at.activations.map((a) => [a.id, a]));
  const start: RoundStart[] = [];
  const cancel: string[] = [];
  for (const round of at.dueRounds) {
    const activation = activations.get(round.activationId);
    const step = activation === undefined ? undefined : steps.get(activation.stepRowId);
    const current =
      activation !== undefined &&
      step !== undefined &&
      step.currentActivationId === activation.id &&
      step.status === 'ACTIVE' &&
      !step.cancelRequested &&
      !at.settled.has(activation.id);
    if (!current || activation === undefined || step === undefined) {
      cancel.push(round.id);
    } else if (at.allowNew) {
      start.push({ round, activation, step });
    }
  }
  return { start, cancel };
}

/** Creates the due rounds' query tasks (one Pulse submit) and links them; history entries out. */
export async function startPollRounds(
  tx: Tx,
  ctx: {
    readonly namespaceId: string;
    readonly deadlineAt: Micros;
    readonly program: Program;
    readonly queues: ReadonlyMap<string, RoundQueue>;
    readonly revision: bigint;
  },
  starts: readonly RoundStart[],
): Promise<{ readonly queueIds: string[]; readonly entries: HistoryEntry[] }> {
  if (starts.length === 0) {
    return { queueIds: [], entries: [] };
  }
  const specs = starts.map(({ round, activation, step }) => {
    const queue = ctx.queues.get(ctx.program.step(step.stepId)?.queue ?? '');
    const poll = activation.poll;
    if (queue === undefined || poll === null || activation.input === null) {
      throw new Error(`POLL ${step.stepId} of round ${round.id} has no queue or poll state`);
    }
    const byTask = poll.taskTimeoutUs === null ? ctx.deadlineAt : tx.now + poll.taskTimeoutUs;
    return {
      namespaceId: ctx.namespaceId,
      applicationId: queue.applicationId,
      queueId: queue.id,
      queueName: queue.name,
      capacity: queue.capacity,
      input: activation.input,
      priority: 0,
      resultStreamId: null,
      // A query has no side effects: an uncertain attempt may run again (E4.5).
      idempotent: true,
      deadlineAt: earlier(earlier(byTask, poll.deadlineAt), ctx.deadlineAt),
      retry: DEFAULT_RETRY_POLICY,
      // Owned by the POLL activation, as round 1's (E1.3); the round names the task.
      owner: { kind: OWNER_ACTIVATION, id: activation.id },
    };
  });
  const tasks = await submitOwnedTasks(tx, ctx.namespaceId, specs);
  const entries: HistoryEntry[] = [];
  for (const [i, { round, activation, step }] of starts.entries()) {
    const taskId = tasks[i]?.id ?? '';
    await tx.write(
      tx.db
        .updateTable('weave_poll_rounds')
        .set({ state: 'RUNNING', task_id: taskId })
        .where('namespace_id', '=', ctx.namespaceId)
        .where('id', '=', round.id)
        .where('state', '=', 'SCHEDULED'),
    );
    await tx.write(
      tx.db
        .updateTable('weave_activations')
        .set({
          current_round_id: round.id,
          poll_used_rounds: round.number,
          // The new task's revisions start again: the stale check compares within one task.
          last_task_revision: 0,
        })
        .where('namespace_id', '=', ctx.namespaceId)
        .where('id', '=', activation.id),
    );
    entries.push({
      type: 'poll.round_started',
      revision: ctx.revision,
      stepId: step.stepId,
      details: { round: round.number, task_id: taskId },
    });
  }
  return { queueIds: specs.map((s) => s.queueId), entries };
}
