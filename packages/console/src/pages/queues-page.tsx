/**
 * Queues: each queue's depth (tasks counted by status), its in-flight tasks and its NEEDS_REVIEW
 * tasks, which can be resolved here (`client.reviewTask`: succeed with an output, fail, retry).
 */
import { Badge, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useClient } from '../client-context.js';
import { ConfirmAction } from '../components/confirm-action.js';
import { ErrorAlert } from '../components/error-alert.js';
import { StatusBadge } from '../components/status-badge.js';
import { toCellText } from '../exact-json.js';
import { usePoll } from '../use-poll.js';

export function QueuesPage() {
  const client = useClient();
  const queues = usePoll(
    async () => {
      const { items } = await client.listQueues({ page_size: 500 });
      return Promise.all(items.map(async (q) => (await client.getQueue(q.name)).queue));
    },
    [client],
    { intervalMs: 2000 },
  );
  return (
    <Stack>
      <Title order={3}>Queues</Title>
      <ErrorAlert error={queues.error} />
      {(queues.data ?? []).map((q) => (
        <Paper withBorder p="sm" key={q.id} data-testid={`queue-${q.name}`}>
          <Group>
            <Text fw={600}>{q.name}</Text>
            <Text size="sm" c="dimmed">
              application {q.application}, capacity {q.capacity}
            </Text>
            {q.paused && <Badge color="orange">paused</Badge>}
          </Group>
          <Group gap="xs" mt={4}>
            {Object.entries(q.counts).map(([status, n]) => (
              <Badge key={status} variant="outline" color={n > 0 ? 'blue' : 'gray'}>
                {status} {n}
              </Badge>
            ))}
          </Group>
          <QueueTasks queue={q.name} />
        </Paper>
      ))}
    </Stack>
  );
}

function QueueTasks({ queue }: { readonly queue: string }) {
  const client = useClient();
  const tasks = usePoll(
    async () => {
      const [running, review] = await Promise.all([
        client.listTasks({ queue, status: 'RUNNING', page_size: 20 }),
        client.listTasks({ queue, status: 'NEEDS_REVIEW', page_size: 50 }),
      ]);
      return [...running.items, ...review.items];
    },
    [client, queue],
    { intervalMs: 2000 },
  );
  const items = tasks.data ?? [];
  if (items.length === 0) {
    return null;
  }
  return (
    <Table mt="xs">
      <Table.Tbody>
        {items.map((t) => (
          <Table.Tr key={t.id}>
            <Table.Td>task {t.id}</Table.Td>
            <Table.Td>
              <StatusBadge status={t.status} />
            </Table.Td>
            <Table.Td>
              <Text size="xs">{toCellText(t.input)}</Text>
            </Table.Td>
            <Table.Td>
              {t.status === 'NEEDS_REVIEW' && (
                <Group gap={4}>
                  <ConfirmAction
                    label="Succeed"
                    title={`Resolve task ${t.id} as succeeded`}
                    json={{ label: 'Output (JSON)', initial: '{}' }}
                    run={({ json, reason }) =>
                      client.reviewTask(t.id, {
                        action: 'succeed',
                        output: json ?? null,
                        reason: reason || 'from the console',
                      })
                    }
                    onDone={tasks.reload}
                  />
                  <ConfirmAction
                    label="Retry"
                    title={`Retry task ${t.id}`}
                    run={({ reason }) =>
                      client.reviewTask(t.id, {
                        action: 'retry',
                        reason: reason || 'from the console',
                      })
                    }
                    onDone={tasks.reload}
                  />
                  <ConfirmAction
                    label="Fail"
                    color="red"
                    title={`Fail task ${t.id}`}
                    json={{
                      label: 'Error (JSON)',
                      initial: '{"code": "failed_by_operator", "message": ""}',
                    }}
                    run={({ json, reason }) =>
                      client.reviewTask(t.id, {
                        action: 'fail',
                        error: json as never,
                        reason: reason || 'from the console',
                      })
                    }
                    onDone={tasks.reload}
                  />
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
