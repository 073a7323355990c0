import { EngineError } from './errors.js';
import { pathKey } from './json-path.js';
import type { Decision } from './decisions.js';
import type { Snapshot, StepState, StepStatus } from './snapshot.js';

/**
 * The reference model of how storage applies a round (docs/design/engine.md "Applying a round"):
 * decisions in order, each a transition from the state the previous one left. Returns a new
 * snapshot and never changes the given one. The simulator and the tests use it; storage
 * implements the same transitions on rows.
 */
export function applyDecisions(snapshot: Snapshot, decisions: readonly Decision[]): Snapshot {
  const steps = new Map(snapshot.steps);
  for (const decision of decisions) {
    const current = steps.get(decision.stepId);
    if (current === undefined) {
      throw transition(decision, 'the step is not in the snapshot');
    }
    steps.set(decision.stepId, applyOne(current, decision));
  }
  return { ...snapshot, steps };
}

function applyOne(step: StepState, decision: Decision): StepState {
  switch (decision.kind) {
    case 'ACTIVATE': {
      require(step, decision, ['PENDING']);
      const waits = decision.node === 'SIGNAL' || decision.node === 'TIMER';
      const status: StepStatus = waits ? 'WAITING' : 'ACTIVE';
      return decision.node === 'BRANCH'
        ? { kind: step.kind, status, caseIndex: decision.caseIndex }
        : { kind: step.kind, status };
    }
    case 'COMPLETE':
      require(step, decision, ['ACTIVE']);
      return { ...step, status: 'SUCCEEDED', output: decision.output };
    case 'SKIP':
      require(step, decision, ['PENDING']);
      return { kind: step.kind, status: 'SKIPPED' };
    case 'FAIL': {
      require(step, decision, ['PENDING', 'ACTIVE']);
      return { ...withoutOutput(step), status: 'FAILED' };
    }
    case 'CANCEL':
      require(step, decision, ['ACTIVE', 'WAITING']);
      return { ...step, cancelRequested: true };
  }
}

function require(step: StepState, decision: Decision, from: readonly StepStatus[]): void {
  if (!from.includes(step.status)) {
    throw transition(decision, `needs ${from.join(' or ')} (the step is ${step.status})`);
  }
}

function transition(decision: Decision, why: string): EngineError {
  const path = pathKey('$.steps', decision.stepId);
  return new EngineError('invalid_transition', `${decision.kind} ${decision.stepId}: ${why}`, {
    path,
    stepId: decision.stepId,
  });
}

function withoutOutput(step: StepState): StepState {
  const copy: { -readonly [K in keyof StepState]: StepState[K] } = { ...step };
  delete copy.output;
  return copy;
}
