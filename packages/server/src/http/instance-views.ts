/**
 * Instances → wire JSON (API.md "Weave"): Get, Steps, step detail and history. Payloads are
 * embedded as their stored exact text.
 */
import { formatInstant } from '@weave/sdk/protocol';
import type { Micros, instances } from '@weave/sdk/protocol';
import type { HistoryRead } from '../weave/instance/history-view.js';
import type { InstanceSummary } from '../weave/instance/list-instances.js';
import type { InstanceWithVersion } from '../weave/instance/read-instance.js';
import type { ActivationRead, StepDetailRead } from '../weave/instance/step-detail.js';
import type { StepsRead } from '../weave/instance/steps-view.js';

export function instanceView({ instance, workflow }: InstanceWithVersion): instances.Instance {
  return {
    id: instance.id,
    workflow,
    version: instance.version,
    status: instance.status,
    revision: instance.revision.toString(),
    business_key: instance.businessKey,
    input: { kind: 'raw', text: instance.input },
    ...(instance.output === null ? {} : { output: { kind: 'raw', text: instance.output } }),
    ...(instance.errorCode === null
      ? {}
      : {
          error: {
            code: instance.errorCode,
            message: instance.errorMessage ?? '',
            ...(instance.errorStepId === null ? {} : { step_id: instance.errorStepId }),
          },
        }),
    deadline_at: formatInstant(instance.deadlineAt),
    created_at: formatInstant(instance.createdAt),
    ...(instance.finishedAt === null ? {} : { finished_at: formatInstant(instance.finishedAt) }),
    paused: instance.paused,
  };
}

/** A list row: the Get view without input, output and error. */
export function instanceSummaryView(summary: InstanceSummary): instances.InstanceSummary {
  return {
    id: summary.id,
    workflow: summary.workflow,
    version: summary.version,
    status: summary.status,
    revision: summary.revision.toString(),
    business_key: summary.businessKey,
    created_at: formatInstant(summary.createdAt),
    ...(summary.finishedAt === null ? {} : { finished_at: formatInstant(summary.finishedAt) }),
    paused: summary.paused,
    deadline_at: formatInstant(summary.deadlineAt),
  };
}

function raw(text: string) {
  return { kind: 'raw' as const, text };
}

function present<K extends string, V>(key: K, value: V | null): { [P in K]?: V } {
  return (value === null ? {} : { [key]: value }) as { [P in K]?: V };
}

function instantOrNull(at: Micros | null): string | null {
  return at === null ? null : formatInstant(at);
}

/** Steps (A3.3): metadata only, `$root` already left out by the read. */
export function stepsView(read: StepsRead): instances.InstanceSteps {
  return {
    revision: read.revision.toString(),
    steps: read.steps.map((s) => ({
      id: s.stepId,
      kind: s.kind,
      status: s.status,
      ...present('activation_id', s.activationId),
      ...present('task_id', s.taskId),
    })),
  };
}

function activationView(read: ActivationRead): instances.StepActivation {
  const { activation, task, rounds, waits } = read;
  return {
    id: activation.id,
    number: activation.number,
    status: activation.status,
    ...present('input', activation.input === null ? null : raw(activation.input)),
    ...present(
      'task',
      task === null
        ? null
        : {
            id: task.id,
            status: task.status,
            revision: task.revision.toString(),
            attempts: task.attempts.map((a) => ({
              id: a.id,
              number: a.number,
              status: a.status,
              worker_id: a.workerId,
              claimed_at: formatInstant(a.claimedAt),
              lease_until: formatInstant(a.leaseUntil),
              ...present('started_at', instantOrNull(a.startedAt)),
              ...present('finished_at', instantOrNull(a.finishedAt)),
              ...present('error_code', a.errorCode),
            })),
          },
    ),
    ...present(
      'poll',
      activation.poll === null
        ? null
        : {
            max_rounds: activation.poll.maxRounds,
            used_rounds: activation.poll.usedRounds,
            deadline_at: formatInstant(activation.poll.deadlineAt),
            rounds: rounds.map((r) => ({
              number: r.number,
              state: r.state,
              due_at: formatInstant(r.dueAt),
              ...present('task_id', r.taskId),
              ...present('classification', r.classification),
            })),
          },
    ),
    waits: waits.map((w) => ({
      purpose: w.purpose,
      state: w.state,
      due_at: formatInstant(w.dueAt),
      ...present('signal_name', w.signalName),
    })),
    created_at: formatInstant(activation.createdAt),
    ...present('finished_at', instantOrNull(activation.finishedAt)),
  };
}

export function stepDetailView(read: StepDetailRead): instances.StepDetail {
  const { step } = read;
  if (step.kind === 'ROOT') {
    throw new Error('$root has no detail view');
  }
  return {
    id: step.stepId,
    kind: step.kind,
    status: step.status,
    revision: step.revision.toString(),
    ...present('output', step.output === null ? null : raw(step.output)),
    ...present(
      'error',
      step.errorCode === null ? null : { code: step.errorCode, message: step.errorMessage ?? '' },
    ),
    ...present('case_index', step.caseIndex),
    activations: read.activations.map(activationView),
  };
}

export function historyView(read: HistoryRead): instances.HistoryPage {
  return {
    events: read.events.map((e) => ({
      seq: e.seq.toString(),
      type: e.type,
      at: formatInstant(e.at),
      revision: e.instanceRevision.toString(),
      ...present('step_id', e.stepId),
      ...present('activation_id', e.activationId),
      ...present('task_id', e.taskId),
      ...present('round_id', e.roundId),
      ...present('details', e.details === null ? null : raw(e.details)),
    })),
    next_after: read.nextAfter.toString(),
  };
}
