/**
 * The workflows of the workflow bench (workflow.ts), as Weave definitions, and what counts as a
 * transition. DBOS runs the same shapes as code (workflow-dbos.ts).
 *
 * A **transition** is one executed static step of an instance — every TASK, TIMER, BRANCH and
 * PARALLEL that reached SUCCEEDED; the hidden `$root` and skipped steps do not count. On Weave
 * the count is read back from `weave_steps`; DBOS runs the same steps (a BRANCH is an `if`, a
 * PARALLEL a `Promise.allSettled` of steps), so the same count per instance is used for it.
 */

export const QUEUE = 'noop';
export const NAMESPACE = 'bench';
export const APP = 'bench';
/** The stream every bench instance reports its end to (`result_stream` at Start). */
export const ENDS_STREAM = 'ends';

function task(id: string): Record<string, unknown> {
  return { id, kind: 'TASK', queue: QUEUE };
}

/** S2: 10 sequential no-op TASKs. */
export const S2_STEPS = 10;
export const S2 = {
  schema_version: 1,
  name: 'bench_s2',
  steps: Array.from({ length: S2_STEPS }, (_, i) => task(`t${i + 1}`)),
};

/**
 * S3: TASK → BRANCH (case taken: one TASK) → PARALLEL (3 TASKs) → TASK. Six TASKs, one BRANCH,
 * one PARALLEL: 8 transitions per instance. The BRANCH tests the instance input.
 */
export const S3 = {
  schema_version: 1,
  name: 'bench_s3',
  input: {
    type: 'object',
    required: ['route'],
    properties: { route: { type: 'string' } },
  },
  steps: [
    task('t1'),
    {
      id: 'route',
      kind: 'BRANCH',
      cases: [{ when: { eq: ['$.input.route', 'a'] }, steps: [task('t2')] }],
      default: [],
    },
    {
      id: 'fan',
      kind: 'PARALLEL',
      branches: { p1: [task('p1')], p2: [task('p2')], p3: [task('p3')] },
    },
    task('t6'),
  ],
};
export const S3_TRANSITIONS = 8;
export const S3_SHAPE =
  'TASK t1 → BRANCH route (case taken: TASK t2) → PARALLEL fan (TASK p1, p2, p3) → TASK t6';

/** S4: one PARALLEL of `width` branches, one no-op TASK each (101 transitions at width 100). */
export function s4Definition(width: number): Record<string, unknown> {
  const branches: Record<string, unknown> = {};
  for (let i = 0; i < width; i++) {
    branches[`b${i}`] = [task(`w${i}`)];
  }
  return {
    schema_version: 1,
    name: `bench_s4_${width}`,
    steps: [{ id: 'fan', kind: 'PARALLEL', branches }],
  };
}

/** Timers: one 1-second TIMER (1 transition). */
export const TIMER_MS = 1_000;
export const TIMERS = {
  schema_version: 1,
  name: 'bench_timer',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1S' }],
};

export const TRANSITION_DEFINITION =
  'transition = one executed static step (TASK, TIMER, BRANCH or PARALLEL that SUCCEEDED; ' +
  '$root and skipped steps not counted): S2 10, S3 8, S4 1 + width, timer 1 per instance';
