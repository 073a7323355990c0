/**
 * Step builders, one per kind of docs/definitions.md (TASK, BRANCH, PARALLEL, SIGNAL, TIMER,
 * POLL). Options use the wire's snake_case field names exactly (`max_rounds`, `trace_key`), so
 * a builder call reads like the JSON it emits and there is no mapping to get wrong.
 */
import type { JsonNumber } from '@weave/json';
import type { Condition } from './define-conditions.js';
import type { Reference, Value } from './define-values.js';

/**
 * An ISO 8601 duration with fixed-length units (`PT30S`, `P1DT2H`, `P2W`); the server checks it.
 *
 * @example
 * const timeout: Duration = 'PT30S';
 */
export type Duration = `P${string}`;

/**
 * A list of steps run one after the other.
 *
 * @example
 * const steps: Steps = [timer('cool', { duration: 'PT1H' })];
 */
export type Steps = readonly Step[];

/** Any step. @example const step: Step = task('mail', { queue: 'mail' }); */
export type Step = TaskStep | BranchStep | ParallelStep | SignalStep | TimerStep | PollStep;

/**
 * A TASK's retry policy (docs/definitions.md "TASK").
 *
 * @example
 * const retry: RetryOptions = { max_attempts: 5, initial_interval: 'PT1S' };
 */
export type RetryOptions = {
  readonly max_attempts?: number;
  readonly initial_interval?: Duration;
  readonly backoff_coefficient?: number | JsonNumber;
  readonly max_interval?: Duration;
  readonly non_retryable_codes?: readonly string[];
};

/**
 * The fields of a TASK.
 *
 * @example
 * const options: TaskOptions = { queue: 'billing', idempotent: true };
 */
export type TaskOptions = {
  readonly description?: string;
  readonly queue: string;
  readonly input?: Value;
  readonly timeout?: Duration;
  readonly retry?: RetryOptions;
  readonly idempotent?: boolean;
  readonly trace_key?: string;
  readonly resource_key?: string;
};

/**
 * One case of a BRANCH.
 *
 * @example
 * const big: BranchCase = when(gt(ref.input('amount'), 1000), []);
 */
export type BranchCase = { readonly when: Condition; readonly steps: Steps };

/**
 * The fields of a BRANCH.
 *
 * @example
 * const options: BranchOptions = { cases: [when(exists(ref.input('vip')), [])] };
 */
export type BranchOptions = {
  readonly description?: string;
  readonly cases: readonly [BranchCase, ...BranchCase[]];
  readonly default?: Steps;
};

/**
 * The fields of a PARALLEL.
 *
 * @example
 * const options: ParallelOptions = { branches: { mail: [] } };
 */
export type ParallelOptions = {
  readonly description?: string;
  readonly branches: { readonly [name: string]: Steps };
};

/**
 * The fields of a SIGNAL.
 *
 * @example
 * const options: SignalOptions = { name: 'approval', correlation: ref.input('orderId') };
 */
export type SignalOptions = {
  readonly description?: string;
  readonly name: string;
  readonly correlation: string;
  readonly payload_version?: number;
  readonly timeout?: Duration;
};

/** The fields of a TIMER. @example const options: TimerOptions = { duration: 'PT1H' }; */
export type TimerOptions = { readonly description?: string; readonly duration: Duration };

/** A value a POLL classifier lists. @example const value: ClassValue = 'DELIVERED'; */
export type ClassValue = string | number | JsonNumber | boolean | null;

/**
 * A POLL's classifier: where the class value sits in a query result, and the lists.
 *
 * @example
 * const classify: Classifier = {
 *   path: ref.result('status'),
 *   pending: ['IN_TRANSIT'],
 *   succeeded: ['DELIVERED'],
 * };
 */
export type Classifier = {
  readonly path: Reference;
  readonly pending?: readonly ClassValue[];
  readonly succeeded: readonly [ClassValue, ...ClassValue[]];
  readonly failed?: readonly ClassValue[];
  readonly review?: readonly ClassValue[];
};

/**
 * A POLL's `final_signal`.
 *
 * @example
 * const signal: FinalSignal = { name: 'delivered', correlation: ref.input('orderId') };
 */
export type FinalSignal = {
  readonly name: string;
  readonly correlation: string;
  readonly payload_version?: number;
};

/**
 * The fields of a POLL.
 *
 * @example
 * const options: PollOptions = {
 *   queue: 'carrier',
 *   interval: 'PT5M',
 *   max_rounds: 100,
 *   timeout: 'P3D',
 *   classify: { path: ref.result('status'), succeeded: ['DELIVERED'] },
 * };
 */
