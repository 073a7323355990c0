/**
 * `@weave/engine` as the bench's server process sees it (workflow-loader.ts): the same module,
 * with `compile` and every compiled program's `plan` timed (wall time of the synchronous call on
 * the server's one JS thread: on a loaded machine it includes waits for a core, as the event
 * loop's busy time it is compared with does). Read by workflow-server.ts.
 */
import { compile as realCompile } from '@weave/engine';
import type { CompileResult, Program } from '@weave/engine';

export * from '@weave/engine';

export const engineStats = { compileCalls: 0, compileNs: 0n, planCalls: 0, planNs: 0n };

export function resetEngineStats(): void {
  engineStats.compileCalls = 0;
  engineStats.compileNs = 0n;
  engineStats.planCalls = 0;
  engineStats.planNs = 0n;
}

function timed(program: Program): Program {
  return Object.freeze<Program>({
    ...program,
    plan: (snapshot, limit) => {
      const start = process.hrtime.bigint();
      try {
        return program.plan(snapshot, limit);
      } finally {
        engineStats.planCalls++;
        engineStats.planNs += process.hrtime.bigint() - start;
      }
    },
  });
}

export function compile(...args: Parameters<typeof realCompile>): CompileResult {
  const start = process.hrtime.bigint();
  const result = realCompile(...args);
  engineStats.compileCalls++;
  engineStats.compileNs += process.hrtime.bigint() - start;
  return result.ok ? { ok: true, program: timed(result.program) } : result;
}
