import assert from 'node:assert/strict';
import type { Snapshot, StepState } from '../../src/index.js';
import { compileOk, definition, json, step, succeed, task } from './helpers.js';

/**
 * The definition and consistent snapshots that the rejection tests corrupt: a TASK, a BRANCH
 * (default case: a TIMER), a PARALLEL of two branches and a POLL.
 */
export const program = compileOk(
  definition([
    task('a'),
    {
      id: 'br',
      kind: 'BRANCH',
      cases: [{ when: { exists: '$.input.big' }, steps: [task('big')] }],
      default: [{ id: 'wait', kind: 'TIMER', duration: 'PT1M' }],
    },
    { id: 'par', kind: 'PARALLEL', branches: { x: [task('x1'), task('x2')], y: [task('y1')] } },
    {
      id: 'poll',
      kind: 'POLL',
      queue: 'q',
      interval: 'PT1M',
      max_rounds: 5,
      timeout: 'PT1H',
      classify: {
        path: '$.s',
        pending: ['P'],
        succeeded: ['OK'],
        failed: ['BAD'],
        review: ['HUH'],
      },
    },
  ]),
);

/** A consistent snapshot: a done, the BRANCH took the default and waits, the rest PENDING. */
export function running(): Snapshot {
  const first = step(program, program.initialSnapshot(new Map())).snapshot;
  return step(program, succeed(first, 'a', json('1'))).snapshot;
}

/** Everything up to the POLL done, the POLL running. */
export function atPoll(): Snapshot {
  let snapshot = step(program, succeed(running(), 'wait')).snapshot;
  snapshot = step(program, succeed(succeed(succeed(snapshot, 'x1'), 'y1'), 'x2')).snapshot;
  assert.equal(snapshot.steps.get('poll')?.status, 'ACTIVE');
  return snapshot;
}

export function patch(snapshot: Snapshot, id: string, state: unknown): Snapshot {
  const steps = new Map(snapshot.steps);
  steps.set(id, state as StepState);
  return { ...snapshot, steps };
}