export type PollOptions = {
  readonly description?: string;
  readonly queue: string;
  readonly input?: Value;
  readonly interval: Duration;
  readonly max_rounds: number;
  readonly timeout: Duration;
  readonly task_timeout?: Duration;
  readonly classify: Classifier;
  readonly final_signal?: FinalSignal;
};

type StepOf<K extends string, O> = { readonly id: string; readonly kind: K } & O;

/** A TASK step as JSON. @example const step: TaskStep = task('mail', { queue: 'mail' }); */
export type TaskStep = StepOf<'TASK', TaskOptions>;
/**
 * A BRANCH step as JSON.
 *
 * @example
 * const step: BranchStep = branch('route', { cases: [when(exists(ref.input('vip')), [])] });
 */
export type BranchStep = StepOf<'BRANCH', BranchOptions>;
/**
 * A PARALLEL step as JSON.
 *
 * @example
 * const step: ParallelStep = parallel('ship', { branches: { mail: [] } });
 */
export type ParallelStep = StepOf<'PARALLEL', ParallelOptions>;
/**
 * A SIGNAL step as JSON.
 *
 * @example
 * const step: SignalStep = signal('approve', { name: 'approval', correlation: 'A1' });
 */
export type SignalStep = StepOf<'SIGNAL', SignalOptions>;
/** A TIMER step as JSON. @example const step: TimerStep = timer('cool', { duration: 'PT1H' }); */
export type TimerStep = StepOf<'TIMER', TimerOptions>;
/**
 * A POLL step as JSON.
 *
 * @example
 * const step: PollStep = poll('track', options); // options: PollOptions, as above
 */
export type PollStep = StepOf<'POLL', PollOptions>;

/**
 * `{ id, kind, ...options }` in that order, as a hand-written file has it. Members explicitly
 * set to `undefined` are left out (they have no JSON form) so `definition` deep-equals the file.
 */
function makeStep<K extends string, O extends object>(
  id: string,
  kind: K,
  options: O,
): StepOf<K, O> {
  const step: Record<string, unknown> = { id, kind };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) {
      step[key] = value;
    }
  }
  return step as StepOf<K, O>;
}

/**
 * A TASK: business work a worker claims from `queue`.
 *
 * @example
 * task('reserve', {
 *   queue: 'inventory',
 *   input: { order: ref.input('orderId') },
 *   timeout: 'PT30S',
 *   retry: { max_attempts: 5, initial_interval: 'PT1S' },
 * });
 */
export function task(id: string, options: TaskOptions): TaskStep {
  return makeStep(id, 'TASK', options);
}

/**
 * A BRANCH: the first case whose condition holds runs; otherwise `default` (absent = empty).
 *
 * @example
 * branch('big', { cases: [when(gt(ref.input('amount'), 1000), [approveStep])], default: [] });
 */
export function branch(id: string, options: BranchOptions): BranchStep {
  return makeStep(id, 'BRANCH', options);
}

/**
 * One BRANCH case: `{ when: condition, steps }`.
 *
 * @example
 * when(isIn(ref.input('country'), ['DE', 'AT']), [task('dach', { queue: 'dach-review' })]);
 */
export function when(condition: Condition, steps: Steps): BranchCase {
  return { when: condition, steps };
}

/**
 * A PARALLEL: named branches run at the same time; the output is `{ <branch>: <its last output> }`.
 *
 * @example
 * parallel('ship', { branches: { label: [task('print', { queue: 'labels' })], notify: [] } });
 */
export function parallel(id: string, options: ParallelOptions): ParallelStep {
  return makeStep(id, 'PARALLEL', options);
}

/**
 * A SIGNAL: waits for `POST /signals` with this name, correlation key and payload version.
 *
 * @example
 * signal('approve', { name: 'approval', correlation: ref.input('orderId'), timeout: 'P2D' });
 */
export function signal(id: string, options: SignalOptions): SignalStep {
  return makeStep(id, 'SIGNAL', options);
}

/**
 * A TIMER: waits `duration` in database time; its output is `null`.
 *
 * @example
 * timer('cool', { duration: 'PT1H' });
 */
export function timer(id: string, options: TimerOptions): TimerStep {
  return makeStep(id, 'TIMER', options);
}

/**
 * A POLL: queries `queue` every `interval` until the classifier says SUCCEEDED (or FAILED, or
 * review), or the optional `final_signal` arrives first.
 *
 * @example
 * poll('track', {
 *   queue: 'carrier',
 *   input: { label: ref.step('ship').output('label') },
 *   interval: 'PT5M',
 *   max_rounds: 100,
 *   timeout: 'P3D',
 *   classify: { path: ref.result('status'), pending: ['IN_TRANSIT'], succeeded: ['DELIVERED'] },
 * });
 */
export function poll(id: string, options: PollOptions): PollStep {
  return makeStep(id, 'POLL', options);
}
