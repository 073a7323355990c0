/**
 * `@weave/engine`: the pure workflow engine of Weave (seed 000 §3, DESIGN.md §5).
 *
 * - `compile(definition)` validates a schema_version 1 definition (docs/definitions.md) and
 *   returns an immutable `Program`, or every problem with its JSON path.
 * - `program.plan(snapshot, limit)` returns the next ACTIVATE / COMPLETE / SKIP / FAIL / CANCEL
 *   decisions (1 ≤ limit ≤ 32) and `more`; an inconsistent snapshot throws `EngineError`.
 * - `classifyPoll(step, result)` classifies a successful POLL query result.
 * - `validateDefinitionText` and `simulate` are the offline tools behind the CLI.
 *
 * No I/O, no clock, no randomness: the same snapshot always gives the same decisions, so any
 * round can be recomputed after a crash. The storage contract is docs/design/engine.md.
 *
 * @example
 * const result = compile(parse(definitionText));
 * if (result.ok) {
 *   const { decisions, more } = result.program.plan(result.program.initialSnapshot(input), 32);
 * }
 *
 * @packageDocumentation
 */
export type { CompileResult, Program } from './program.js';
export { compile } from './program.js';
export type { Problem, ProblemCode } from './problems.js';
export type { EngineErrorCode, EngineErrorDetails } from './errors.js';
export { EngineError } from './errors.js';
export {
  DEFAULT_INSTANCE_TIMEOUT_MS,
  ID_PATTERN,
  LIMITS,
  NAME_PATTERN,
  ROOT_STEP_ID,
} from './limits.js';
export type { StepKind } from './model.js';
export { STEP_KINDS } from './model.js';
export type {
  PollCompletion,
  Snapshot,
  SnapshotStepKind,
  StepState,
  StepStatus,
} from './snapshot.js';
export { POLL_COMPLETIONS, STEP_STATUSES } from './snapshot.js';
export type {
  ActivateBranch,
  ActivateDecision,
  ActivateParallel,
  ActivatePoll,
  ActivateRoot,
  ActivateSignal,
  ActivateTask,
  ActivateTimer,
  CancelDecision,
  CompleteDecision,
  Decision,
  FailDecision,
  FailureCode,
  PlanResult,
  RetryParameters,
  SignalParameters,
  SkipDecision,
  StepFailure,
} from './decisions.js';
export { FAILURE_CODES } from './decisions.js';
export type { PollClassification } from './classify-poll.js';
export { POLL_CLASSIFICATIONS } from './classify-poll.js';
export type { PollClassifierInfo, StepInfo } from './step-info.js';
export { classifyPoll } from './step-info.js';
export { snapshotFromJson, snapshotToJson } from './snapshot-json.js';
export { decisionToJson, formatDecision } from './decision-json.js';
export { applyDecisions } from './apply.js';
export type { Recovery, Reopened } from './reopen.js';
export type { TextValidation } from './validate-text.js';
export { formatProblems, validateDefinitionText } from './validate-text.js';
export type { SimulatedRound, SimulateOptions, Simulation, SimulationProblem } from './simulate.js';
export { simulate } from './simulate.js';
export { formatSimulation } from './simulate-format.js';
