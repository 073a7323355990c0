/**
 * A module resolve hook for the bench's server process (workflow-server.ts, registered with
 * `module.register` before the server is imported): every `import … from '@weave/engine'` except
 * the probe's own gets the probe (workflow-engine-probe.ts), which times `compile` and
 * `program.plan` and re-exports the rest of the engine unchanged. No server code is changed.
 */
import type { ResolveHook } from 'node:module';

const PROBE = new URL('./workflow-engine-probe.js', import.meta.url).href;

export const resolve: ResolveHook = (specifier, context, next) => {
  if (specifier === '@weave/engine' && context.parentURL !== PROBE) {
    return { url: PROBE, shortCircuit: true, format: 'module' };
  }
  return next(specifier, context);
};
