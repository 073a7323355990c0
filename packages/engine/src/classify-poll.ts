import type { JsonValue } from '@weave/json';
import { equalJson } from '@weave/json';
import { EngineError } from './errors.js';
import { jsonKind } from './json-value.js';
import type { Classifier, PollNode } from './model.js';
import { followPath } from './reference.js';

/**
 * The POLL classifier (E3.9, E3.14): a successful query result is looked up at `classify.path`
 * and the value found decides the class. A missing value, an object or array, or a value in no
 * list is rejected with an `EngineError`: the runtime must not guess (it marks the step for
 * review). A failed query task never reaches the classifier; the POLL fails with it.
 */
export const POLL_CLASSIFICATIONS = ['PENDING', 'SUCCEEDED', 'FAILED', 'NEEDS_REVIEW'] as const;
export type PollClassification = (typeof POLL_CLASSIFICATIONS)[number];

export function classifyWith(classifier: Classifier, result: JsonValue): PollClassification {
  const path = classifier.pathText;
  const value = followPath(result, classifier.path);
  if (value === undefined) {
    throw new EngineError('poll_unknown_value', `the query result has no value at ${path}`, {
      path,
    });
  }
  const lists: readonly [PollClassification, readonly JsonValue[]][] = [
    ['PENDING', classifier.pending],
    ['SUCCEEDED', classifier.succeeded],
    ['FAILED', classifier.failed],
    ['NEEDS_REVIEW', classifier.review],
  ];
  for (const [classification, values] of lists) {
    if (values.some((candidate) => equalJson(candidate, value))) {
      return classification;
    }
  }
  const kind = jsonKind(value);
  const known = lists.some(([, values]) =>
    values.some((candidate) => jsonKind(candidate) === kind),
  );
  if (!known) {
    throw new EngineError(
      'poll_unknown_type',
      `the value at ${path} is ${kind}, which no class lists`,
      { path },
    );
  }
  throw new EngineError(
    'poll_unknown_value',
    `the value at ${path} is in no class of the classifier`,
    { path },
  );
}

/**
 * A SUCCEEDED POLL in a snapshot must have got there legitimately: by its final signal (when it
 * has one) or by a query result that classifies as SUCCEEDED. Anything else would let a PENDING,
 * FAILED or review result advance successors (E3.14), so the round is rejected.
 */
export function checkPollSuccess(
  node: PollNode,
  saved: { readonly completedBy: string; readonly output: JsonValue; readonly path: string },
): void {
  const details = { path: `${saved.path}.output`, stepId: node.id };
  if (saved.completedBy === 'FINAL_SIGNAL') {
    if (node.finalSignal === undefined) {
      const message = `${saved.path} completed by a final signal, but the POLL has none`;
      throw new EngineError('snapshot_poll_not_succeeded', message, {
        ...details,
        path: `${saved.path}.completed_by`,
      });
    }
    return;
  }
  let classification: PollClassification;
  try {
    classification = classifyWith(node.classifier, saved.output);
  } catch (error: unknown) {
    const message = `${saved.path} is SUCCEEDED but its output does not classify`;
    throw new EngineError('snapshot_poll_not_succeeded', message, details, { cause: error });
  }
  if (classification !== 'SUCCEEDED') {
    const message = `${saved.path} is SUCCEEDED but its output classifies as ${classification}`;
    throw new EngineError('snapshot_poll_not_succeeded', message, details);
  }
}
