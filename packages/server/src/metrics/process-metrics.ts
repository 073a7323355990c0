/**
 * The default metrics of prom-client (`process_*`, `nodejs_*`): CPU, memory, heap, handles,
 * event-loop delay, GC. They describe the process, not a server, so there is one registry per
 * process, made on first use. This is module state on purpose (STYLE.md §8 asks for none): the
 * collectors install an event-loop delay monitor and a GC observer that are never removed, so one
 * per server would pile up in a process that starts many servers (the test suite).
 */
import { Registry, collectDefaultMetrics } from 'prom-client';

let registry: Registry | undefined;

export function processMetrics(): Registry {
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}
