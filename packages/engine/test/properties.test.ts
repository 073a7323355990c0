import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parse, stringify } from '@weave/json';
import type { JsonValue } from '@weave/json';
import type { Decision, Program, Snapshot, StepInfo } from '../src/index.js';
import { applyDecisions, snapshotFromJson, snapshotToJson } from '../src/index.js';
import { compileOk, json, withStep } from './support/helpers.js';
import { scenarios, toDefinition } from './support/generators.js';

type Mode = 'succeed' | 'mixed';

interface Run {
  readonly program: Program;
  readonly snapshots: Snapshot[];
  readonly final: Snapshot;
}

/** What the outside world answers for an in-flight leaf, chosen by `choice`. */
function answer(snapshot: Snapshot, info: StepInfo, choice: number, mode: Mode): Snapshot {
  const state = snapshot.steps.get(info.id);
  if (state?.cancelRequested === true) {
    return withStep(snapshot, info.id, { status: 'CANCELLED' });
  }
  const roll = mode === 'succeed' ? 0 : choice % 10;
  if (roll === 7) {
    return withStep(snapshot, info.id, { status: info.kind === 'TIMER' ? 'CANCELLED' : 'FAILED' });
  }
  if (roll === 8 && (info.kind === 'TASK' || info.kind === 'POLL')) {
    return withStep(snapshot, info.id, { status: 'NEEDS_REVIEW' });
  }
  if (info.kind === 'POLL') {
    return withStep(snapshot, info.id, {
      status: 'SUCCEEDED',
      output: json('{"status":"OK"}'),
      completedBy: 'QUERY',
    });
  }
  return withStep(snapshot, info.id, {
    status: 'SUCCEEDED',
    output: json(`{"n":${choice},"x":1.50}`),
  });
}

function roundTrip(snapshot: Snapshot): Snapshot {
  return snapshotFromJson(parse(stringify(snapshotToJson(snapshot))));
}

/** Checks every ACTIVATE against the state left by the decisions before it in the round. */
function checkRound(
  program: Program,
  before: Snapshot,
  decisions: readonly Decision[],
  activated: Set<string>,
): void {
  const infos = new Map(program.steps().map((info) => [info.id, info]));
  let current = before;
  for (const decision of decisions) {
    if (decision.kind === 'ACTIVATE' && decision.stepId !== '$root') {
      assert.ok(!activated.has(decision.stepId), `${decision.stepId} activated twice`);
      activated.add(decision.stepId);
      const info = infos.get(decision.stepId);
      assert.ok(info);
      const predecessor = [...infos.values()].find(
        (other) =>
          other.parentId === info.parentId &&
          other.block === info.block &&
          other.position === info.position - 1,
      );
      if (predecessor !== undefined) {
        assert.equal(
          current.steps.get(predecessor.id)?.status,
          'SUCCEEDED',
          `${info.id} before ${predecessor.id} succeeded`,
        );
      }
      assert.equal(
        current.steps.get(info.parentId)?.status,
        'ACTIVE',
        `${info.id} under a non-active ${info.parentId}`,
      );
    }
    current = applyDecisions(current, [decision]);
  }
}

function execute(
  scenario: { block: never[]; thresholds: number[]; v: number; limit: number; choices: number[] },
  mode: Mode,
): Run {
  const program = compileOk(toDefinition(scenario.block, scenario.thresholds));
  const infos = program.steps();
  const activated = new Set<string>();
  const cases = new Map<string, number>();
  const snapshots: Snapshot[] = [];
  let snapshot = program.initialSnapshot(json(`{"v":${scenario.v}}`));
  for (let i = 0; i < 400; i++) {
    snapshots.push(snapshot);
    const result = program.plan(snapshot, scenario.limit);
    assert.ok(result.decisions.length <= scenario.limit, 'a round never exceeds its limit');
    assert.deepEqual(
      program.plan(roundTrip(snapshot), scenario.limit),
      result,
      'JSON round trip gives identical decisions',
    );
    checkRound(program, snapshot, result.decisions, activated);
    snapshot = applyDecisions(snapshot, result.decisions);
    for (const [id, state] of snapshot.steps) {
      if (state.caseIndex !== undefined) {
        assert.equal(
          cases.get(id) ?? state.caseIndex,
          state.caseIndex,
          `BRANCH ${id} changed its case`,
        );
        cases.set(id, state.caseIndex);
      }
    }
    if (result.more) {
      continue;
    }
    assert.deepEqual(
      program.plan(snapshot, scenario.limit).decisions,
      [],
      'planning an applied round again does nothing',
    );
    const waiting = infos.filter((info) => {
      const status = snapshot.steps.get(info.id)?.status;
      return (
        (status === 'ACTIVE' || status === 'WAITING') &&
        info.kind !== 'BRANCH' &&
        info.kind !== 'PARALLEL'
      );
    });
    if (waiting.length === 0) {
      break;
    }
    const choice = scenario.choices[i % scenario.choices.length] ?? 0;
    snapshot = answer(snapshot, waiting[choice % waiting.length]!, choice + i, mode);
  }
  return { program, snapshots, final: snapshot };
}

