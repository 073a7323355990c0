import fc from 'fast-check';
import type { JsonValue } from '@weave/json';
import { toJson } from './helpers.js';

/**
 * Random valid definitions for the property tests: trees of TASK/SIGNAL/TIMER/POLL leaves under
 * BRANCH and PARALLEL composites, with references to the input and to earlier steps.
 */
export type Shape =
  | { readonly t: 'TASK' | 'SIGNAL' | 'TIMER' | 'POLL' }
  | {
      readonly t: 'BRANCH';
      readonly cases: readonly Shape[][];
      readonly fallback: readonly Shape[];
    }
  | { readonly t: 'PARALLEL'; readonly branches: readonly Shape[][] };

type Tree = {
  step: Shape;
  block: Shape[];
  leaf: Shape;
  branch: Shape;
  parallel: Shape;
};

const shapes = fc.letrec<Tree>((tie) => ({
  step: fc.oneof({ depthSize: 'small', maxDepth: 2 }, tie('leaf'), tie('branch'), tie('parallel')),
  block: fc.array(tie('step'), { maxLength: 3 }),
  leaf: fc.constantFrom<Shape>(
    { t: 'TASK' },
    { t: 'TASK' },
    { t: 'SIGNAL' },
    { t: 'TIMER' },
    { t: 'POLL' },
  ),
  branch: fc.record({
    t: fc.constant('BRANCH' as const),
    cases: fc.array(tie('block'), { minLength: 1, maxLength: 2 }),
    fallback: tie('block'),
  }),
  parallel: fc.record({
    t: fc.constant('PARALLEL' as const),
    branches: fc.array(tie('block'), { minLength: 1, maxLength: 3 }),
  }),
}));

export const topBlock = fc
  .array(shapes.step, { minLength: 0, maxLength: 4 })
  .filter((block) => countSteps(block) <= 128);

export function countSteps(block: readonly Shape[]): number {
  return block.reduce((sum, shape) => {
    if (shape.t === 'BRANCH') {
      return (
        sum +
        1 +
        shape.cases.reduce((n, steps) => n + countSteps(steps), 0) +
        countSteps(shape.fallback)
      );
    }
    if (shape.t === 'PARALLEL') {
      return sum + 1 + shape.branches.reduce((n, steps) => n + countSteps(steps), 0);
    }
    return sum + 1;
  }, 0);
}

/** Builds the definition JSON; ids are s0, s1… in document order. */
export function toDefinition(block: readonly Shape[], thresholds: readonly number[]): JsonValue {
  let next = 0;
  const build = (steps: readonly Shape[]): unknown[] => {
    const out: unknown[] = [];
    let previous: string | undefined;
    for (const shape of steps) {
      const id = `s${next++}`;
      out.push(buildStep(shape, id, previous));
      previous = id;
    }
    return out;
  };
  const buildStep = (shape: Shape, id: string, previous: string | undefined): unknown => {
    const input =
      previous === undefined
        ? { v: '$.input.v' }
        : { v: '$.input.v', prev: '$.steps.' + previous + '.output' };
    switch (shape.t) {
      case 'TASK':
        return { id, kind: 'TASK', queue: 'q', input, trace_key: 'trace' };
      case 'SIGNAL':
        return { id, kind: 'SIGNAL', name: 'sig', correlation: `key-${id}` };
      case 'TIMER':
        return { id, kind: 'TIMER', duration: 'PT1M' };
      case 'POLL':
        return {
          id,
          kind: 'POLL',
          queue: 'q',
          input,
          interval: 'PT1M',
          max_rounds: 3,
          timeout: 'PT1H',
          classify: {
            path: '$.status',
            pending: ['WAIT'],
            succeeded: ['OK'],
            failed: ['BAD'],
            review: ['ODD'],
          },
        };
      case 'BRANCH': {
        const threshold = thresholds[next % thresholds.length] ?? 0;
        return {
          id,
          kind: 'BRANCH',
          cases: shape.cases.map((steps) => ({
            when: { gt: ['$.input.v', threshold] },
            steps: build(steps),
          })),
          default: build(shape.fallback),
        };
      }
      case 'PARALLEL':
        return {
          id,
          kind: 'PARALLEL',
          branches: Object.fromEntries(shape.branches.map((steps, i) => [`b${i}`, build(steps)])),
        };
    }
  };
  const steps = build(block);
  return toJson({
    schema_version: 1,
    name: 'generated',
    input: { type: 'object', required: ['v'], properties: { v: { type: 'integer' } } },
    steps,
  });
}

/** A scenario: a definition, an input value, a plan limit and a stream of scheduling choices. */
export const scenarios = fc.record({
  block: topBlock,
  thresholds: fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 4 }),
  v: fc.integer({ min: -6, max: 6 }),
  limit: fc.integer({ min: 1, max: 32 }),
  choices: fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
});
