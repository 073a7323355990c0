/** A workflow version's definition and its graph, read once per (workflow, version). */
import { useMemo } from 'react';
import { useClient } from './client-context.js';
import { toDefinitionGraph } from './graph/definition-graph.js';
import type { DefinitionGraph } from './graph/definition-graph.js';
import { usePoll } from './use-poll.js';

export interface LoadedDefinition {
  readonly definition: unknown;
  readonly graph: DefinitionGraph | undefined;
  readonly error: unknown;
}

export function useDefinition(
  workflow: string | undefined,
  version: number | undefined,
): LoadedDefinition {
  const client = useClient();
  const loaded = usePoll(
    async () =>
      workflow === undefined || version === undefined
        ? undefined
        : (await client.workflows.getVersion(workflow, version)).version.definition,
    [client, workflow, version],
  );
  const graph = useMemo(
    () => (loaded.data === undefined ? undefined : toDefinitionGraph(loaded.data)),
    [loaded.data],
  );
  return { definition: loaded.data, graph, error: loaded.error };
}