test('[E3.3][E3.4][E3.11] properties hold over generated definitions when every task succeeds', () => {
  fc.assert(
    fc.property(scenarios, (scenario) => {
      const run = execute(scenario as never, 'succeed');
      assert.equal(
        run.final.steps.get('$root')?.status,
        'SUCCEEDED',
        'when every task succeeds the root completes',
      );
    }),
    { numRuns: 200, endOnFailure: true },
  );
});

test('[E3.12] properties hold with failures, reviews and cancellations in random orders', () => {
  fc.assert(
    fc.property(scenarios, (scenario) => {
      const run = execute(scenario as never, 'mixed');
      const root = run.final.steps.get('$root')?.status;
      assert.ok(
        root === 'SUCCEEDED' || root === 'FAILED' || root === 'ACTIVE',
        `root ${String(root)}`,
      );
    }),
    { numRuns: 200, endOnFailure: true },
  );
});

/** Corruptions that make any snapshot inconsistent, where they apply. */
function corruptions(program: Program, snapshot: Snapshot): ((s: Snapshot) => Snapshot)[] {
  const infos = program.steps();
  const list: ((s: Snapshot) => Snapshot)[] = [
    (s) => withStep(s, '$root', { status: 'BOGUS' as never }),
    (s) => ({ ...s, steps: new Map([...s.steps, ['ghost', { kind: 'TASK', status: 'PENDING' }]]) }),
    (s) => ({ ...s, allowNew: 'no' as never }),
  ];
  for (const info of infos) {
    const state = snapshot.steps.get(info.id);
    const status = state?.status;
    list.push((s) => ({ ...s, steps: new Map([...s.steps].filter(([id]) => id !== info.id)) }));
    list.push((s) =>
      withStep(s, info.id, { ...state!, kind: info.kind === 'TASK' ? 'TIMER' : 'TASK' } as never),
    );
    if (status !== 'SUCCEEDED') {
      list.push((s) => withStep(s, info.id, { ...state!, output: null }));
    } else {
      list.push((s) => withStep(s, info.id, { status: 'SUCCEEDED' }));
    }
    if (status === 'PENDING') {
      list.push((s) => withStep(s, info.id, { status: 'PENDING', cancelRequested: true }));
      const blocked = isBlocked(snapshot, infos, info);
      if (blocked) {
        list.push((s) =>
          withStep(s, info.id, {
            status: info.kind === 'SIGNAL' || info.kind === 'TIMER' ? 'WAITING' : 'ACTIVE',
            ...(info.kind === 'BRANCH' ? { caseIndex: 0 } : {}),
          }),
        );
      }
    }
    if (status === 'SUCCEEDED' && (info.kind === 'BRANCH' || info.kind === 'PARALLEL')) {
      list.push((s) => withStep(s, info.id, { ...state!, output: json('"forged"') }));
    }
    if (info.kind === 'TIMER') {
      list.push((s) => withStep(s, info.id, { status: 'FAILED' }));
    }
  }
  return list;
}

/** A PENDING step that may not be active: its predecessor has not succeeded or its parent is not ACTIVE. */
function isBlocked(snapshot: Snapshot, infos: readonly StepInfo[], info: StepInfo): boolean {
  const predecessor = infos.find(
    (o) =>
      o.parentId === info.parentId && o.block === info.block && o.position === info.position - 1,
  );
  const parent = snapshot.steps.get(info.parentId);
  const parentInfo = infos.find((o) => o.id === info.parentId);
  const unchosen = parentInfo?.kind === 'BRANCH' && parent?.caseIndex !== info.block;
  return (
    (predecessor !== undefined && snapshot.steps.get(predecessor.id)?.status !== 'SUCCEEDED') ||
    parent?.status !== 'ACTIVE' ||
    unchosen
  );
}

test('[E3.12] a corrupted snapshot is always rejected whole', () => {
  fc.assert(
    fc.property(scenarios, fc.nat(), fc.nat(), (scenario, pick, which) => {
      const run = execute(scenario as never, 'mixed');
      const snapshot = run.snapshots[pick % run.snapshots.length]!;
      const options = corruptions(run.program, snapshot);
      const corrupt = options[which % options.length]!(snapshot);
      assert.throws(
        () => run.program.plan(corrupt, scenario.limit),
        (error: unknown) => {
          const code = (error as { code?: unknown }).code;
          assert.ok(typeof code === 'string' && code.startsWith('snapshot_'), String(error));
          return true;
        },
      );
    }),
    { numRuns: 300, endOnFailure: true },
  );
});

test('the engine size of a value equals the UTF-8 length of its compact text', async () => {
  const { serializedSize } = await import('../src/json-value.js');
  const { utf8ByteLength } = await import('@weave/json');
  fc.assert(
    fc.property(fc.json(), fc.string({ unit: 'grapheme' }), (text, extra) => {
      let value: JsonValue;
      try {
        value = parse(text);
      } catch {
        return; // e.g. a "__proto__" key, which @weave/json refuses by design
      }
      for (const candidate of [value, [value, extra], new Map([[extra, value]])]) {
        assert.equal(serializedSize(candidate), utf8ByteLength(stringify(candidate)));
      }
    }),
    { numRuns: 300, endOnFailure: true },
  );
});
