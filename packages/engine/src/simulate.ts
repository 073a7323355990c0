import type { JsonValue } from '@weave/json';
import { LIMITS, ROOT_STEP_ID } from './limits.js';
import { applyDecisions } from './apply.js';
import type { Decision } from './decisions.js';
import type { Problem } from './problems.js';
import type { Program } from './program.js';
import type { Outcome } from './results-file.js';
import { parseResults } from './results-file.js';
import type { Snapshot, StepState, StepStatus } from './snapshot.js';
import type { StepInfo } from './step-info.js';
import { parseText, validateDefinitionText } from './validate-text.js';

/**
 * `weave workflows simulate`: a dry run that plays planning rounds against the step results in a
 * results file, exactly as storage and the runners would, one outside event per round (in
 * document order of the waiting steps), and records every round's decisions.
 */
export interface SimulateOptions {
  readonly definitionText: string;
  readonly inputText: string;
  readonly resultsText: string;
  /** Decisions per round, 1–32 (default 32). */
  readonly limit?: number;
  /** Safety stop for the CLI (default 10,000 rounds). */
  readonly maxRounds?: number;
}

export interface SimulatedRound {
  readonly number: number;
  /** What started the round: `start`, `reserve SUCCEEDED`, `continue (more)`… */
  readonly trigger: string;
  readonly decisions: readonly Decision[];
  readonly more: boolean;
}

export type Simulation =
  | {
      readonly ok: false;
      readonly stage: 'definition' | 'input' | 'results' | 'plan';
      readonly problems: readonly SimulationProblem[];
    }
  | {
      readonly ok: true;
      readonly rounds: readonly SimulatedRound[];
      readonly rootStatus: StepStatus;
      readonly output?: JsonValue;
      /** Steps still ACTIVE, WAITING or NEEDS_REVIEW when the run stopped. */
      readonly waiting: readonly string[];
      readonly stoppedByRoundLimit: boolean;
    };

