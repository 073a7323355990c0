/**
 * Planning rounds per second of the pure engine (docs/benchmarks.md "Planner") for a 10-node and
 * a 128-node definition. Run: `npx tsc -b bench && node bench/build/plan.js [seconds]`.
 *
 * Each definition is played to completion once with every task succeeding; the snapshot before
 * every round is kept. The timed loop re-plans those snapshots in turn (limit 32), so a "round"
 * is exactly what the inbox consumer pays per event: snapshot validation plus planning.
 */
import { applyDecisions, compile } from '@weave/engine';
import type { Program, Snapshot, StepState } from '@weave/engine';
import { parse } from '@weave/json';
import type { JsonValue } from '@weave/json';

const LIMIT = 32;
const WARMUP_MS = 500;

function task(id: string, input: string): string {
  return `{"id":"${id}","kind":"TASK","queue":"work","input":${input},"timeout":"PT30S","retry":{"max_attempts":3}}`;
}

/** 10 nodes: a sequence, a BRANCH, a PARALLEL join, a TIMER and a POLL, with references. */
const TEN = `{"schema_version":1,"name":"ten","input":{"type":"object","required":["id","amount"],
  "properties":{"id":{"type":"string"},"amount":{"type":"number"}}},
  "steps":[${task('reserve', '{"order":"$.input.id"}')},
    {"id":"big","kind":"BRANCH","cases":[{"when":{"gt":["$.input.amount",1000]},"steps":[${task('approve', '{"order":"$.input.id"}')}]}],
     "default":[${task('auto', '{"r":"$.steps.reserve.output"}')}]},
    {"id":"ship","kind":"PARALLEL","branches":{"label":[${task('print', '{"r":"$.steps.reserve.output.id"}')}],
      "notify":[${task('mail', '{"o":"$.input.id"}')}]}},
    {"id":"cool","kind":"TIMER","duration":"PT1M"},
    {"id":"track","kind":"POLL","queue":"carrier","input":{"label":"$.steps.ship.output.label"},"interval":"PT5M",
     "max_rounds":10,"timeout":"P1D","classify":{"path":"$.status","pending":["MOVING"],"succeeded":["DONE"]}},
    ${task('close', '{"t":"$.steps.track.output"}')}],
  "output":{"tracking":"$.steps.track.output","ship":"$.steps.ship.output"}}`;

/** 128 nodes: a top-level sequence of 8 PARALLELs, each with 3 branches of 5 tasks (8 × 16). */
function hundredTwentyEight(): string {
  const blocks = Array.from({ length: 8 }, (_, p) => {
    const branches = ['a', 'b', 'c'].map((name) => {
      const steps = Array.from({ length: 5 }, (_, i) =>
        task(
          `p${p}${name}${i}`,
          i === 0 ? '{"id":"$.input.id"}' : `{"prev":"$.steps.p${p}${name}${i - 1}.output"}`,
        ),
      );
      return `"${name}":[${steps.join(',')}]`;
    });
    return `{"id":"par${p}","kind":"PARALLEL","branches":{${branches.join(',')}}}`;
  });
  return `{"schema_version":1,"name":"wide","steps":[${blocks.join(',')}]}`;
}

function compileText(text: string): Program {
  const result = compile(parse(text));
  if (!result.ok) {
    throw new Error(
      `benchmark definition invalid: ${result.problems.map((p) => p.message).join('; ')}`,
    );
  }
  return result.program;
}

/** Every pre-round snapshot of one run where each task succeeds (one result per round). */
function recordRun(program: Program, input: JsonValue): Snapshot[] {
  const snapshots: Snapshot[] = [];
  let snapshot = program.initialSnapshot(input);
  for (let round = 0; round < 10_000; round++) {
    snapshots.push(snapshot);
    const { decisions, more } = program.plan(snapshot, LIMIT);
    snapshot = applyDecisions(snapshot, decisions);
    if (more) {
      continue;
    }
    const next = program
      .steps()
      .find(
        (step) =>
          ['ACTIVE', 'WAITING'].includes(snapshot.steps.get(step.id)?.status ?? '') &&
          step.kind !== 'BRANCH' &&
          step.kind !== 'PARALLEL',
      );
    if (next === undefined) {
      return snapshots;
    }
    const output =
      next.kind === 'POLL'
        ? parse('{"status":"DONE"}')
        : parse(`{"id":"${next.id}","label":"L-1","n":12.50}`);
    const done: StepState =
      next.kind === 'POLL'
        ? { kind: next.kind, status: 'SUCCEEDED', output, completedBy: 'QUERY' }
        : { kind: next.kind, status: 'SUCCEEDED', output };
    snapshot = { ...snapshot, steps: new Map(snapshot.steps).set(next.id, done) };
  }
  throw new Error('the benchmark run did not finish');
}

function measure(program: Program, snapshots: readonly Snapshot[], durationMs: number): number {
  const until = (ms: number): number => {
    let rounds = 0;
    const start = process.hrtime.bigint();
    const stop = start + BigInt(Math.round(ms * 1e6));
    while (process.hrtime.bigint() < stop) {
      for (const snapshot of snapshots) {
        program.plan(snapshot, LIMIT);
      }
      rounds += snapshots.length;
    }
    return rounds / (Number(process.hrtime.bigint() - start) / 1e9);
  };
  until(WARMUP_MS);
  return until(durationMs);
}

function main(): void {
  const seconds = Number(process.argv[2] ?? '3');
  const input = parse('{"id":"order-1","amount":1500.00}');
  const cases: [string, Program][] = [
    ['10 nodes', compileText(TEN)],
    ['128 nodes', compileText(hundredTwentyEight())],
  ];
  console.log(`node ${process.version}, limit ${LIMIT}, ${seconds} s per case, one core`);
  for (const [name, program] of cases) {
    const snapshots = recordRun(program, input);
    const perSecond = measure(program, snapshots, seconds * 1000);
    const micros = 1e6 / perSecond;
    console.log(
      `${name.padEnd(10)} ${program.stepCount} steps, ${snapshots.length} distinct snapshots: ${Math.round(perSecond).toLocaleString('en-US')} rounds/s (${micros.toFixed(1)} µs/round)`,
    );
  }
}

main();
