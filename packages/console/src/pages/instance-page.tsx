/**
 * An instance: its definition drawn as a graph with nodes coloured by step state (steps polled
 * about every second while the instance is active), the summary, the actions, the selected
 * step's recovery actions, the timeline of activations and attempts, and the history.
 */
import { Grid, Group, Paper, Stack, Table, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import { StatusBadge } from '../components/status-badge.js';
import { GraphView } from '../graph/graph-view.js';
import { Link, navigate } from '../router.js';
import { ACTIVE_INSTANCE_STATUSES } from '../status-colors.js';
import { useDefinition } from '../use-definition.js';
import { usePoll } from '../use-poll.js';
import { HistoryTable } from './history-table.js';
import { InstanceActions } from './instance-actions.js';
import { InstanceSummary } from './instance-summary.js';
import { StepActions } from './step-actions.js';
import { Timeline } from './timeline.js';

/** How often an active instance is read again (issue 13: refreshed while it runs). */
const POLL_MS = 1000;

export function InstancePage({ id }: { readonly id: string }) {
  const client = useClient();
  const view = usePoll(
    async () => {
      const [{ instance }, steps] = await Promise.all([
        client.instances.get(id),
        client.instances.steps(id),
      ]);
      return { instance, steps };
    },
    [client, id],
    { intervalMs: POLL_MS, active: (v) => ACTIVE_INSTANCE_STATUSES.has(v.instance.status) },
  );
  const instance = view.data?.instance;
  const { graph, error: definitionError } = useDefinition(instance?.workflow, instance?.version);
  const statuses = useMemo(
    () => new Map((view.data?.steps.steps ?? []).map((s) => [s.id, s.status] as const)),
    [view.data],
  );
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const selectedStep = view.data?.steps.steps.find((s) => s.id === selected);
  if (instance === undefined) {
    return <ErrorAlert error={view.error} />;
  }
  return (
    <Stack>
      <Group>
        <Title order={3} data-testid="instance-title">
          Instance {instance.id}
        </Title>
        <span data-testid="instance-status">
          <StatusBadge status={instance.status} />
        </span>
        <Link to={`/definitions/${instance.workflow}/${instance.version}`}>
          {instance.workflow} v{instance.version}
        </Link>
      </Group>
      <ErrorAlert error={view.error ?? definitionError} />
      <InstanceActions instance={instance} onDone={view.reload} />
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder p="xs" style={{ overflow: 'auto' }}>
            {graph !== undefined && (
              <GraphView
                graph={graph}
                statuses={statuses}
                selected={selected}
                onSelect={setSelected}
              />
            )}
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <Stack>
            {selectedStep !== undefined && (
              <StepActions
                key={selectedStep.id}
                instanceId={instance.id}
                step={selectedStep}
                onDone={view.reload}
              />
            )}
            <InstanceSummary instance={instance} />
          </Stack>
        </Grid.Col>
      </Grid>
      <Title order={4}>Steps</Title>
      <Table data-testid="steps-table">
        <Table.Tbody>
          {(view.data?.steps.steps ?? []).map((s) => (
            <Table.Tr key={s.id} onClick={() => setSelected(s.id)} style={{ cursor: 'pointer' }}>
              <Table.Td>
                <a
                  href={`/console/instances/${instance.id}/steps/${s.id}`}
                  data-testid={`step-link-${s.id}`}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(`/instances/${instance.id}/steps/${encodeURIComponent(s.id)}`);
                  }}
                >
                  {s.id}
                </a>
              </Table.Td>
              <Table.Td>{s.kind}</Table.Td>
              <Table.Td>
                <StatusBadge status={s.status} />
              </Table.Td>
              <Table.Td>{s.task_id === undefined ? '' : `task ${s.task_id}`}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {/* Read after the graph is drawn: its reads come first on the browser's few connections. */}
      {graph !== undefined && <Timeline instance={instance} steps={view.data?.steps} />}
      {graph !== undefined && (
        <HistoryTable instanceId={instance.id} revision={instance.revision} />
      )}
    </Stack>
  );
}