/** A compile problem, or an `EngineError` (code, message, details.path) if planning refused. */
export interface SimulationProblem {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export function simulate(options: SimulateOptions): Simulation {
  const definition = validateDefinitionText(options.definitionText);
  if (!definition.ok) {
    return { ok: false, stage: 'definition', problems: definition.problems };
  }
  const program = definition.program;
  const input = parseText(options.inputText, LIMITS.maxInstanceInputBytes);
  const inputProblems: readonly Problem[] = input.ok
    ? program.validateInput(input.value)
    : input.problems;
  if (!input.ok || inputProblems.length > 0) {
    return { ok: false, stage: 'input', problems: inputProblems };
  }
  const resultsValue = parseText(options.resultsText, LIMITS.maxDefinitionBytes * 16);
  const results = resultsValue.ok
    ? parseResults(resultsValue.value, program.steps())
    : resultsValue;
  if (!results.ok) {
    return { ok: false, stage: 'results', problems: results.problems };
  }
  try {
    return run(program, { input: input.value, outcomes: results.outcomes, options });
  } catch (error: unknown) {
    const { code, message, details } = error as {
      code?: unknown;
      message?: unknown;
      details?: { path?: unknown };
    };
    if (typeof code !== 'string') {
      throw error;
    }
    const path = typeof details?.path === 'string' ? details.path : '$';
    return { ok: false, stage: 'plan', problems: [{ path, code, message: String(message) }] };
  }
}

interface World {
  readonly program: Program;
  readonly steps: readonly StepInfo[];
  readonly outcomes: ReadonlyMap<string, Outcome>;
  /** Query results used per POLL, and each POLL's round budget from its ACTIVATE. */
  readonly pollUsed: Map<string, number>;
  readonly pollMaxRounds: Map<string, number>;
}

function run(
  program: Program,
  setup: { input: JsonValue; outcomes: ReadonlyMap<string, Outcome>; options: SimulateOptions },
): Simulation {
  const limit = setup.options.limit ?? LIMITS.maxDecisionsPerRound;
  const maxRounds = setup.options.maxRounds ?? 10_000;
  const steps = program.steps();
  const world: World = {
    program,
    steps,
    outcomes: setup.outcomes,
    pollUsed: new Map(),
    pollMaxRounds: new Map(),
  };
  const rounds: SimulatedRound[] = [];
  let snapshot = program.initialSnapshot(setup.input);
  let trigger: string | undefined = 'start';
  while (trigger !== undefined && rounds.length < maxRounds) {
    const { decisions, more } = program.plan(snapshot, limit);
    snapshot = applyDecisions(snapshot, decisions);
    for (const decision of decisions) {
      if (decision.kind === 'ACTIVATE' && decision.node === 'POLL') {
        world.pollMaxRounds.set(decision.stepId, decision.maxRounds);
      }
    }
    rounds.push({ number: rounds.length + 1, trigger, decisions, more });
    const event = more ? { trigger: 'continue (more)', snapshot } : nextEvent(world, snapshot);
    trigger = event?.trigger;
    snapshot = event?.snapshot ?? snapshot;
  }
  return finish({ snapshot, steps, rounds, stopped: trigger !== undefined });
}

function finish(end: {
  snapshot: Snapshot;
  steps: readonly StepInfo[];
  rounds: SimulatedRound[];
  stopped: boolean;
}): Simulation {
  const root = end.snapshot.steps.get(ROOT_STEP_ID);
  const inFlight = ['ACTIVE', 'WAITING', 'NEEDS_REVIEW'];
  const waiting = end.steps
    .filter((step) => inFlight.includes(end.snapshot.steps.get(step.id)?.status ?? ''))
    .map((step) => step.id);
  return {
    ok: true,
    rounds: end.rounds,
    rootStatus: root?.status ?? 'PENDING',
    ...(root?.output === undefined ? {} : { output: root.output }),
    waiting,
    stoppedByRoundLimit: end.stopped,
  };
}

interface Event {
  readonly trigger: string;
  readonly snapshot: Snapshot;
}

/** The first in-flight step (document order) that has something to report. */
function nextEvent(world: World, snapshot: Snapshot): Event | undefined {
  for (const step of world.steps) {
    const state = snapshot.steps.get(step.id);
    if (state === undefined || (state.status !== 'ACTIVE' && state.status !== 'WAITING')) {
      continue;
    }
    const event = eventFor(world, snapshot, { step, state });
    if (event !== undefined) {
      return event;
    }
  }
  return undefined;
}

function eventFor(
  world: World,
  snapshot: Snapshot,
  at: { step: StepInfo; state: StepState },
): Event | undefined {
  const { step, state } = at;
  const outcome = world.outcomes.get(step.id);
  if (state.cancelRequested === true) {
    return settle(
      snapshot,
      step,
      { status: 'CANCELLED' },
      `${step.id} CANCELLED (cancel requested)`,
    );
  }
  if (outcome === undefined) {
    return step.kind === 'TIMER'
      ? settle(snapshot, step, { status: 'SUCCEEDED', output: null }, `${step.id} fired`)
      : undefined;
  }
  if (outcome.type === 'status') {
    const output =
      outcome.status === 'SUCCEEDED'
        ? { output: step.kind === 'TIMER' ? null : outcome.output }
        : {};
    return settle(
      snapshot,
      step,
      { status: outcome.status, ...output },
      `${step.id} ${outcome.status}`,
    );
  }
  return pollEvent(world, snapshot, { step, outcome });
}

function pollEvent(
  world: World,
  snapshot: Snapshot,
  at: { step: StepInfo; outcome: Outcome & { type: 'poll' } },
): Event | undefined {
  const { step, outcome } = at;
  const used = world.pollUsed.get(step.id) ?? 0;
  const result = outcome.results[used];
  if (result === undefined) {
    const signal = outcome.finalSignal;
    const change = {
      status: 'SUCCEEDED' as const,
      output: signal?.payload ?? null,
      completedBy: 'FINAL_SIGNAL' as const,
    };
    return signal === undefined
      ? undefined
      : settle(snapshot, step, change, `${step.id} final signal`);
  }
  world.pollUsed.set(step.id, used + 1);
  const lastRound = used + 1 >= (world.pollMaxRounds.get(step.id) ?? Number.POSITIVE_INFINITY);
  const [change, text] = queryOutcome(world.program, { step, result, lastRound });
  const trigger = `${step.id} query ${used + 1}: ${text}`;
  return change === undefined ? { trigger, snapshot } : settle(snapshot, step, change, trigger);
}

/** What the runtime does with one successful query result: the classifier decides (E3.9). */
function queryOutcome(
  program: Program,
  query: { step: StepInfo; result: JsonValue; lastRound: boolean },
): [Omit<StepState, 'kind'> | undefined, string] {
  let classification: string;
  try {
    classification = program.classifyPoll(query.step.id, query.result);
  } catch {
    return [{ status: 'NEEDS_REVIEW' }, 'unclassifiable result, NEEDS_REVIEW'];
  }
  if (classification === 'SUCCEEDED') {
    return [{ status: 'SUCCEEDED', output: query.result, completedBy: 'QUERY' }, 'SUCCEEDED'];
  }
  if (classification === 'FAILED' || classification === 'NEEDS_REVIEW') {
    return [{ status: classification }, classification];
  }
  return query.lastRound
    ? [{ status: 'FAILED' }, 'PENDING, max rounds used, FAILED']
    : [undefined, 'PENDING'];
}

function settle(
  snapshot: Snapshot,
  step: StepInfo,
  change: Omit<StepState, 'kind'>,
  trigger: string,
): Event {
  const steps = new Map(snapshot.steps);
  steps.set(step.id, { kind: step.kind, ...change });
  return { trigger, snapshot: { ...snapshot, steps } };
}
