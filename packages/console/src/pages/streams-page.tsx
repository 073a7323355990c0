/**
 * Streams: each result stream's recent events (the last page before its head), its
 * subscriptions, and each webhook subscription's delivery attempts.
 */
import { Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import { StatusBadge } from '../components/status-badge.js';
import { toCellText } from '../exact-json.js';
import { recentAfter } from '../stream-cursor.js';
import { usePoll } from '../use-poll.js';

/** Events shown per stream. */
const RECENT = 20;

export function StreamsPage() {
  const client = useClient();
  const streams = usePoll(() => client.results.listStreams({ page_size: 100 }), [client], {
    intervalMs: 3000,
  });
  return (
    <Stack>
      <Title order={3}>Streams</Title>
      <ErrorAlert error={streams.error} />
      {(streams.data?.items ?? []).map((s) => (
        <Paper withBorder p="sm" key={s.id} data-testid={`stream-${s.name}`}>
          <Group>
            <Text fw={600}>{s.name}</Text>
            <Text size="sm" c="dimmed">
              application {s.application}
              {s.default ? ' (default)' : ''}, seq {s.earliest_seq}–{s.head_seq}
            </Text>
          </Group>
          <RecentEvents stream={s.name} head={s.head_seq} earliest={s.earliest_seq} />
          <Subscriptions stream={s.name} />
        </Paper>
      ))}
    </Stack>
  );
}

function RecentEvents(props: {
  readonly stream: string;
  readonly head: string;
  readonly earliest: string;
}) {
  const client = useClient();
  const { stream, head, earliest } = props;
  const events = usePoll(
    () =>
      client.results.readStream(stream, {
        after: recentAfter(head, earliest, RECENT),
        limit: RECENT,
      }),
    [client, stream, head, earliest],
  );
  return (
    <>
      <ErrorAlert error={events.error} />
      <Table mt="xs">
        <Table.Tbody>
          {[...(events.data?.events ?? [])].reverse().map((e) => (
            <Table.Tr key={e.seq}>
              <Table.Td>{e.seq}</Table.Td>
              <Table.Td>{e.at}</Table.Td>
              <Table.Td>{e.type}</Table.Td>
              <Table.Td>
                {e.instance_id === undefined
                  ? `task ${e.task_id ?? ''}`
                  : `instance ${e.instance_id}`}
              </Table.Td>
              <Table.Td>
                <StatusBadge status={e.status} />
              </Table.Td>
              <Table.Td>
                <Code>{toCellText(e.result ?? e.error)}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}

function Subscriptions({ stream }: { readonly stream: string }) {
  const client = useClient();
  const subs = usePoll(
    () => client.results.listSubscriptions(stream, { page_size: 100 }),
    [client, stream],
    { intervalMs: 3000 },
  );
  return (
    <Stack gap={4} mt="xs">
      <ErrorAlert error={subs.error} />
      {(subs.data?.items ?? []).map((sub) => (
        <div key={sub.id}>
          <Text size="sm">
            subscription {sub.name} ({sub.state}), acked to {sub.acked_seq}
            {sub.webhook === undefined
              ? ''
              : ` → ${sub.webhook.url} (${sub.webhook.state}, ${sub.webhook.consecutive_failures} failures${sub.webhook.last_error === null ? '' : `, last: ${sub.webhook.last_error}`})`}
          </Text>
          {sub.webhook !== undefined && <Deliveries id={sub.id} />}
        </div>
      ))}
    </Stack>
  );
}

function Deliveries({ id }: { readonly id: string }) {
  const client = useClient();
  const list = usePoll(() => client.results.listDeliveries(id, { page_size: 20 }), [client, id], {
    intervalMs: 3000,
  });
  return (
    <Table>
      <Table.Tbody>
        {(list.data?.items ?? []).map((d) => (
          <Table.Tr key={d.id}>
            <Table.Td>{d.at}</Table.Td>
            <Table.Td>
              <StatusBadge status={d.outcome} />
            </Table.Td>
            <Table.Td>
              seq {d.first_seq}–{d.last_seq}
            </Table.Td>
            <Table.Td>{d.http_status ?? ''}</Table.Td>
            <Table.Td>{d.duration}</Table.Td>
            <Table.Td>{d.error ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
