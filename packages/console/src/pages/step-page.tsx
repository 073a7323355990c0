/**
 * One step's detail: status, output, error, and every activation (input, task, attempts with
 * worker id and times, poll rounds, waits), polled every second while the step is not settled;
 * with the step's recovery actions.
 */
import { Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import { JsonBlock } from '../components/json-block.js';
import { StatusBadge } from '../components/status-badge.js';
import { Link } from '../router.js';
import { usePoll } from '../use-poll.js';
import { StepActions } from './step-actions.js';

const SETTLED = new Set(['SUCCEEDED', 'SKIPPED', 'CANCELLED', 'FAILED', 'NEEDS_REVIEW']);

type Detail = Awaited<ReturnType<ReturnType<typeof useClient>['instances']['step']>>;
type Activation = Detail['activations'][number];

export function StepPage(props: { readonly instanceId: string; readonly stepId: string }) {
  const client = useClient();
  const detail = usePoll(
    () => client.instances.step(props.instanceId, props.stepId),
    [client, props.instanceId, props.stepId],
    {
      intervalMs: 1000,
      active: (d) => !SETTLED.has(d.status),
    },
  );
  const d = detail.data;
  if (d === undefined) {
    return <ErrorAlert error={detail.error} />;
  }
  const activations = [...d.activations].sort((a, b) => b.number - a.number);
  return (
    <Stack>
      <Group>
        <Link to={`/instances/${props.instanceId}`}>instance {props.instanceId}</Link>
        <Title order={3} data-testid="step-title">
          Step {d.id}
        </Title>
        <Text>{d.kind}</Text>
        <span data-testid="step-status">
          <StatusBadge status={d.status} />
        </span>
        <Text size="sm" c="dimmed">
          revision {d.revision}
          {d.case_index === undefined ? '' : ` · case ${d.case_index + 1}`}
        </Text>
      </Group>
      <ErrorAlert error={detail.error} />
      <StepActions instanceId={props.instanceId} step={d} onDone={detail.reload} />
      <JsonBlock label="output" value={d.output} />
      {d.error !== undefined && <JsonBlock label="error" value={d.error} />}
      <Title order={4}>Activations</Title>
      {activations.map((a) => (
        <ActivationCard key={a.id} activation={a} />
      ))}
    </Stack>
  );
}

function ActivationCard({ activation: a }: { readonly activation: Activation }) {
  return (
    <Paper withBorder p="sm" data-testid={`activation-${a.number}`}>
      <Stack gap="xs">
        <Group>
          <Text fw={600}>Activation {a.number}</Text>
          <StatusBadge status={a.status} />
          <Text size="sm">
            {a.created_at} → {a.finished_at ?? '…'}
          </Text>
          {a.task !== undefined && (
            <Text size="sm">
              task {a.task.id} ({a.task.status}, revision {a.task.revision})
            </Text>
          )}
        </Group>
        <JsonBlock label="input" value={a.input} />
        {a.task !== undefined && a.task.attempts.length > 0 && (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>attempt</Table.Th>
                <Table.Th>status</Table.Th>
                <Table.Th>worker</Table.Th>
                <Table.Th>claimed</Table.Th>
                <Table.Th>lease until</Table.Th>
                <Table.Th>started</Table.Th>
                <Table.Th>finished</Table.Th>
                <Table.Th>error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {a.task.attempts.map((t) => (
                <Table.Tr key={t.id}>
                  <Table.Td>{t.number}</Table.Td>
                  <Table.Td>{t.status}</Table.Td>
                  <Table.Td>{t.worker_id}</Table.Td>
                  <Table.Td>{t.claimed_at}</Table.Td>
                  <Table.Td>{t.lease_until}</Table.Td>
                  <Table.Td>{t.started_at ?? ''}</Table.Td>
                  <Table.Td>{t.finished_at ?? ''}</Table.Td>
                  <Table.Td>{t.error_code ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {a.poll !== undefined && (
          <div>
            <Text size="sm">
              poll: {a.poll.used_rounds} of {a.poll.max_rounds} rounds, deadline{' '}
              {a.poll.deadline_at}
            </Text>
            <Table>
              <Table.Tbody>
                {a.poll.rounds.map((r) => (
                  <Table.Tr key={r.number}>
                    <Table.Td>round {r.number}</Table.Td>
                    <Table.Td>{r.state}</Table.Td>
                    <Table.Td>due {r.due_at}</Table.Td>
                    <Table.Td>{r.task_id === undefined ? '' : `task ${r.task_id}`}</Table.Td>
                    <Table.Td>{r.classification ?? ''}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
        {a.waits.map((w, i) => (
          <Text size="sm" key={i}>
            wait {w.purpose}
            {w.signal_name === undefined ? '' : ` "${w.signal_name}"`}: {w.state}, due {w.due_at}
          </Text>
        ))}
      </Stack>
    </Paper>
  );
}
