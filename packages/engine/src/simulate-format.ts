import { stringify } from '@weave/json';
import { formatDecision } from './decision-json.js';
import type { Simulation } from './simulate.js';

/**
 * The simulation as lines for a terminal:
 *
 *   round 1 (start)
 *     ACTIVATE $root ROOT
 *     ACTIVATE reserve TASK queue=inventory input={"order":"A1"} …
 *   round 2 (reserve SUCCEEDED)
 *     …
 *   instance SUCCEEDED output={"tracking":"Z1"}
 */
export function formatSimulation(simulation: Simulation): string[] {
  if (!simulation.ok) {
    return [
      `simulation stopped: the ${simulation.stage} has problems`,
      ...simulation.problems.map(
        (problem) => `  ${problem.path}: ${problem.message} (${problem.code})`,
      ),
    ];
  }
  const lines: string[] = [];
  for (const round of simulation.rounds) {
    lines.push(`round ${round.number} (${round.trigger})`);
    if (round.decisions.length === 0) {
      lines.push('  (no decisions)');
    }
    for (const decision of round.decisions) {
      lines.push(`  ${formatDecision(decision)}`);
    }
    if (round.more) {
      lines.push('  more=true: the budget ran out; storage saves a pending advance');
    }
  }
  const output = simulation.output === undefined ? '' : ` output=${stringify(simulation.output)}`;
  lines.push(`instance ${simulation.rootStatus}${output}`);
  if (simulation.waiting.length > 0) {
    lines.push(`still waiting: ${simulation.waiting.join(', ')}`);
  }
  if (simulation.stoppedByRoundLimit) {
    lines.push('stopped: round limit reached');
  }
  return lines;
}
